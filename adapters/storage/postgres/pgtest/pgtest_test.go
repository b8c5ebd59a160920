package pgtest

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"
	"testing"
)

func TestWithParam(t *testing.T) {
	for _, tc := range []struct{ dsn, key, value, want string }{
		{"postgres://u@h:5432/db?sslmode=disable", "search_path", "s1", "postgres://u@h:5432/db?search_path=s1&sslmode=disable"},
		{"host=h dbname=db", "search_path", "s1", "host=h dbname=db search_path=s1"},
		{"postgres://u@h:5432/db?sslmode=disable", "dbname", "other", "postgres://u@h:5432/other?sslmode=disable"},
		{"host=h dbname=db", "dbname", "other", "host=h dbname=db dbname=other"},
	} {
		got, err := withParam(tc.dsn, tc.key, tc.value)
		if err != nil || got != tc.want {
			t.Errorf("withParam(%q, %s=%s) = %q, %v; want %q", tc.dsn, tc.key, tc.value, got, err, tc.want)
		}
	}
}

// TestFast: tests turn synchronous_commit off, benchmarks keep it.
func TestFast(t *testing.T) {
	const dsn = "postgres://u@h:5432/db"
	if got := fast(t, dsn); got != dsn+"?synchronous_commit=off" {
		t.Errorf("for a test: %q", got)
	}
	var got string
	testing.Benchmark(func(b *testing.B) { got = fast(b, dsn) })
	if got != dsn {
		t.Errorf("for a benchmark: %q, want the DSN unchanged", got)
	}
}

func TestDSN(t *testing.T) {
	var schema string
	t.Run("fresh schema", func(t *testing.T) {
		db := open(t, DSN(t))
		if err := db.QueryRowContext(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatalf("current_schema: %v", err)
		}
		if !strings.HasPrefix(schema, "hearth_test_") {
			t.Fatalf("current_schema() = %q, want the test's own schema", schema)
		}
		if _, err := db.ExecContext(t.Context(), "CREATE TABLE t (id int)"); err != nil {
			t.Fatalf("create table in the schema: %v", err)
		}
		wantSetting(t, db, "synchronous_commit", "off")
	})
	if t.Failed() || schema == "" {
		return
	}
	if n := count(t, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", schema); n != 0 {
		t.Errorf("schema %s outlived its test", schema)
	}
}

// TestFromTemplate: the template is built once however many tests ask for
// it at once, over what a builder that died left; each test has a database
// of its own holding what build made, whatever the test before it did
// there.
func TestFromTemplate(t *testing.T) {
	template := "hearth_pgtest_" + randomHex(t)
	t.Cleanup(func() { dropTemplate(t, template) })
	admin := adminDB(t, baseDSN())
	for _, q := range []string{
		"CREATE DATABASE " + ident(template+"_building"),
		"ALTER DATABASE " + ident(template+"_building") + " IS_TEMPLATE true",
	} {
		if _, err := admin.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	admin.Close()
	var builds atomic.Int32
	build := func(ctx context.Context, dsn string) error {
		builds.Add(1)
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.ExecContext(ctx, `CREATE TABLE parent (id serial PRIMARY KEY, v text);
			CREATE TABLE child (id serial PRIMARY KEY, parent_id int NOT NULL REFERENCES parent (id));
			CREATE TABLE seeded (v text); INSERT INTO seeded VALUES ('from the template')`)
		return err
	}
	// use checks that t's database is as build left it, then writes to
	// it as a test would.
	use := func(t *testing.T) (*sql.DB, string) {
		db := open(t, FromTemplate(t, template, build))
		var name, v string
		if err := db.QueryRowContext(t.Context(), "SELECT current_database(), (SELECT string_agg(v, ',') FROM seeded)").Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		if v != "from the template" {
			t.Errorf("%s: seeded holds %q, want the template's row only", name, v)
		}
		var parents, children int
		if err := db.QueryRowContext(t.Context(), "SELECT (SELECT count(*) FROM parent), (SELECT count(*) FROM child)").Scan(&parents, &children); err != nil || parents+children != 0 {
			t.Errorf("%s: %d parents, %d children (%v), want none", name, parents, children, err)
		}
		var id int
		if err := db.QueryRowContext(t.Context(), "INSERT INTO parent (v) VALUES ('p') RETURNING id").Scan(&id); err != nil || id != 1 {
			t.Errorf("%s: first parent has id %d (%v), want 1", name, id, err)
		}
		if _, err := db.ExecContext(t.Context(), "INSERT INTO child (parent_id) VALUES ($1)", id); err != nil {
			t.Fatal(err)
		}
		wantSetting(t, db, "synchronous_commit", "off")
		return db, name
	}

	t.Run("parallel", func(t *testing.T) {
		for range 4 {
			t.Run("test", func(t *testing.T) {
				t.Parallel()
				use(t)
			})
		}
	})
	if got := builds.Load(); got != 1 {
		t.Errorf("build ran %d times, want once", got)
	}
	t.Run("held at once", func(t *testing.T) {
		seen := map[string]bool{}
		for range 3 {
			_, name := use(t)
			if !strings.HasPrefix(name, template+"_") || seen[name] {
				t.Errorf("database %s, want one named %s_N that no other test holds (%v)", name, template, seen)
			}
			seen[name] = true
		}
	})
	t.Run("after rows", func(t *testing.T) { use(t) })
	t.Run("changes the schema", func(t *testing.T) {
		db, _ := use(t)
		if _, err := db.ExecContext(t.Context(), "ALTER TABLE parent ADD COLUMN extra int"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("after DDL", func(t *testing.T) {
		db, _ := use(t)
		var n int
		if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM information_schema.columns WHERE table_name = 'parent' AND column_name = 'extra'").Scan(&n); err != nil || n != 0 {
			t.Errorf("the column another test added is still there (%d, %v)", n, err)
		}
	})
	t.Run("changes template rows", func(t *testing.T) {
		db, _ := use(t)
		if _, err := db.ExecContext(t.Context(), "DELETE FROM seeded"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("after template rows", func(t *testing.T) { use(t) })
	if n := count(t, "SELECT count(*) FROM pg_database WHERE datname = $1 AND datistemplate AND NOT datallowconn", template); n != 1 {
		t.Errorf("template %s: %d closed templates by that name, want 1", template, n)
	}
}

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func wantSetting(t *testing.T, db *sql.DB, name, want string) {
	t.Helper()
	var got string
	if err := db.QueryRowContext(t.Context(), "SELECT current_setting($1)", name).Scan(&got); err != nil || got != want {
		t.Errorf("%s = %q (%v), want %q", name, got, err, want)
	}
}

// count runs a count query on the server itself.
func count(t *testing.T, query string, args ...any) int {
	t.Helper()
	db := adminDB(t, baseDSN())
	defer db.Close()
	var n int
	if err := db.QueryRowContext(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// dropTemplate drops template name and its copies.
func dropTemplate(t *testing.T, name string) {
	db := adminDB(t, baseDSN())
	defer db.Close()
	copies, err := column(context.Background(), db, "SELECT datname FROM pg_database WHERE starts_with(datname, $1)", name+"_")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(copies, name) {
		if err := dropDatabase(context.Background(), db, c); err != nil {
			t.Errorf("drop %s: %v", c, err)
		}
	}
}
