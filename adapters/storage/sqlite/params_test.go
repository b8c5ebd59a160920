package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/uptrace/bun"
)

func TestParameterize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
		args           []any
		ok             bool
	}{
		{"values in a where clause become parameters",
			`SELECT "u"."id" FROM "users" AS "u" WHERE (id = 42) AND (name = 'O''Brien') LIMIT 1`,
			`SELECT "u"."id" FROM "users" AS "u" WHERE (id = ?) AND (name = ?) LIMIT 1`,
			[]any{int64(42), "O'Brien"}, true},
		{"IN lists and subqueries too",
			`SELECT i.*, (SELECT count(*) FROM notes AS n WHERE n.type = 'Issue' AND n.id = i.id) AS c FROM issues AS i WHERE i.id IN (5, 4) AND i.x = -1.5`,
			`SELECT i.*, (SELECT count(*) FROM notes AS n WHERE n.type = ? AND n.id = i.id) AS c FROM issues AS i WHERE i.id IN (?, ?) AND i.x = -?`,
			[]any{"Issue", int64(5), int64(4), 1.5}, true},
		{"a function's literal arguments stay, so expression indexes still match",
			`SELECT id FROM namespaces WHERE coalesce(parent_id, 0) = 3 AND lower(path) = lower('Ab')`,
			`SELECT id FROM namespaces WHERE coalesce(parent_id, 0) = ? AND lower(path) = lower('Ab')`,
			[]any{int64(3)}, true},
		{"ORDER BY, GROUP BY, LIMIT and OFFSET keep their literals",
			`SELECT a, b FROM t WHERE c = 'x' GROUP BY 1 ORDER BY 2 DESC, 'z' LIMIT 20 OFFSET 40`,
			`SELECT a, b FROM t WHERE c = ? GROUP BY 1 ORDER BY 2 DESC, 'z' LIMIT 20 OFFSET 40`,
			[]any{"x"}, true},
		{"identifiers with digits and quoted names are left alone",
			`WITH RECURSIVE up(id) AS (SELECT id FROM t1 WHERE id IN (7)) SELECT "col 2", t1.x2 FROM up JOIN t1 ON t1.id = up.id`,
			`WITH RECURSIVE up(id) AS (SELECT id FROM t1 WHERE id IN (?)) SELECT "col 2", t1.x2 FROM up JOIN t1 ON t1.id = up.id`,
			[]any{int64(7)}, true},
		{"no literals", `SELECT 'a' || x FROM t`, `SELECT ? || x FROM t`, []any{"a"}, true},
		{"writes", `INSERT INTO "t" ("a", "b", "c") VALUES (1, 'x', DEFAULT) RETURNING "id"`,
			`INSERT INTO "t" ("a", "b", "c") VALUES (?, ?, DEFAULT) RETURNING "id"`, []any{int64(1), "x"}, true},
		{"an upsert's conflict target stays literal",
			`INSERT INTO todos (u, s) VALUES (3, 'pending') ON CONFLICT (u) WHERE s = 'pending' DO UPDATE SET n = n + 1 WHERE todos.u = 4`,
			`INSERT INTO todos (u, s) VALUES (?, ?) ON CONFLICT (u) WHERE s = 'pending' DO UPDATE SET n = n + ? WHERE todos.u = ?`,
			[]any{int64(3), "pending", int64(1), int64(4)}, true},
		{"updates and deletes", `UPDATE t SET a = 'b' WHERE id = 2`, `UPDATE t SET a = ? WHERE id = ?`, []any{"b", int64(2)}, true},
		{"DDL runs as it came", `CREATE INDEX x ON t (a) WHERE b = 1`, "", nil, false},
		{"comments", `SELECT 1 -- one`, "", nil, false},
		{"blobs", `SELECT X'00ff'`, "", nil, false},
		{"exponents", `SELECT 1e5`, "", nil, false},
		{"own placeholders", `SELECT ? + 1`, "", nil, false},
		{"several statements", `SELECT 1; SELECT 2`, "", nil, false},
		{"unterminated string", `SELECT 'abc`, "", nil, false},
		{"unbalanced", `SELECT (1`, "", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, args, ok := parameterize(c.in)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (%q)", ok, c.ok, got)
			}
			if !ok {
				return
			}
			if got != c.want {
				t.Errorf("text\n got %s\nwant %s", got, c.want)
			}
			var vals []any
			for i, a := range args {
				if a.Ordinal != i+1 {
					t.Errorf("arg %d has ordinal %d", i, a.Ordinal)
				}
				vals = append(vals, a.Value)
			}
			if !reflect.DeepEqual(vals, c.args) {
				t.Errorf("args %#v, want %#v", vals, c.args)
			}
		})
	}
}

// TestCachedStatements runs reads through the cache against a real
// database: the same shape with other values answers with its own values,
// a read of the same shape inside a loop over rows on one connection (a
// transaction) does not disturb the outer rows, and more shapes than the
// cache holds all answer.
func TestCachedStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL)`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		if _, err := db.ExecContext(ctx, `INSERT INTO t (id, name, score) VALUES (?, ?, ?)`, i, "n'"+string(rune('a'+i)), float64(i)/2); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 5; i++ {
		var name string
		var score float64
		if err := db.QueryRowContext(ctx, `SELECT name, score FROM t WHERE id = ?`, i).Scan(&name, &score); err != nil {
			t.Fatal(err)
		}
		if want := "n'" + string(rune('a'+i)); name != want || score != float64(i)/2 {
			t.Errorf("id %d: %q %v, want %q %v", i, name, score, want, float64(i)/2)
		}
		var id int64
		if err := db.NewSelect().Table("t").Column("id").Where("name = ?", name).Scan(ctx, &id); err != nil || id != int64(i) {
			t.Errorf("by name %q: id %d, err %v", name, id, err)
		}
	}

	// One connection reads one shape with three values: one statement is
	// prepared and cached under the parameterized text.
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		var name string
		if err := conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT name FROM t WHERE id = %d`, i)).Scan(&name); err != nil {
			t.Fatal(err)
		}
	}
	if err := conn.Raw(func(dc any) error {
		c := dc.(*cachingConn)
		if _, ok := c.stmts[`SELECT name FROM t WHERE id = ?`]; !ok {
			t.Errorf("no cached statement for the shape; cached: %v", c.lru.Len())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		rows, err := tx.QueryContext(ctx, bunFormat(tx, `SELECT id FROM t WHERE id > ? ORDER BY id`, 0))
		if err != nil {
			return err
		}
		defer rows.Close()
		seen := 0
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			// Same shape, same connection, outer rows still open.
			var inner int64
			if err := tx.QueryRowContext(ctx, bunFormat(tx, `SELECT id FROM t WHERE id > ? ORDER BY id`, id)).Scan(&inner); err != nil && id < 5 {
				return err
			}
			if id < 5 && inner != id+1 {
				t.Errorf("inner read after %d got %d", id, inner)
			}
			seen++
		}
		if seen != 5 {
			t.Errorf("outer rows: %d, want 5", seen)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}

	for i := range stmtCacheSize + 20 {
		// Distinct shapes: the column alias differs.
		var got int64
		q := bunFormat(db, fmt.Sprintf(`SELECT id AS c%d FROM t WHERE id = ?`, i), 1+i%5)
		if err := db.QueryRowContext(ctx, q).Scan(&got); err != nil || got != int64(1+i%5) {
			t.Fatalf("shape %d: %d, %v", i, got, err)
		}
	}
}

func bunFormat(db bun.IDB, q string, args ...any) string {
	return db.NewRaw(q, args...).String()
}

var _ driver.Connector = connector{}
