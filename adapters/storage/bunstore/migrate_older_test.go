package bunstore

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/uptrace/bun/migrate"

	"github.com/hearth-forge/hearth/core/domain"
)

// migrateBefore brings st to the schema an older Hearth left: every
// embedded migration numbered below first. Migration tests then write
// rows the old way and run the rest.
func migrateBefore(t *testing.T, st *Store, first string) {
	t.Helper()
	old := fstest.MapFS{}
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		if base >= first {
			continue
		}
		src, err := fs.ReadFile(migrationFiles, name)
		if err != nil {
			t.Fatal(err)
		}
		old[base] = &fstest.MapFile{Data: src}
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(old); err != nil {
		t.Fatal(err)
	}
	if err := st.migrateWith(t.Context(), ms); err != nil {
		t.Fatalf("migrations before %s: %v", first, err)
	}
}

// seedProject creates public group g and its project p, through the
// store of whatever schema st is at.
func seedProject(t *testing.T, ctx context.Context, st *Store) *domain.Project {
	t.Helper()
	g := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "G", Path: "g", Visibility: domain.Public}
	if err := st.Namespaces().Create(ctx, g); err != nil {
		t.Fatal(err)
	}
	p := &domain.Project{NamespaceID: g.ID, Name: "p", Path: "p", Visibility: domain.Public}
	if err := st.Projects().Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	return p
}
