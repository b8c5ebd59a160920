package bunstore

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/hearth-forge/hearth/core/domain"
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

// TestBlobReferences: artifacts page by ID; archived traces are the
// finished, not erased jobs with a trace that left the database.
func TestBlobReferences(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		// Six finished jobs, then a pending one.
		p, pending := seedJobs(t, st, "refs", false, 6, 1)
		all, _, err := st.Jobs().List(ctx, domain.JobFilter{ProjectID: p.ID})
		if err != nil || len(all) != 7 {
			t.Fatalf("jobs: %d, %v", len(all), err)
		}
		slices.SortFunc(all, func(a, b domain.Job) int { return int(a.ID - b.ID) })
		trace := func(j domain.Job) {
			t.Helper()
			if _, err := st.Jobs().AppendTrace(ctx, j.ID, 0, []byte("log\n")); err != nil {
				t.Fatal(err)
			}
		}
		// 0: archived; 1: archived, then erased; 2: trace still in the
		// database; 3: no trace; 4: archived; 5: canceled and archived;
		// pending: a trace in the database.
		for _, i := range []int{0, 1, 2, 4, 5} {
			trace(all[i])
		}
		trace(pending[0])
		for _, i := range []int{0, 1, 4, 5} {
			if err := st.Jobs().DeleteTrace(ctx, all[i].ID); err != nil {
				t.Fatal(err)
			}
		}
		now := time.Now()
		if _, err := st.Jobs().Update(ctx, all[1].ID, func(j *domain.Job) error { j.ErasedAt = &now; return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Jobs().Update(ctx, all[5].ID, func(j *domain.Job) error { j.Status = domain.CICanceled; return nil }); err != nil {
			t.Fatal(err)
		}
		var got []int64
		for after := int64(0); ; {
			page, err := st.ArchivedTracesAfter(ctx, after, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range page {
				got, after = append(got, j.ID), j.ID
			}
			if len(page) < 2 {
				break
			}
		}
		if want := []int64{all[0].ID, all[4].ID, all[5].ID}; !slices.Equal(got, want) {
			t.Errorf("archived traces: %v, want %v", got, want)
		}

		var keys []string
		for i, typ := range []string{"archive", "metadata", "archive"} {
			j := all[i/2]
			a := &domain.Artifact{JobID: j.ID, Type: typ, Format: "zip", Filename: typ, Key: domain.ArtifactKey(p.ID, j.ID, typ)}
			if _, err := st.Artifacts().Create(ctx, a); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, a.Key)
		}
		first, err := st.ArtifactsAfter(ctx, 0, 2)
		if err != nil || len(first) != 2 || first[0].Key != keys[0] || first[1].Key != keys[1] || first[0].ProjectID != p.ID {
			t.Fatalf("first page of artifacts: %+v, %v", first, err)
		}
		rest, err := st.ArtifactsAfter(ctx, first[1].ID, 2)
		if err != nil || len(rest) != 1 || rest[0].Key != keys[2] {
			t.Fatalf("second page of artifacts: %+v, %v", rest, err)
		}
	})
}
