package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hearth-forge/hearth/adapters/storage/literals"
)

// Postgres parses and plans every statement it is sent as new text, and bun
// sends every statement as new text with its values inline: the backend
// spent most of a keyed read's time there. The connector below rewrites each
// statement whose literals can become parameters (package literals) and runs
// it in pgx's statement-cache mode, which prepares each shape once per
// connection and then only binds and executes it. Statements that cannot be
// rewritten run in exec mode (one round trip, no cache entry), so one-off
// texts never fill the cache.

// connector opens pgx connections wrapped by paramConn.
type connector struct{ base driver.Connector }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	inner, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := inner.(innerConn)
	if !ok {
		inner.Close()
		return nil, fmt.Errorf("postgres: driver connection %T lacks the context interfaces", inner)
	}
	return &paramConn{innerConn: pc}, nil
}

func (c connector) Driver() driver.Driver { return c.base.Driver() }

// innerConn is what database/sql uses of a pgx stdlib connection.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.NamedValueChecker
}

// paramConn is a pgx connection that sends bun's statements with their
// literals as parameters.
type paramConn struct {
	innerConn
	inTx bool
}

func (c *paramConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.innerConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.inTx = true
	return &paramTx{tx, c}, nil
}

// paramTx notes the end of its connection's transaction.
type paramTx struct {
	driver.Tx
	c *paramConn
}

func (t *paramTx) Commit() error   { t.c.inTx = false; return t.Tx.Commit() }
func (t *paramTx) Rollback() error { t.c.inTx = false; return t.Tx.Rollback() }

// stalePlan reports the error of a cached statement whose result columns
// changed under it (another node migrated a table, a SELECT t.* grew a
// column). pgx drops the statement from its cache on any error, so one
// retry prepares it again; inside a transaction the error has aborted the
// transaction and the caller must retry it whole.
func (c *paramConn) stalePlan(err error) bool {
	var pgErr *pgconn.PgError
	return !c.inTx && errors.As(err, &pgErr) && pgErr.Code == "0A000" && strings.Contains(pgErr.Message, "cached plan")
}

// execMode, first among a pgx query's arguments, overrides the connection's
// default mode (statement cache) for statements sent as they came.
var execMode = driver.NamedValue{Ordinal: 1, Value: pgx.QueryExecModeExec}

func (c *paramConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) != 0 {
		return c.innerConn.QueryContext(ctx, query, args)
	}
	text, params, ok := literals.Extract(query, literals.Postgres)
	if !ok || len(params) == 0 {
		return c.innerConn.QueryContext(ctx, query, []driver.NamedValue{execMode})
	}
	rows, err := c.innerConn.QueryContext(ctx, text, params)
	if err != nil && c.stalePlan(err) {
		return c.innerConn.QueryContext(ctx, text, params)
	}
	return rows, err
}

func (c *paramConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) != 0 {
		return c.innerConn.ExecContext(ctx, query, args)
	}
	text, params, ok := literals.Extract(query, literals.Postgres)
	if !ok || len(params) == 0 {
		return c.innerConn.ExecContext(ctx, query, []driver.NamedValue{execMode})
	}
	res, err := c.innerConn.ExecContext(ctx, text, params)
	if err != nil && c.stalePlan(err) {
		return c.innerConn.ExecContext(ctx, text, params)
	}
	return res, err
}
