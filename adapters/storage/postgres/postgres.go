// Package postgres opens Hearth's database on Postgres: pgx through
// database/sql under bun's pgdialect. Postgres is what several Hearth nodes
// share; the stores use row locks here (and only here).
package postgres

import (
	"context"
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
// bun formats every query itself, with arguments inlined, so pgx's default
// of preparing and caching each statement would only add a round trip and
// fill the cache with one-off texts: Open sets default_query_exec_mode=exec
// unless dsn chooses a mode.
func Open(ctx context.Context, dsn string) (*bun.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	if !strings.Contains(dsn, "default_query_exec_mode") {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	sqldb := stdlib.OpenDB(*cfg)
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
