package bunstore

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// TestSchemaStatus: a database never migrated has every migration pending
// (and SchemaStatus creates nothing); one migrated by an older binary has
// the rest pending; one migrated by a newer binary shows the migrations
// this binary does not know.
func TestSchemaStatus(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		all, err := migrations()
		if err != nil {
			t.Fatal(err)
		}
		n := len(all.Sorted())

		s, err := st.SchemaStatus(ctx)
		if err != nil {
			t.Fatalf("SchemaStatus of an empty database: %v", err)
		}
		if s.Known != n || len(s.Pending) != n || len(s.Unknown) != 0 {
			t.Fatalf("empty database: %+v, want all %d pending", s, n)
		}
		if ok, err := st.tableExists(ctx, migrationsTable); err != nil || ok {
			t.Fatalf("SchemaStatus created the migrations table (%v, %v)", ok, err)
		}

		// An older binary applied the first two migrations.
		old := fstest.MapFS{}
		names, err := fs.Glob(migrationFiles, "migrations/*.sql")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names[:2] {
			src, err := fs.ReadFile(migrationFiles, name)
			if err != nil {
				t.Fatal(err)
			}
			old[strings.TrimPrefix(name, "migrations/")] = &fstest.MapFile{Data: src}
		}
		ms := migrate.NewMigrations()
		if err := ms.Discover(old); err != nil {
			t.Fatal(err)
		}
		if err := st.migrateWith(ctx, ms); err != nil {
			t.Fatal(err)
		}
		if s, err = st.SchemaStatus(ctx); err != nil || len(s.Pending) != n-2 || s.Pending[0] != "0003" {
			t.Fatalf("after two migrations: %+v, %v; want %d pending from 0003", s, err, n-2)
		}

		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if s, err = st.SchemaStatus(ctx); err != nil || len(s.Pending)+len(s.Unknown) != 0 {
			t.Fatalf("migrated: %+v, %v; want nothing pending or unknown", s, err)
		}

		// A newer binary recorded a migration this one does not know.
		if _, err := db.NewRaw("INSERT INTO hearth_migrations (name, group_id, migrated_at) VALUES ('9999', 99, CURRENT_TIMESTAMP)").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if s, err = st.SchemaStatus(ctx); err != nil || !slices.Equal(s.Unknown, []string{"9999"}) || len(s.Pending) != 0 {
			t.Fatalf("newer database: %+v, %v; want 9999 unknown", s, err)
		}
	})
}
