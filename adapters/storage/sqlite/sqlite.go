// Package sqlite opens Hearth's default database: one SQLite file through the
// pure-Go modernc.org/sqlite driver, so embedders need no cgo.
//
// Concurrent writers must never see SQLITE_BUSY. WAL lets readers run beside
// the single writer; writers of this process queue at a gate in Go
// (writegate.go) and busy_timeout makes any other writer wait for the lock
// instead of failing; and immediate transactions (_txlock=immediate) take the write lock
// at BEGIN. The last matters because busy_timeout cannot help a deferred
// transaction that read first and then tries to write while another writer
// committed in between: SQLite fails that upgrade at once with SQLITE_BUSY.
//
// Only file databases are supported: with ":memory:" every pooled connection
// would open its own empty database. Tests use a file in t.TempDir().
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
)

// busyWait is how long a writer waits for the one ahead, at the gate
// and (for other processes) in SQLite's busy handler.
const busyWait = 10 * time.Second

// pragmas are applied by the driver to every new connection.
const pragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"

// Open opens (creating it and its directory when missing) the SQLite
// database at path and checks that it answers.
func Open(ctx context.Context, path string) (*bun.DB, error) {
	if path == "" || strings.Contains(path, ":memory:") || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("sqlite: open %q: want a file path (in-memory databases do not work with a connection pool)", path)
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: open %q: the path may not contain '?' or '#'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	conn, err := newConnector(path+"?"+pragmas, busyWait)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	sqldb := sql.OpenDB(conn)
	// Writers queue in the pool rather than spin in SQLite's busy handler,
	// while readers still get a few connections of their own under WAL.
	n := max(4, runtime.GOMAXPROCS(0))
	sqldb.SetMaxOpenConns(n)
	sqldb.SetMaxIdleConns(n)
	sqldb.SetConnMaxLifetime(0)
	db := bun.NewDB(sqldb, sqlitedialect.New())
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: open %q: %w", path, err), db.Close())
	}
	return db, nil
}

// NewStore returns the stores over a database from Open. SQLite has no row
// locks; immediate transactions serialise read-modify-write instead.
func NewStore(db *bun.DB) *bunstore.Store { return bunstore.New(db) }
