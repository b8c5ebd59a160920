package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/adapters/storage/sqlite"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/domain"
)

// newStore opens and migrates a fresh database file for t.
func newStore(t *testing.T) *bunstore.Store {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "data", "hearth.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	st := sqlite.NewStore(db)
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return st
}

func TestStoreSuite(t *testing.T) {
	contracttests.RunStoreSuite(t, func(t *testing.T) contracttests.Stores {
		st := newStore(t)
		return contracttests.Stores{
			Users: st.Users(), Keys: st.Keys(), Emails: st.Emails(),
			Tokens: st.Tokens(), Events: st.Events(),
			Namespaces: st.Namespaces(), Projects: st.Projects(), Members: st.Members(),
			ProtectedBranches: st.ProtectedBranches(), Releases: st.Releases(), CommitComments: st.CommitComments(),
			MergeRequests: st.MergeRequests(), Notes: st.Notes(), Todos: st.Todos(), Subscriptions: st.Subscriptions(),
			Issues: st.Issues(), Milestones: st.Milestones(), Labels: st.Labels(), Awards: st.Awards(), Snippets: st.Snippets(),
			Tx: st.Tx(),
		}
	})
}

func TestMigrateTwice(t *testing.T) {
	st := newStore(t)
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	if err := st.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func TestOpenPragmas(t *testing.T) {
	st := newStore(t)
	ctx := t.Context()
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"foreign_keys": "1",
		"busy_timeout": "10000",
		"synchronous":  "1",
	} {
		var got string
		if err := st.DB().NewRaw("PRAGMA "+pragma).Scan(ctx, &got); err != nil {
			t.Fatalf("PRAGMA %s: %v", pragma, err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestOpenRejectsMemory(t *testing.T) {
	for _, path := range []string{":memory:", "file::memory:?cache=shared", ""} {
		if db, err := sqlite.Open(t.Context(), path); err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded; in-memory databases do not work with a pool", path)
		}
	}
}

// TestRowLocksIgnored: SQLite has no SELECT ... FOR UPDATE, so the option
// meant for Postgres must not break it.
func TestRowLocksIgnored(t *testing.T) {
	st := bunstore.New(newStore(t).DB(), bunstore.WithRowLocks())
	u := &domain.User{Username: "alice", Email: "alice@example.com", State: domain.UserActive}
	if err := st.Users().Create(t.Context(), u); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if _, err := st.Users().Update(t.Context(), u.ID, func(u *domain.User) error { u.Bio = "x"; return nil }); err != nil {
		t.Fatalf("Update with row locks on SQLite: %v", err)
	}
}
