package apptest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/core/config"
)

// copySQLiteTemplate writes a migrated SQLite database to path.
func copySQLiteTemplate(t testing.TB, path string) {
	t.Helper()
	migrated, err := sqliteTemplate()
	if err != nil {
		t.Fatalf("apptest: migrate the SQLite template: %v", err)
	}
	if err := os.WriteFile(path, migrated, 0o600); err != nil {
		t.Fatalf("apptest: %v", err)
	}
}

// sqliteTemplate is the content of a database file that hearth migrate
// ran on, once per process: migrating takes tens of milliseconds, copying
// the file a few.
var sqliteTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "hearth-apptest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Storage.Driver = "sqlite"
	cfg.Storage.DSN = filepath.Join(dir, "hearth.db")
	// Migrate closes the database, which checkpoints the WAL into the
	// file: the file alone is the whole database.
	if err := app.Migrate(context.Background(), cfg); err != nil {
		return nil, err
	}
	return os.ReadFile(cfg.Storage.DSN)
})
