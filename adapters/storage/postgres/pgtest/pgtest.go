// Package pgtest gives each test its own Postgres schema on the server named
// by HEARTH_TEST_POSTGRES_DSN, so tests run against a real database without
// containers and without stepping on each other.
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

// DSN creates a fresh schema with a random name and returns a DSN whose
// search_path is that schema; the schema is dropped when t ends. When no
// server answers, t is skipped, unless the CI variable is set: CI must
// exercise Postgres, so there t fails.
func DSN(t testing.TB) string {
	t.Helper()
	base := baseDSN()
	db, err := connect(base)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("pgtest: Postgres must answer when CI is set: %v", err)
		}
		t.Skipf("pgtest: no Postgres (set HEARTH_TEST_POSTGRES_DSN): %v", err)
	}
	defer db.Close()

	schema := "hearth_test_" + randomHex(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() { drop(t, base, schema) })
	dsn, err := withSearchPath(base, schema)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dsn
}

// baseDSN is the server tests use.
func baseDSN() string {
	if dsn := os.Getenv("HEARTH_TEST_POSTGRES_DSN"); dsn != "" {
		return dsn
	}
	return DefaultDSN
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

func drop(t testing.TB, base, schema string) {
	db, err := connect(base)
	if err != nil {
		t.Errorf("pgtest: drop schema %s: %v", schema, err)
		return
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		t.Errorf("pgtest: drop schema %s: %v", schema, err)
	}
}

// withSearchPath sets search_path in a URL or key=value DSN; pgx sends it
// to the server as a run-time parameter of every connection.
func withSearchPath(dsn, schema string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("parse dsn: %w", err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	return dsn + " search_path=" + schema, nil
}

func randomHex(t testing.TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return hex.EncodeToString(b)
}
