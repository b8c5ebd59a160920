package bunstore

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The neutral table format (one file per table, JSON lines): the first line
// is a header {"table": name, "columns": [{"name", "type"}...]}, every
// other line one row as a JSON array in column order. Types are logical,
// not the dialect's: "int", "float", "bool", "text", "bytes" (base64) and
// "time" (RFC 3339 with nanoseconds, UTC); NULL is null.
type tableHeader struct {
	Table   string         `json:"table"`
	Columns []columnHeader `json:"columns"`
}

type columnHeader struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// bookkeeping tables are not data and are neither exported, emptied nor
// imported: the migrator's own (the schema version travels in the
// manifest instead), and ci_queue, SQLite's stand-in for Postgres's
// ci_queue_version sequence (a counter runners poll for changes; any value
// will do on the restored side).
var bookkeeping = []string{"hearth_migrations", "hearth_migration_locks", "ci_queue"}

// Backup returns the port that exports and imports the whole database.
func (s *Store) Backup() ports.DatabaseBackup { return &databaseBackup{s} }

type databaseBackup struct{ s *Store }

var _ ports.DatabaseBackup = (*databaseBackup)(nil)

// querier is what both *bun.DB and bun.Tx offer.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	NewRaw(query string, args ...any) *bun.RawQuery
}

