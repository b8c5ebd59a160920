package bunstore

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/ports"
)

// derivedTables are kept by triggers from other tables (issue_counts from
// issues): they are written last, replacing what the triggers made of the
// imported rows, so they hold exactly what the backup holds.
var derivedTables = []string{"issue_counts"}

// insertBatch is how many rows one INSERT carries.
const insertBatch = 200

// Empty reports whether no data table holds a row.
func (b *databaseBackup) Empty(ctx context.Context) (bool, error) {
	pg := b.s.db.Dialect().Name() == dialect.PG
	tables, err := listTables(ctx, b.s.db, pg)
	if err != nil {
		return false, fmt.Errorf("bunstore: %w", err)
	}
	for _, t := range tables {
		var one int
		err := queryRow(ctx, b.s.db, "SELECT 1 FROM "+quoteIdent(t)+" LIMIT 1", nil, &one)
		if err == nil {
			return false, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("bunstore: read %s: %w", t, err)
		}
	}
	return true, nil
}

// Import writes a backup into this database (see ports.DatabaseBackup).
func (b *databaseBackup) Import(ctx context.Context, in ports.DatabaseImport) error {
	if err := b.s.migrateTo(ctx, in.Schema); err != nil {
		return fmt.Errorf("bunstore: restore: %w", err)
	}
	if err := b.s.importRows(ctx, in); err != nil {
		return fmt.Errorf("bunstore: restore: %w", err)
	}
	// Then the migrations the backup predates, as on any start-up.
	if err := b.s.migrate(ctx); err != nil {
		return fmt.Errorf("bunstore: restore: migrate forward: %w", err)
	}
	return nil
}

// migrateTo applies the migrations named in schema, all known to this
// build; the database must not be ahead of them.
func (s *Store) migrateTo(ctx context.Context, schema []string) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	known := map[string]migrate.Migration{}
	for _, m := range all.Sorted() {
		known[m.Name] = m
	}
	part := migrate.NewMigrations()
	for _, name := range schema {
		m, ok := known[name]
		if !ok {
			return fmt.Errorf("the backup's schema has migration %s, unknown to this build (restore with the Hearth that made it or a newer one): %w", name, core.ErrInvalid)
		}
		part.Add(m)
	}
	applied, err := appliedMigrations(ctx, s.db)
	if err != nil {
		return err
	}
	for _, name := range applied {
		if !slices.Contains(schema, name) {
			return fmt.Errorf("the target database has migration %s, which the backup predates; restore into a new database: %w", name, core.ErrConflict)
		}
	}
	return s.migrateWith(ctx, part)
}

func (s *Store) importRows(ctx context.Context, in ports.DatabaseImport) error {
	pg := s.db.Dialect().Name() == dialect.PG
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var fks []foreignKey
	if pg {
		// Rows go in table by table, in no order foreign keys would
		// accept (a project forked from a later one, a group moved under
		// a newer group): drop the keys and add them back at the end,
		// which checks every row.
		if fks, err = dropForeignKeys(ctx, tx); err != nil {
			return err
		}
	} else if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
		return err
	}
	tables, err := listTables(ctx, tx, pg)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+quoteIdent(t)); err != nil {
			return fmt.Errorf("empty %s: %w", t, err)
		}
	}
	order := slices.Clone(in.Tables)
	slices.SortStableFunc(order, func(a, b string) int {
		da, db := slices.Contains(derivedTables, a), slices.Contains(derivedTables, b)
		switch {
		case da && !db:
			return 1
		case db && !da:
			return -1
		}
		return 0
	})
	for _, t := range order {
		if !slices.Contains(tables, t) {
			return fmt.Errorf("the backup has table %s, which the schema lacks: %w", t, core.ErrInvalid)
		}
		if slices.Contains(derivedTables, t) {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+quoteIdent(t)); err != nil {
				return fmt.Errorf("empty %s: %w", t, err)
			}
		}
		if err := importTable(ctx, tx, pg, t, in.Open); err != nil {
			return fmt.Errorf("table %s: %w", t, err)
		}
	}
	if err := setSequences(ctx, tx, pg, tables, in.Sequences); err != nil {
		return err
	}
	for _, fk := range fks {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+fk.table+" ADD CONSTRAINT "+fk.name+" "+fk.def); err != nil {
			return fmt.Errorf("restore foreign key %s on %s: %w", fk.name, fk.table, err)
		}
	}
	return tx.Commit()
}

