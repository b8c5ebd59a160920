package bunstore

import (
	"testing"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestDeployKeyStoreSuite runs the deploy key part of the store suite on
// SQLite here (the Postgres adapter runs the whole suite with it).
func TestDeployKeyStoreSuite(t *testing.T) {
	t.Parallel()
	contracttests.RunDeployKeyStoreSuite(t, func(t *testing.T) contracttests.Stores {
		st := New(openSQLite(t))
		if err := st.Migrate(t.Context()); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		return contracttests.Stores{
			Users: st.Users(), Keys: st.Keys(), Namespaces: st.Namespaces(), Projects: st.Projects(),
			DeployKeys: st.DeployKeys(), Tx: st.Tx(),
		}
	})
}

// TestMigrationClaimsUserKeyFingerprints: migration 0015 records the
// fingerprints of the users' keys that exist already, so no deploy key can
// take one, and the keys keep their ids.
func TestMigrationClaimsUserKeyFingerprints(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		migrateBefore(t, st, "0015")
		u := &domain.User{Username: "alice", Email: "alice@example.com", State: domain.UserActive}
		if err := st.Users().Create(ctx, u); err != nil {
			t.Fatal(err)
		}
		g := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "G", Path: "g", Visibility: domain.Public}
		if err := st.Namespaces().Create(ctx, g); err != nil {
			t.Fatal(err)
		}
		p := &domain.Project{NamespaceID: g.ID, Name: "p", Path: "p", Visibility: domain.Public}
		if err := st.Projects().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		// An id well past 1, as a database with history has them.
		if _, err := db.ExecContext(ctx, `INSERT INTO ssh_keys (id, user_id, title, "key", fingerprint, created_at)
			VALUES (57, ?, 'laptop', 'ssh-ed25519 AAAA', 'aa:bb', CURRENT_TIMESTAMP)`, u.ID); err != nil {
			t.Fatal(err)
		}
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		k, err := st.Keys().ByFingerprint(ctx, "aa:bb")
		if err != nil || k.ID != 57 || k.UserID != u.ID {
			t.Fatalf("the user's key after the migration = %+v, %v", k, err)
		}
		err = st.DeployKeys().Create(ctx, &domain.DeployKey{Title: "d", Key: "ssh-ed25519 AAAA", Fingerprint: "aa:bb"}, p.ID)
		if !errorsIsConflict(err) {
			t.Fatalf("deploy key with an old user key's fingerprint: %v, want a conflict", err)
		}
		// Deleting the old key frees its fingerprint.
		if err := st.Keys().Delete(ctx, u.ID, 57); err != nil {
			t.Fatal(err)
		}
		if err := st.DeployKeys().Create(ctx, &domain.DeployKey{Title: "d", Key: "ssh-ed25519 AAAA", Fingerprint: "aa:bb"}, p.ID); err != nil {
			t.Fatalf("deploy key with a freed fingerprint: %v", err)
		}
	})
}

func errorsIsConflict(err error) bool {
	return len(core.Fields(err)["fingerprint"]) == 1 && core.Fields(err)["fingerprint"][0] == "has already been taken"
}
