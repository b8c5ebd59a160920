package bunstore

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun/migrate"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TestImportOlderBackup: a backup taken before migration 0014 imports at
// its own schema, then migrates forward (0014 moves the project hook into
// web_hooks, keeping its id); a target already past the backup's schema
// and a backup naming a migration this build lacks are refused.
func TestImportOlderBackup(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src := New(openSQLite(t))
	old := fstest.MapFS{}
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if base := strings.TrimPrefix(name, "migrations/"); base < "0014" {
			data, _ := fs.ReadFile(migrationFiles, name)
			old[base] = &fstest.MapFile{Data: data}
		}
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(old); err != nil {
		t.Fatal(err)
	}
	if err := src.migrateWith(ctx, ms); err != nil {
		t.Fatal(err)
	}
	g := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "G", Path: "g", Visibility: domain.Public}
	if err := src.Namespaces().Create(ctx, g); err != nil {
		t.Fatal(err)
	}
	p := &domain.Project{NamespaceID: g.ID, Name: "p", Path: "p", Visibility: domain.Public}
	if err := src.Projects().Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)
	if _, err := src.DB().ExecContext(ctx, `INSERT INTO project_hooks (id, project_id, url, token, note_events, failure_count, created_at, updated_at)
		VALUES (41, ?, 'http://a', 'tok', TRUE, 2, ?, ?)`, p.ID, t0, t0); err != nil {
		t.Fatal(err)
	}

	parts := map[string][]byte{}
	var in ports.DatabaseImport
	err = src.Backup().Export(ctx, func(snap ports.DatabaseSnapshot) error {
		in.Schema, in.Tables = snap.Schema(), snap.Tables()
		for _, table := range in.Tables {
			var buf bytes.Buffer
			if _, err := snap.WriteTable(ctx, table, &buf); err != nil {
				return err
			}
			parts[table] = buf.Bytes()
		}
		var err error
		in.Sequences, err = snap.Sequences(ctx)
		return err
	})
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if last := in.Schema[len(in.Schema)-1]; last != "0013" {
		t.Fatalf("schema of the old database ends at %s", last)
	}
	in.Open = func(table string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(parts[table])), nil }

	dst := New(openSQLite(t))
	if empty, err := dst.Backup().Empty(ctx); err != nil || !empty {
		t.Fatalf("a new database: empty %v, %v", empty, err)
	}
	if err := dst.Backup().Import(ctx, in); err != nil {
		t.Fatalf("import: %v", err)
	}
	h, err := dst.Hooks().Get(ctx, p.ID, 41)
	if err != nil || h.URL != "http://a" || !h.CreatedAt.Equal(t0) {
		t.Fatalf("the hook after import and migration: %+v, %v", h, err)
	}
	got, err := dst.Projects().Get(ctx, p.ID)
	if err != nil || got.Path != "p" || !got.CreatedAt.Equal(p.CreatedAt) {
		t.Errorf("project after import: %+v, %v", got, err)
	}
	// New rows continue after the imported ids.
	p2 := &domain.Project{NamespaceID: g.ID, Name: "q", Path: "q", Visibility: domain.Public}
	if err := dst.Projects().Create(ctx, p2); err != nil || p2.ID <= p.ID {
		t.Errorf("a new project's id %d after imported %d: %v", p2.ID, p.ID, err)
	}

	if err := dst.Backup().Import(ctx, in); !errors.Is(err, core.ErrConflict) {
		t.Errorf("import into a database past the backup's schema: %v", err)
	}
	in.Schema = append(in.Schema, "9999")
	if err := New(openSQLite(t)).Backup().Import(ctx, in); !errors.Is(err, core.ErrInvalid) || !strings.Contains(err.Error(), "9999") {
		t.Errorf("import of a backup from a newer build: %v", err)
	}
}