func importTable(ctx context.Context, tx bun.Tx, pg bool, table string, open func(string) (io.ReadCloser, error)) error {
	rc, err := open(table)
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := json.NewDecoder(bufio.NewReader(rc))
	dec.UseNumber()
	var h tableHeader
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("header: %v: %w", err, core.ErrInvalid)
	}
	if h.Table != table {
		return fmt.Errorf("header names table %q: %w", h.Table, core.ErrInvalid)
	}
	target, err := tableColumns(ctx, tx, pg, table)
	if err != nil {
		return err
	}
	names := make([]string, len(h.Columns))
	for i, c := range h.Columns {
		if !slices.ContainsFunc(target, func(t columnHeader) bool { return t.Name == c.Name }) {
			return fmt.Errorf("column %s is not in the schema: %w", c.Name, core.ErrInvalid)
		}
		names[i] = quoteIdent(c.Name)
	}
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ") + ")"
	head := "INSERT INTO " + quoteIdent(table) + " (" + strings.Join(names, ", ") + ") VALUES "
	var args []any
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		q := head + strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", ")
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
		args, n = args[:0], 0
		return nil
	}
	for line := 2; ; line++ {
		var row []any
		if err := dec.Decode(&row); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("row %d: %v: %w", line, err, core.ErrInvalid)
		}
		if len(row) != len(h.Columns) {
			return fmt.Errorf("row %d has %d values for %d columns: %w", line, len(row), len(h.Columns), core.ErrInvalid)
		}
		for i, c := range h.Columns {
			v, err := importValue(c.Type, row[i])
			if err != nil {
				return fmt.Errorf("row %d column %s: %v: %w", line, c.Name, err, core.ErrInvalid)
			}
			args = append(args, v)
		}
		if n++; n == insertBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// importValue turns a neutral JSON value back into the Go value bun
// writes in the target dialect's spelling.
func importValue(typ string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "int":
		if n, ok := v.(json.Number); ok {
			return n.Int64()
		}
	case "float":
		if n, ok := v.(json.Number); ok {
			return n.Float64()
		}
	case "bool":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "time":
		if s, ok := v.(string); ok {
			t, err := time.Parse(time.RFC3339Nano, s)
			return t.UTC(), err
		}
	case "bytes":
		if s, ok := v.(string); ok {
			return base64.StdEncoding.DecodeString(s)
		}
	default:
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unexpected %T for a %s column", v, typ)
}

// setSequences makes every generated id continue after the larger of the
// backup's last id and the largest id now in the table.
func setSequences(ctx context.Context, tx bun.Tx, pg bool, tables []string, seqs map[string]int64) error {
	if pg {
		serials, err := serialSequences(ctx, tx)
		if err != nil {
			return fmt.Errorf("sequences: %w", err)
		}
		for t, seq := range serials {
			var maxID int64
			if err := queryRow(ctx, tx, "SELECT COALESCE(MAX(id), 0) FROM "+quoteIdent(t), nil, &maxID); err != nil {
				return fmt.Errorf("sequence of %s: %w", t, err)
			}
			if v := max(maxID, seqs[t]); v > 0 {
				if _, err := tx.ExecContext(ctx, "SELECT setval(?, ?)", seq, v); err != nil {
					return fmt.Errorf("sequence of %s: %w", t, err)
				}
			}
		}
		return nil
	}
	for t, v := range seqs {
		if !slices.Contains(tables, t) {
			continue
		}
		var cur int64
		err := queryRow(ctx, tx, "SELECT seq FROM sqlite_sequence WHERE name = ?", []any{t}, &cur)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", t, v)
		case err == nil && cur < v:
			_, err = tx.ExecContext(ctx, "UPDATE sqlite_sequence SET seq = ? WHERE name = ?", v, t)
		}
		if err != nil {
			return fmt.Errorf("sequence of %s: %w", t, err)
		}
	}
	return nil
}

type foreignKey struct{ table, name, def string }

// dropForeignKeys drops every foreign key of the current schema and
// returns them, to be added back.
func dropForeignKeys(ctx context.Context, tx bun.Tx) ([]foreignKey, error) {
	rows, err := tx.QueryContext(ctx, `SELECT quote_ident(cl.relname), quote_ident(c.conname), pg_get_constraintdef(c.oid)
FROM pg_constraint c JOIN pg_class cl ON cl.oid = c.conrelid
WHERE c.contype = 'f' AND c.connamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("foreign keys: %w", err)
	}
	var fks []foreignKey
	for rows.Next() {
		var fk foreignKey
		if err := rows.Scan(&fk.table, &fk.name, &fk.def); err != nil {
			rows.Close()
			return nil, err
		}
		fks = append(fks, fk)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, fk := range fks {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+fk.table+" DROP CONSTRAINT "+fk.name); err != nil {
			return nil, fmt.Errorf("drop foreign key %s: %w", fk.name, err)
		}
	}
	return fks, nil
}
