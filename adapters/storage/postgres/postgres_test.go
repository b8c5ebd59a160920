package postgres_test

import (
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/adapters/storage/postgres"
	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest"
	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest/migrated"
	"github.com/hearth-forge/hearth/contracttests"
)

func open(t *testing.T, dsn string) *bun.DB {
	t.Helper()
	db, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newStore opens a fresh, migrated database for t.
func newStore(t *testing.T) *bunstore.Store {
	t.Helper()
	return postgres.NewStore(open(t, migrated.DSN(t)))
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
			Issues: st.Issues(), Milestones: st.Milestones(), Labels: st.Labels(), Awards: st.Awards(), Snippets: st.Snippets(), TimeTracking: st.TimeTracking(),
			Pipelines: st.Pipelines(), Jobs: st.Jobs(), Runners: st.Runners(), Variables: st.Variables(), Triggers: st.Triggers(), Settings: st.Settings(), Artifacts: st.Artifacts(), Hooks: st.Hooks(), HookDeliveries: st.HookDeliveries(), HookEvents: st.HookEvents(),
			SystemHooks: st.SystemHooks(), HookRouter: st.HookRouter(), DeployKeys: st.DeployKeys(),
			BroadcastMessages: st.BroadcastMessages(), Tx: st.Tx(),
		}
	})
}

func TestMigrateTwice(t *testing.T) {
	t.Parallel()
	st := postgres.NewStore(open(t, pgtest.DSN(t)))
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate an empty schema: %v", err)
	}
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	if err := st.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

// TestMigrateConcurrently starts two nodes on one empty schema at once: the
// advisory lock makes one wait for the other, and both succeed.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	stores := []*bunstore.Store{postgres.NewStore(open(t, dsn)), postgres.NewStore(open(t, dsn))}
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Go(func() { errs[i] = st.Migrate(t.Context()) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("node %d: Migrate: %v", i, err)
		}
	}
	var n, distinct int
	err := stores[0].DB().NewRaw("SELECT count(*), count(DISTINCT name) FROM hearth_migrations").Scan(t.Context(), &n, &distinct)
	if err != nil {
		t.Fatalf("count migrations: %v", err)
	}
	if n == 0 || n != distinct {
		t.Errorf("hearth_migrations has %d rows for %d migrations, want each once", n, distinct)
	}
}

func TestOpenBadDSN(t *testing.T) {
	if _, err := postgres.Open(t.Context(), "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"); err == nil {
		t.Fatal("Open succeeded against a closed port")
	}
}