// Export reads every table in one read-only transaction: on SQLite (WAL) a
// deferred read transaction is a snapshot from its first read and blocks no
// writer; on Postgres REPEATABLE READ gives the same.
func (b *databaseBackup) Export(ctx context.Context, fn func(ports.DatabaseSnapshot) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	pg := b.s.db.Dialect().Name() == dialect.PG
	if pg {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := b.s.db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("bunstore: backup: begin snapshot: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	snap := &snapshot{q: tx, pg: pg}
	// The first read fixes the snapshot: the schema, then the tables.
	if snap.schema, err = appliedMigrations(ctx, tx); err != nil {
		return fmt.Errorf("bunstore: backup: %w", err)
	}
	if len(snap.schema) == 0 {
		// A database no Hearth has started on: nothing to back up, and no
		// table to read (say so rather than fail on the first query).
		return core.BadRequest("the database has no Hearth schema yet (start `hearth serve` or run `hearth migrate` first): nothing to back up")
	}
	if snap.tables, err = listTables(ctx, tx, pg); err != nil {
		return fmt.Errorf("bunstore: backup: %w", err)
	}
	return fn(snap)
}

type snapshot struct {
	q      querier
	pg     bool
	schema []string
	tables []string
}

func (s *snapshot) Schema() []string { return s.schema }
func (s *snapshot) Tables() []string { return s.tables }

func (s *snapshot) WriteTable(ctx context.Context, table string, w io.Writer) (int64, error) {
	if !slices.Contains(s.tables, table) {
		return 0, fmt.Errorf("bunstore: backup: unknown table %q", table)
	}
	cols, err := tableColumns(ctx, s.q, s.pg, table)
	if err != nil {
		return 0, fmt.Errorf("bunstore: backup %s: %w", table, err)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(tableHeader{Table: table, Columns: cols}); err != nil {
		return 0, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quoteIdent(c.Name)
	}
	// Ordered by the first column (the primary key in every table but
	// link tables) so that two backups of the same data are alike.
	rows, err := s.q.QueryContext(ctx, "SELECT "+strings.Join(names, ", ")+" FROM "+quoteIdent(table)+" ORDER BY 1")
	if err != nil {
		return 0, fmt.Errorf("bunstore: backup %s: %w", table, err)
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	out := make([]any, len(cols))
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, fmt.Errorf("bunstore: backup %s: %w", table, err)
		}
		for i, c := range cols {
			v, err := exportValue(c.Type, vals[i])
			if err != nil {
				return n, fmt.Errorf("bunstore: backup %s.%s: %w", table, c.Name, err)
			}
			out[i] = v
		}
		if err := enc.Encode(out); err != nil {
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("bunstore: backup %s: %w", table, err)
	}
	return n, bw.Flush()
}

// Sequences reads the last id of every generated id: SQLite's
// sqlite_sequence, Postgres's serial sequences (which are not
// transactional: a value may be ahead of the snapshot, which only skips
// ids).
func (s *snapshot) Sequences(ctx context.Context) (map[string]int64, error) {
	seqs := map[string]int64{}
	if !s.pg {
		rows, err := s.q.QueryContext(ctx, "SELECT name, seq FROM sqlite_sequence")
		if err != nil && isMissingTable(err) {
			return seqs, nil // no AUTOINCREMENT table yet
		}
		if err != nil {
			return nil, fmt.Errorf("bunstore: backup sequences: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var seq int64
			if err := rows.Scan(&name, &seq); err != nil {
				return nil, fmt.Errorf("bunstore: backup sequences: %w", err)
			}
			if slices.Contains(s.tables, name) {
				seqs[name] = seq
			}
		}
		return seqs, rows.Err()
	}
	serials, err := serialSequences(ctx, s.q)
	if err != nil {
		return nil, fmt.Errorf("bunstore: backup sequences: %w", err)
	}
	for t, seq := range serials {
		if !slices.Contains(s.tables, t) {
			continue
		}
		var last int64
		var called bool
		if err := queryRow(ctx, s.q, "SELECT last_value, is_called FROM "+seq, nil, &last, &called); err != nil {
			return nil, fmt.Errorf("bunstore: backup sequence %s: %w", seq, err)
		}
		if called {
			seqs[t] = last
		}
	}
	return seqs, nil
}

// Repositories are the projects' repositories.
func (s *snapshot) Repositories(ctx context.Context) ([]string, error) {
	ids, err := s.int64s(ctx, "SELECT id FROM projects ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("bunstore: backup repositories: %w", err)
	}
	repos := make([]string, len(ids))
	for i, id := range ids {
		repos[i] = domain.RepoPath(id)
	}
	return repos, nil
}

// BlobKeys are the artifacts' keys and every job's archived trace.
func (s *snapshot) BlobKeys(ctx context.Context) ([]string, error) {
	var keys []string
	rows, err := s.q.QueryContext(ctx, "SELECT blob_key FROM ci_artifacts ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("bunstore: backup blob keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("bunstore: backup blob keys: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("bunstore: backup blob keys: %w", err)
	}
	jobs, err := s.q.QueryContext(ctx, "SELECT project_id, id FROM ci_jobs ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("bunstore: backup blob keys: %w", err)
	}
	defer jobs.Close()
	for jobs.Next() {
		var project, id int64
		if err := jobs.Scan(&project, &id); err != nil {
			return nil, fmt.Errorf("bunstore: backup blob keys: %w", err)
		}
		keys = append(keys, domain.TraceKey(project, id))
	}
	return keys, jobs.Err()
}

func (s *snapshot) int64s(ctx context.Context, query string) ([]int64, error) {
	rows, err := s.q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// appliedMigrations names the applied migrations, oldest first (none when
// the bookkeeping table does not exist yet).
func appliedMigrations(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM hearth_migrations ORDER BY name")
	if err != nil {
		if isMissingTable(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("applied migrations: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

func isMissingTable(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "no such table") || strings.Contains(msg, "SQLSTATE 42P01") || strings.Contains(msg, "does not exist")
}

// listTables names the data tables of the current schema, sorted.
func listTables(ctx context.Context, q querier, pg bool) ([]string, error) {
	query := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if pg {
		query = "SELECT relname FROM pg_class WHERE relkind IN ('r', 'p') AND relnamespace = current_schema()::regnamespace"
	}
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		if !slices.Contains(bookkeeping, n) {
			tables = append(tables, n)
		}
	}
	slices.Sort(tables)
	return tables, rows.Err()
}

// tableColumns lists a table's columns in order with their logical types.
func tableColumns(ctx context.Context, q querier, pg bool, table string) ([]columnHeader, error) {
	var rows *sql.Rows
	var err error
	if pg {
		rows, err = q.QueryContext(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
WHERE a.attrelid = quote_ident(?)::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, table)
	} else {
		rows, err = q.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?) ORDER BY cid", table)
	}
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	defer rows.Close()
	var cols []columnHeader
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		cols = append(cols, columnHeader{Name: name, Type: logicalType(typ)})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("table %q has no columns", table)
	}
	return cols, nil
}

// logicalType maps a declared column type of either dialect to the neutral
// one.
func logicalType(declared string) string {
	t := strings.ToLower(declared)
	switch {
	case strings.Contains(t, "bool"):
		return "bool"
	case strings.Contains(t, "int") || t == "serial" || t == "bigserial":
		return "int"
	case strings.Contains(t, "timestamp") || strings.Contains(t, "date") || strings.Contains(t, "time"):
		return "time"
	case strings.Contains(t, "double") || strings.Contains(t, "real") || strings.Contains(t, "float") || strings.Contains(t, "numeric"):
		return "float"
	case strings.Contains(t, "blob") || strings.Contains(t, "bytea"):
		return "bytes"
	}
	return "text"
}

// timeLayouts are the spellings a driver may return a timestamp in when it
// does not parse it itself.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"}

// exportValue normalises a scanned value to its neutral JSON form.
func exportValue(typ string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if b, ok := v.([]byte); ok && typ != "bytes" {
		v = string(b)
	}
	switch typ {
	case "int":
		switch x := v.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case int:
			return int64(x), nil
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		case string:
			return strconv.ParseInt(x, 10, 64)
		}
	case "bool":
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		case string:
			return strconv.ParseBool(x)
		}
	case "float":
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case string:
			return strconv.ParseFloat(x, 64)
		}
	case "time":
		switch x := v.(type) {
		case time.Time:
			return x.UTC().Format(time.RFC3339Nano), nil
		case string:
			for _, l := range timeLayouts {
				if t, err := time.Parse(l, x); err == nil {
					return t.UTC().Format(time.RFC3339Nano), nil
				}
			}
		}
	case "bytes":
		switch x := v.(type) {
		case []byte:
			return base64.StdEncoding.EncodeToString(x), nil
		case string:
			return base64.StdEncoding.EncodeToString([]byte(x)), nil
		}
	default:
		switch x := v.(type) {
		case string:
			return x, nil
		case int64, float64, bool:
			return fmt.Sprint(x), nil
		}
	}
	return nil, fmt.Errorf("unexpected %T for a %s column", v, typ)
}

// serialSequences maps every table of the current schema with a
// generated id column to the (qualified, quoted) name of its sequence, on
// Postgres. The catalog, not information_schema: it answers in
// microseconds rather than tens of milliseconds a query.
func serialSequences(ctx context.Context, q querier) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.relname, pg_get_serial_sequence(quote_ident(c.relname), 'id')
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'id' AND NOT a.attisdropped
WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	seqs := map[string]string{}
	for rows.Next() {
		var table string
		var seq sql.NullString
		if err := rows.Scan(&table, &seq); err != nil {
			return nil, err
		}
		if seq.Valid {
			seqs[table] = seq.String
		}
	}
	return seqs, rows.Err()
}

func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// queryRow scans the one row query returns into dest (sql.ErrNoRows when
// none).
func queryRow(ctx context.Context, q querier, query string, args []any, dest ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}
