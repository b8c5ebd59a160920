// Package migrated gives each test its own Postgres database with every
// Hearth migration applied, made from a template (pgtest.FromTemplate) instead of
// migrated anew: migrating costs a quarter of a second and more under load
// (every index an fsync), taking a copy a few tens of milliseconds.
//
// The template is named by a digest of bunstore's migrations and of the code
// that applies them, read from the source tree, so a template built by older
// code is never used. Where the sources are not on disk (a binary built with
// -trimpath), each test migrates its own empty schema instead: slower, the
// same result.
//
// Templates of older migrations, and their copies, stay on the server
// (about 10 MB each, copies as many as tests ran at once); a CI server
// starts empty, a developer's may drop them all now and then:
//
//	psql -Atc "SELECT format('ALTER DATABASE %I IS_TEMPLATE false; DROP DATABASE %I;', datname, datname)
//	  FROM pg_database WHERE datname LIKE 'hearth\_template\_%'" | psql
package migrated

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/adapters/storage/postgres"
	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest"
)

// DSN returns the DSN of a fresh database of t's own, migrated; it is
// dropped when t ends. Like pgtest.DSN, it skips t without a server unless
// CI is set.
func DSN(t testing.TB) string {
	t.Helper()
	name, err := template()
	if err != nil {
		dsn := pgtest.DSN(t)
		if err := migrate(t.Context(), dsn); err != nil {
			t.Fatalf("migrated: %v", err)
		}
		return dsn
	}
	return pgtest.FromTemplate(t, name, migrate)
}

// migrate applies Hearth's migrations to the database at dsn, as a node
// does at start-up.
func migrate(ctx context.Context, dsn string) error {
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		return err
	}
	return errors.Join(postgres.NewStore(db).Migrate(ctx), db.Close())
}

// template is the name of the template for the migrations in the source
// tree, computed once per process.
var template = sync.OnceValues(func() (string, error) {
	digest, err := migrationsDigest()
	if err != nil {
		return "", err
	}
	return "hearth_template_" + digest, nil
})

// migrationsDigest hashes what decides the migrated schema: bunstore's
// migration files, migrate.go that renders and applies them, and the
// version of bun, whose migrator records them.
func migrationsDigest() (string, error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("no source location")
	}
	bunstore := filepath.Join(filepath.Dir(self), "..", "..", "..", "bunstore")
	files, err := fs.Glob(os.DirFS(bunstore), "migrations/*.sql")
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no migrations under %s: %v", bunstore, err)
	}
	files = append(files, "migrate.go")
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(bunstore, f))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	// Test binaries carry no module versions (debug.ReadBuildInfo), so
	// bun's version comes from go.mod.
	gomod, err := os.ReadFile(filepath.Join(bunstore, "..", "..", "..", "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(gomod), "\n") {
		if strings.Contains(line, "github.com/uptrace/bun") {
			fmt.Fprintln(h, strings.TrimSpace(line))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
