package literals

import (
	"reflect"
	"testing"
)

func TestExtractSQLite(t *testing.T) {
	t.Parallel()
	cases := []extractCase{
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
	runExtract(t, SQLite, cases)
}

func TestExtractPostgres(t *testing.T) {
	t.Parallel()
	cases := []extractCase{
		{"comparisons and IN lists, values as their text",
			`SELECT "u"."id" FROM "users" AS "u" WHERE (id = 42) AND (name <> 'O''Brien') AND u.x IN (1, 2) LIMIT 1`,
			`SELECT "u"."id" FROM "users" AS "u" WHERE (id = $1) AND (name <> $2) AND u.x IN ($3, $4) LIMIT 1`,
			[]any{"42", "O'Brien", "1", "2"}, true},
		{"select lists, CASE and arithmetic keep their literals (their type would be text)",
			`SELECT 1, CASE WHEN a = 'x' THEN 'y' ELSE 'z' END, b + 1 FROM t WHERE c >= 3`,
			`SELECT 1, CASE WHEN a = $1 THEN 'y' ELSE 'z' END, b + 1 FROM t WHERE c >= $2`,
			[]any{"x", "3"}, true},
		{"casts name their type",
			`SELECT * FROM t WHERE a = '2024-01-01'::timestamptz AND b = 'x' :: text AND c = 'y'`,
			`SELECT * FROM t WHERE a = '2024-01-01'::timestamptz AND b = 'x' :: text AND c = $1`,
			[]any{"y"}, true},
		{"VALUES rows and SET values",
			`INSERT INTO "t" ("a", "b") VALUES (1, 'x'), (2, DEFAULT) ON CONFLICT (a) WHERE s = 'p' DO UPDATE SET b = 'y', n = t.n + 1 RETURNING "id"`,
			`INSERT INTO "t" ("a", "b") VALUES ($1, $2), ($3, DEFAULT) ON CONFLICT (a) WHERE s = 'p' DO UPDATE SET b = $4, n = t.n + 1 RETURNING "id"`,
			[]any{"1", "x", "2", "y"}, true},
		{"LIKE patterns; negative numbers stay",
			`SELECT id FROM t WHERE name LIKE '%a%' AND n = -1`,
			`SELECT id FROM t WHERE name LIKE $1 AND n = -1`,
			[]any{"%a%"}, true},
		{"escape strings", `SELECT 1 FROM t WHERE a = E'\n'`, "", nil, false},
		{"jsonb operators", `SELECT 1 FROM t WHERE a ? 'k'`, "", nil, false},
		{"dollar quotes", `SELECT $$x$$`, "", nil, false},
	}
	runExtract(t, Postgres, cases)
}

type extractCase struct {
	name, in, want string
	args           []any
	ok             bool
}

func runExtract(t *testing.T, d Dialect, cases []extractCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, args, ok := Extract(c.in, d)
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
