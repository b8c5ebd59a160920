package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun"
)

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
		c := dc.(*gatedConn).cachingConn
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
