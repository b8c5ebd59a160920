// Package postgres opens Hearth's database on Postgres: pgx through
// database/sql under bun's pgdialect. Postgres is what several Hearth nodes
// share; the stores use row locks here (and only here).
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
)

// Open connects to dsn (a URL or key=value string) and checks that the
// server answers.
//
// bun formats every query itself, with arguments inlined; the connector
// (stmtcache.go) turns the literals back into parameters and runs those
// statements through pgx's per-connection statement cache, the others in
// exec mode. A dsn that chooses default_query_exec_mode gets that mode for
// every statement instead, unrewritten.
func Open(ctx context.Context, dsn string) (*bun.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	var sqldb *sql.DB
	if strings.Contains(dsn, "default_query_exec_mode") {
		sqldb = stdlib.OpenDB(*cfg)
	} else {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
		sqldb = sql.OpenDB(connector{stdlib.GetConnector(*cfg)})
	}
	// Bounded so that several nodes fit in the server's max_connections
	// (100 by default), with idle connections kept for bursts.
	sqldb.SetMaxOpenConns(25)
	sqldb.SetMaxIdleConns(25)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("postgres: connect to %s:%d/%s: %w", cfg.Host, cfg.Port, cfg.Database, err), db.Close())
	}
	return db, nil
}

// NewStore returns the stores over a database from Open, with row locks for
// read-modify-write.
func NewStore(db *bun.DB) *bunstore.Store { return bunstore.New(db, bunstore.WithRowLocks()) }
