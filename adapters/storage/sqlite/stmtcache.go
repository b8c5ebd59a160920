package sqlite

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/hearth-forge/hearth/adapters/storage/literals"
)

// stmtCacheSize is how many prepared statements each connection keeps.
// Hearth's statements have a few hundred shapes; the hot ones stay.
const stmtCacheSize = 256

// Parsing and planning a statement costs SQLite more than running an indexed
// read (a token lookup spent most of its time in sqlite3Prepare), and bun
// sends every statement as new text with its values inline. The connector
// below gives each connection a cache of prepared statements keyed by the
// parameterized text (see package literals), so that a statement with the same shape
// and other values reuses the plan.

// connector opens connections of the modernc driver wrapped with a statement
// cache, their writers queued at one gate (see writegate.go).
type connector struct {
	base driver.Connector
	gate *writeGate
}

func newConnector(dsn string, busyWait time.Duration) (connector, error) {
	base, err := msqlite.NewConnector(dsn)
	if err != nil {
		return connector{}, err
	}
	return connector{base: base, gate: newWriteGate(busyWait)}, nil
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	inner, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	cc, err := newCachingConn(inner)
	if err != nil {
		return nil, err
	}
	return &gatedConn{cachingConn: cc, gate: c.gate}, nil
}

func (c connector) Driver() driver.Driver { return c.base.Driver() }

// innerConn is what database/sql uses of a modernc connection.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachingConn is a modernc connection whose parameterizable statements run
// through cached prepared statements. database/sql never uses one
// connection from two goroutines, so it needs no lock.
type cachingConn struct {
	innerConn
	lru   *list.List // of *cachedStmt, most recently used first
	stmts map[string]*list.Element
}

type cachedStmt struct {
	text string
	stmt driver.StmtQueryContext
	// busy is set while rows read from the statement are open: a second
	// query of the same shape on this connection (a read inside a loop over
	// rows, in one transaction) then prepares its own statement.
	busy bool
}

func newCachingConn(c driver.Conn) (*cachingConn, error) {
	inner, ok := c.(innerConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("sqlite: driver connection %T lacks the context interfaces", c)
	}
	return &cachingConn{innerConn: inner, lru: list.New(), stmts: map[string]*list.Element{}}, nil
}

// QueryContext runs query through a cached statement when it can be
// parameterized, as it came otherwise.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) != 0 {
		return c.innerConn.QueryContext(ctx, query, args)
	}
	text, params, ok := literals.Extract(query, literals.SQLite)
	if !ok {
		return c.innerConn.QueryContext(ctx, query, nil)
	}
	cs, err := c.statement(ctx, text)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.innerConn.QueryContext(ctx, text, params)
	}
	rows, err := cs.stmt.QueryContext(ctx, params)
	if err != nil {
		return nil, err
	}
	inner, ok := rows.(innerRows)
	if !ok {
		return nil, errors.Join(fmt.Errorf("sqlite: driver rows %T lack the column type interfaces", rows), rows.Close())
	}
	cs.busy = true
	return &cachedRows{inner: inner, owner: cs}, nil
}

// ExecContext runs query through a cached statement when it can be
// parameterized, as it came otherwise.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) != 0 {
		return c.innerConn.ExecContext(ctx, query, args)
	}
	text, params, ok := literals.Extract(query, literals.SQLite)
	if !ok {
		return c.innerConn.ExecContext(ctx, query, nil)
	}
	cs, err := c.statement(ctx, text)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.innerConn.ExecContext(ctx, text, params)
	}
	exec, ok := cs.stmt.(driver.StmtExecContext)
	if !ok {
		return c.innerConn.ExecContext(ctx, text, params)
	}
	return exec.ExecContext(ctx, params)
}

// statement is the cached statement for text, prepared on first use; nil
// when the cached one is busy.
func (c *cachingConn) statement(ctx context.Context, text string) (*cachedStmt, error) {
	if e, ok := c.stmts[text]; ok {
		cs := e.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(e)
		return cs, nil
	}
	st, err := c.innerConn.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	q, ok := st.(driver.StmtQueryContext)
	if !ok {
		st.Close()
		return nil, nil
	}
	cs := &cachedStmt{text: text, stmt: q}
	c.stmts[text] = c.lru.PushFront(cs)
	for c.lru.Len() > stmtCacheSize {
		old := c.lru.Back()
		ocs := old.Value.(*cachedStmt)
		if ocs.busy {
			break // closed when its rows are; rare, and the cache shrinks next time
		}
		c.lru.Remove(old)
		delete(c.stmts, ocs.text)
		if err := ocs.stmt.(driver.Stmt).Close(); err != nil {
			return nil, fmt.Errorf("sqlite: close cached statement: %w", err)
		}
	}
	return cs, nil
}

// Close finalizes the cached statements, then the connection.
func (c *cachingConn) Close() error {
	var errs []error
	for e := c.lru.Front(); e != nil; e = e.Next() {
		errs = append(errs, e.Value.(*cachedStmt).stmt.(driver.Stmt).Close())
	}
	c.lru.Init()
	clear(c.stmts)
	return errors.Join(append(errs, c.innerConn.Close())...)
}

// innerRows is what database/sql uses of modernc's rows.
type innerRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// cachedRows frees its statement for the next query when closed.
type cachedRows struct {
	inner innerRows
	owner *cachedStmt
}

func (r *cachedRows) Columns() []string              { return r.inner.Columns() }
func (r *cachedRows) Next(dest []driver.Value) error { return r.inner.Next(dest) }
func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	return r.inner.ColumnTypeDatabaseTypeName(i)
}
func (r *cachedRows) ColumnTypeLength(i int) (int64, bool)  { return r.inner.ColumnTypeLength(i) }
func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) { return r.inner.ColumnTypeNullable(i) }
func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type { return r.inner.ColumnTypeScanType(i) }
func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	return r.inner.ColumnTypePrecisionScale(i)
}

func (r *cachedRows) Close() error {
	err := r.inner.Close()
	r.owner.busy = false
	return err
}
