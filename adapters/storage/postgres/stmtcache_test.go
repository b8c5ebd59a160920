package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest/migrated"
)

// TestCachedStatements: statements with inline values run through the
// statement cache answer with their own values; a cached t.* read whose
// table grows a column under it (another node migrating) still answers,
// with the new column, outside a transaction.
func TestCachedStatements(t *testing.T) {
	db := open(t, migrated.DSN(t))
	ctx := t.Context()
	db.SetMaxOpenConns(1) // one connection: its cache sees every statement
	if _, err := db.ExecContext(ctx, `CREATE TABLE cache_probe (id BIGINT PRIMARY KEY, name TEXT NOT NULL, at TIMESTAMPTZ NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	// The database goes back to the pool of migrated copies as it came.
	t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), `DROP TABLE cache_probe`) })
	for i := int64(1); i <= 3; i++ {
		if _, err := db.NewRaw(`INSERT INTO cache_probe (id, name, at) VALUES (?, ?, ?)`, i, "n'"+string(rune('a'+i)), "2024-01-0"+string(rune('0'+i))+" 10:00:00+00").Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(1); i <= 3; i++ {
		var name string
		if err := db.NewRaw(`SELECT name FROM cache_probe WHERE id = ? AND at >= ?`, i, "2024-01-01 00:00:00+00").Scan(ctx, &name); err != nil {
			t.Fatal(err)
		}
		if want := "n'" + string(rune('a'+i)); name != want {
			t.Errorf("id %d: %q, want %q", i, name, want)
		}
	}
	read := func(ctx context.Context) (int, error) {
		rows, err := db.QueryContext(ctx, `SELECT c.* FROM cache_probe AS c WHERE c.id = 1`)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		return len(cols), err
	}
	if n, err := read(ctx); err != nil || n != 3 {
		t.Fatalf("before: %d columns, %v", n, err)
	}
	if _, err := db.ExecContext(ctx, `ALTER TABLE cache_probe ADD COLUMN extra TEXT`); err != nil {
		t.Fatal(err)
	}
	if n, err := read(ctx); err != nil || n != 4 {
		t.Errorf("after a column was added: %d columns, %v", n, err)
	}
}

// TestExecModeDSN: a DSN that picks its own query mode (for a pooler that
// keeps no sessions) opens and serves bun's statements unprepared.
func TestExecModeDSN(t *testing.T) {
	dsn := migrated.DSN(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	db := open(t, dsn+sep+"default_query_exec_mode=exec")
	var n int
	if err := db.NewRaw("SELECT count(*) FROM users WHERE id > ?", 0).Scan(t.Context(), &n); err != nil || n != 0 {
		t.Fatalf("count users: %d, %v", n, err)
	}
}
