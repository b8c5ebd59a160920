package bunstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// migrationsTable records the applied migrations.
const migrationsTable = "hearth_migrations"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ddl is the template data every migration is rendered with: the spellings
// that differ between dialects.
type ddl struct {
	Postgres bool
	// ID is the definition of an auto-incrementing 64-bit primary key.
	ID string
	// Time is a timestamp column type; values are always UTC.
	Time string
}

func ddlFor(name dialect.Name) (ddl, error) {
	switch name {
	case dialect.PG:
		return ddl{Postgres: true, ID: "BIGSERIAL PRIMARY KEY", Time: "TIMESTAMPTZ"}, nil
	case dialect.SQLite:
		return ddl{ID: "INTEGER PRIMARY KEY AUTOINCREMENT", Time: "TIMESTAMP"}, nil
	}
	return ddl{}, fmt.Errorf("bunstore: unsupported dialect %s", name)
}

// migrations collects the embedded migration files.
func migrations() (*migrate.Migrations, error) {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return nil, err
	}
	return ms, nil
}

// Migrate applies every migration not applied yet. It is idempotent. On
// Postgres it first takes an advisory lock for the current schema, so that
// nodes starting together migrate one after the other.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.migrate(ctx); err != nil {
		return fmt.Errorf("bunstore: migrate: %w", err)
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return s.migrateWith(ctx, ms)
}

// migrateWith applies the migrations of ms not applied yet (tests apply a
// prefix of the sequence to check what a later migration does to old data).
func (s *Store) migrateWith(ctx context.Context, ms *migrate.Migrations) (err error) {
	data, err := ddlFor(s.db.Dialect().Name())
	if err != nil {
		return err
	}
	if data.Postgres {
		unlock, err := lockMigrations(ctx, s.db)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, unlock()) }()
	}
	m := migrate.NewMigrator(s.db, ms,
		migrate.WithTableName(migrationsTable),
		migrate.WithLocksTableName("hearth_migration_locks"),
		migrate.WithMarkAppliedOnSuccess(true),
		migrate.WithUpsert(true),
		migrate.WithTemplateData(data),
	)
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return err
	}
	return nil
}

// lockMigrations takes a transaction-scoped advisory lock on a dedicated
// connection and returns its release. Being transaction-scoped, the lock also
// goes away if the connection breaks, so a crashed migrator never leaves a
// pooled connection holding it. The key hashes the current schema: each
// schema (a deployment, or a test) migrates independently.
func lockMigrations(ctx context.Context, db *bun.DB) (func() error, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext('hearth.migrate.' || coalesce(current_schema(), '')))"); err != nil {
		_ = tx.Rollback()
		return nil, fmt.Errorf("lock: %w", err)
	}
	return func() error {
		if err := tx.Rollback(); err != nil {
			return fmt.Errorf("unlock: %w", err)
		}
		return nil
	}, nil
}
