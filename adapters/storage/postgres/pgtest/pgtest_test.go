package pgtest

import (
	"database/sql"
	"strings"
	"testing"
)

func TestWithSearchPath(t *testing.T) {
	got, err := withSearchPath("postgres://u@h:5432/db?sslmode=disable", "s1")
	if err != nil || got != "postgres://u@h:5432/db?search_path=s1&sslmode=disable" {
		t.Errorf("URL: %q, %v", got, err)
	}
	got, err = withSearchPath("host=h dbname=db", "s1")
	if err != nil || got != "host=h dbname=db search_path=s1" {
		t.Errorf("key=value: %q, %v", got, err)
	}
}

func TestDSN(t *testing.T) {
	var schema string
	t.Run("fresh schema", func(t *testing.T) {
		db, err := sql.Open("pgx", DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.QueryRowContext(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatalf("current_schema: %v", err)
		}
		if !strings.HasPrefix(schema, "hearth_test_") {
			t.Fatalf("current_schema() = %q, want the test's own schema", schema)
		}
		if _, err := db.ExecContext(t.Context(), "CREATE TABLE t (id int)"); err != nil {
			t.Fatalf("create table in the schema: %v", err)
		}
	})
	if t.Failed() || schema == "" {
		return
	}
	db, err := connect(baseDSN())
	if err != nil {
		t.Skip("no Postgres")
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM pg_namespace WHERE nspname = $1", schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("schema %s outlived its test", schema)
	}
}
