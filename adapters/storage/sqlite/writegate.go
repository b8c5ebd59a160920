package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"
)

// SQLite has one writer at a time. Left to itself, a connection that finds
// the write lock taken waits in SQLite's busy handler, which sleeps in
// steps of up to 100 ms and polls: under concurrent writes a request waits
// for the next poll rather than for the writer ahead, and the tail latency
// is set by the sleep steps, not by the work. The gate queues this
// process's writers in Go instead: a write transaction, or a write
// statement outside one, holds the gate from BEGIN to COMMIT or ROLLBACK,
// and the next writer starts the moment it is released, in arrival order.
// The busy handler stays as the fallback for other processes on the same
// file (hearth backup, a second server) and for the rare write the gate
// cannot see (a WITH ... INSERT outside a transaction, a prepared
// statement).

// writeGate is a FIFO lock with a bounded wait (busyWait, the same bound
// busy_timeout gives SQLite).
type writeGate struct {
	ch       chan struct{}
	busyWait time.Duration
}

func newWriteGate(busyWait time.Duration) *writeGate {
	return &writeGate{ch: make(chan struct{}, 1), busyWait: busyWait}
}

// acquire waits for the gate: at most busyWait, and not past ctx. Blocked
// senders on a channel are served in arrival order.
func (g *writeGate) acquire(ctx context.Context) error {
	select {
	case g.ch <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(g.busyWait)
	defer t.Stop()
	select {
	case g.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("sqlite: database is locked: another writer held it for %s", g.busyWait)
	}
}

func (g *writeGate) release() { <-g.ch }

// gatedConn is a connection whose writers pass the gate.
type gatedConn struct {
	*cachingConn
	gate *writeGate
	// inTx is set while a transaction of this connection holds the gate;
	// its statements then run without asking again.
	inTx bool
}

func (c *gatedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.ReadOnly {
		// A read-only transaction (a backup's snapshot) begins deferred
		// and never takes the write lock: it must not hold the gate, or
		// every writer would wait for it to end.
		return c.cachingConn.BeginTx(ctx, opts)
	}
	if err := c.gate.acquire(ctx); err != nil {
		return nil, err
	}
	tx, err := c.cachingConn.BeginTx(ctx, opts)
	if err != nil {
		c.gate.release()
		return nil, err
	}
	c.inTx = true
	return &gatedTx{Tx: tx, c: c}, nil
}

// Close gives the gate back if the connection goes away inside a
// transaction (a broken connection database/sql discards).
func (c *gatedConn) Close() error {
	if c.inTx {
		c.inTx = false
		c.gate.release()
	}
	return c.cachingConn.Close()
}

// ExecContext runs a statement outside a transaction through the gate
// when it may write.
func (c *gatedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.inTx || !mayWrite(query) {
		return c.cachingConn.ExecContext(ctx, query, args)
	}
	if err := c.gate.acquire(ctx); err != nil {
		return nil, err
	}
	defer c.gate.release()
	return c.cachingConn.ExecContext(ctx, query, args)
}

// QueryContext is ExecContext for statements that return rows (INSERT
// ... RETURNING): the gate is held until the rows are closed, since SQLite
// holds the write lock until the statement is done.
func (c *gatedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.inTx || !mayWrite(query) {
		return c.cachingConn.QueryContext(ctx, query, args)
	}
	if err := c.gate.acquire(ctx); err != nil {
		return nil, err
	}
	rows, err := c.cachingConn.QueryContext(ctx, query, args)
	if err != nil {
		c.gate.release()
		return nil, err
	}
	return &gatedRows{innerRows: rows.(innerRows), gate: c.gate}, nil
}

// gatedTx releases the gate when the transaction ends, whichever way.
type gatedTx struct {
	driver.Tx
	c *gatedConn
}

func (t *gatedTx) Commit() error {
	defer t.end()
	return t.Tx.Commit()
}

func (t *gatedTx) Rollback() error {
	defer t.end()
	return t.Tx.Rollback()
}

func (t *gatedTx) end() {
	if t.c.inTx {
		t.c.inTx = false
		t.c.gate.release()
	}
}

// gatedRows releases the gate once, when closed.
type gatedRows struct {
	innerRows
	gate *writeGate
	done bool
}

func (r *gatedRows) Close() error {
	err := r.innerRows.Close()
	if !r.done {
		r.done = true
		r.gate.release()
	}
	return err
}

// mayWrite reports whether a statement may take the write lock: anything
// but a read (SELECT, VALUES, EXPLAIN, PRAGMA, or WITH, whose rare
// writing form is left to the busy handler).
func mayWrite(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	end := strings.IndexFunc(q, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') })
	if end < 0 {
		end = len(q)
	}
	switch strings.ToUpper(q[:end]) {
	case "SELECT", "VALUES", "EXPLAIN", "PRAGMA", "WITH":
		return false
	}
	return true
}
