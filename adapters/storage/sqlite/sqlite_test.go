package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/adapters/storage/sqlite"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/domain"
)

// newStore opens a fresh, migrated database file for t: a copy of one
// migrated once per process.
func newStore(t *testing.T) *bunstore.Store {
	t.Helper()
	migrated, err := template()
	if err != nil {
		t.Fatalf("template: %v", err)
	}
	path := filepath.Join(t.TempDir(), "data", "hearth.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, migrated, 0o600); err != nil {
		t.Fatal(err)
	}
	return open(t, path)
}

// emptyStore opens a fresh database file for t with no migration applied.
func emptyStore(t *testing.T) *bunstore.Store {
	t.Helper()
	return open(t, filepath.Join(t.TempDir(), "data", "hearth.db"))
}

func open(t *testing.T, path string) *bunstore.Store {
	t.Helper()
	db, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return sqlite.NewStore(db)
}

// template is the content of a database file migrated once per process.
var template = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "hearth-sqlite-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hearth.db")
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	err = sqlite.NewStore(db).Migrate(context.Background())
	// Closing the last connection checkpoints the WAL into the file.
	if err := errors.Join(err, db.Close()); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
})

func TestStoreSuite(t *testing.T) {
	contracttests.RunStoreSuite(t, func(t *testing.T) contracttests.Stores {
		st := newStore(t)
		return contracttests.Stores{
			Users: st.Users(), Keys: st.Keys(), Emails: st.Emails(),
			Tokens: st.Tokens(), Events: st.Events(),
			Namespaces: st.Namespaces(), Projects: st.Projects(), Members: st.Members(),
			ProtectedBranches: st.ProtectedBranches(), Releases: st.Releases(), CommitComments: st.CommitComments(),
			MergeRequests: st.MergeRequests(), Notes: st.Notes(), Todos: st.Todos(), Subscriptions: st.Subscriptions(),
			Issues: st.Issues(), Milestones: st.Milestones(), Labels: st.Labels(), Awards: st.Awards(), Snippets: st.Snippets(), TimeTracking: st.TimeTracking(),
			Pipelines: st.Pipelines(), Jobs: st.Jobs(), Runners: st.Runners(), Variables: st.Variables(), Triggers: st.Triggers(), Settings: st.Settings(), Artifacts: st.Artifacts(), Hooks: st.Hooks(), HookDeliveries: st.HookDeliveries(), HookEvents: st.HookEvents(),
			SystemHooks: st.SystemHooks(), HookRouter: st.HookRouter(), DeployKeys: st.DeployKeys(),
			BroadcastMessages: st.BroadcastMessages(), Tx: st.Tx(),
		}
	})
}

func TestMigrateTwice(t *testing.T) {
	t.Parallel()
	st := emptyStore(t)
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate an empty database: %v", err)
	}
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
