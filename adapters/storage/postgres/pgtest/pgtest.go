// Package pgtest gives each test its own Postgres on the server named by
// HEARTH_TEST_POSTGRES_DSN, so tests run against a real database without
// containers and without stepping on each other: DSN makes an empty schema
// (for tests of migrations themselves), FromTemplate a database in the
// state a template was built in, the template built once per server (the
// migrated package builds it with Hearth's migrations). The role of the
// DSN must be allowed to create databases (CREATEDB).
//
// Every DSN it returns to a test turns off synchronous_commit: a commit
// returns before its WAL reaches the disk. Only durability across a server
// crash changes, which no test observes; visibility, locking and isolation
// are as in production. Benchmarks (a *testing.B) keep the server's
// setting, so that they measure what production does.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// DefaultDSN is the server used when HEARTH_TEST_POSTGRES_DSN is unset.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// DSN creates a fresh, empty schema with a random name and returns a DSN
// whose search_path is that schema; the schema is dropped when t ends. When
// no server answers, t is skipped, unless the CI variable is set: CI must
// exercise Postgres, so there t fails.
func DSN(t testing.TB) string {
	t.Helper()
	base := baseDSN()
	db := adminDB(t, base)
	defer db.Close()

	schema := "hearth_test_" + randomHex(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+ident(schema)); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() { drop(t, base, "SCHEMA "+ident(schema)+" CASCADE") })
	dsn, err := withParam(base, "search_path", schema)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return fast(t, dsn)
}

// baseDSN is the server tests use.
func baseDSN() string {
	if dsn := os.Getenv("HEARTH_TEST_POSTGRES_DSN"); dsn != "" {
		return dsn
	}
	return DefaultDSN
}

// adminDB connects to base for creating and dropping things, or skips t
// (fails it under CI) when no server answers.
func adminDB(t testing.TB, base string) *sql.DB {
	t.Helper()
	db, err := connect(base)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("pgtest: Postgres must answer when CI is set: %v", err)
		}
		t.Skipf("pgtest: no Postgres (set HEARTH_TEST_POSTGRES_DSN): %v", err)
	}
	return db
}

// connect opens base and checks, within a short timeout, that it answers.
func connect(base string) (*sql.DB, error) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// drop runs DROP what on base, reporting a failure on t.
func drop(t testing.TB, base, what string) {
	db, err := connect(base)
	if err != nil {
		t.Errorf("pgtest: drop %s: %v", what, err)
		return
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "DROP "+what); err != nil {
		t.Errorf("pgtest: drop %s: %v", what, err)
	}
}

// fast adds the test-only settings of the package doc to dsn.
func fast(t testing.TB, dsn string) string {
	t.Helper()
	if _, bench := t.(*testing.B); bench {
		return dsn
	}
	dsn, err := withParam(dsn, "synchronous_commit", "off")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dsn
}

// withParam sets key in a URL or key=value DSN: the database name
// ("dbname"), or a run-time parameter pgx sends to the server on every
// connection (search_path, synchronous_commit).
func withParam(dsn, key, value string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("parse dsn: %w", err)
		}
		if key == "dbname" {
			u.Path = "/" + value
			return u.String(), nil
		}
		q := u.Query()
		q.Set(key, value)
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	// A later key=value pair overrides an earlier one.
	return dsn + " " + key + "=" + value, nil
}

// ident quotes an SQL identifier.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// literal quotes an SQL string (standard_conforming_strings is on).
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func randomHex(t testing.TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return hex.EncodeToString(b)
}
