package pgtest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Build fills the empty database at dsn that becomes a template. It must
// close every connection it opened before it returns.
type Build func(ctx context.Context, dsn string) error

// profile is what a template holds, so that a database copied from it can
// be brought back to the same state without copying it again. It is
// stored as the template's comment.
type profile struct {
	// Empty lists the template's empty tables, qualified, in an order in
	// which they can be emptied: every table before the tables it
	// references.
	Empty []string `json:"empty"`
	// Kept maps the template's non-empty tables (hearth_migrations) to a
	// digest of their rows: a copy whose rows differ is not reused.
	Kept map[string]string `json:"kept"`
	// Sequences maps every sequence to its value in the template.
	Sequences map[string]sequence `json:"sequences"`
}

type sequence struct {
	Last   int64 `json:"last"`
	Called bool  `json:"called"`
}

// templates remembers, per process, the templates found or built, so that
// parallel tests of one process build a template once and read it once.
var templates = &templateSet{ready: map[string]*templateOnce{}}

type templateSet struct {
	mu    sync.Mutex
	ready map[string]*templateOnce
}

type templateOnce struct {
	once sync.Once
	p    profile
	err  error
}

func (s *templateSet) ensure(ctx context.Context, db *sql.DB, base, name string, build Build) (profile, error) {
	s.mu.Lock()
	o, ok := s.ready[name]
	if !ok {
		o = &templateOnce{}
		s.ready[name] = o
	}
	s.mu.Unlock()
	o.once.Do(func() { o.p, o.err = ensureTemplate(ctx, db, base, name, build) })
	return o.p, o.err
}

// ensureTemplate builds template name unless it exists, and returns its
// profile. It builds under another name and renames the result last, so a
// database named name is always complete, even when a builder died half
// way.
func ensureTemplate(ctx context.Context, db *sql.DB, base, name string, build Build) (_ profile, err error) {
	if p, ok, err := readProfile(ctx, db, name); err != nil || ok {
		return p, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return profile{}, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtext('hearth.pgtest'), hashtext($1))", name); err != nil {
		return profile{}, fmt.Errorf("lock: %w", err)
	}
	defer func() {
		if _, uerr := conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(hashtext('hearth.pgtest'), hashtext($1))", name); uerr != nil {
			err = errors.Join(err, fmt.Errorf("unlock: %w", uerr))
		}
	}()
	// Another process may have built it while this one waited.
	if p, ok, err := readProfile(ctx, db, name); err != nil || ok {
		return p, err
	}
	building := name + "_building"
	if err := dropDatabase(ctx, db, building); err != nil {
		return profile{}, fmt.Errorf("drop what a builder left: %w", err)
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+ident(building)+" TEMPLATE template0"); err != nil {
		return profile{}, err
	}
	dsn, err := withParam(base, "dbname", building)
	if err != nil {
		return profile{}, err
	}
	if err := build(ctx, dsn); err != nil {
		return profile{}, fmt.Errorf("build: %w", err)
	}
	p, err := profileOf(ctx, dsn)
	if err != nil {
		return profile{}, fmt.Errorf("profile: %w", err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return profile{}, err
	}
	// ALLOW_CONNECTIONS false keeps anyone from connecting later, which
	// would make every copy fail while they are connected. Postgres waits
	// a few seconds for build's closed connections to go before the
	// rename.
	for _, q := range []string{
		"COMMENT ON DATABASE " + ident(building) + " IS " + literal(string(raw)),
		"ALTER DATABASE " + ident(building) + " WITH IS_TEMPLATE true ALLOW_CONNECTIONS false",
		"ALTER DATABASE " + ident(building) + " RENAME TO " + ident(name),
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return profile{}, err
		}
	}
	return p, nil
}

// dropDatabase drops database name if it exists, template or not.
func dropDatabase(ctx context.Context, db *sql.DB, name string) error {
	var template bool
	err := db.QueryRowContext(ctx, "SELECT datistemplate FROM pg_database WHERE datname = $1", name).Scan(&template)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if template {
		if _, err := db.ExecContext(ctx, "ALTER DATABASE "+ident(name)+" IS_TEMPLATE false"); err != nil {
			return err
		}
	}
	_, err = db.ExecContext(ctx, "DROP DATABASE "+ident(name)+" WITH (FORCE)")
	return err
}

// readProfile reads the profile of template name, if it exists.
func readProfile(ctx context.Context, db *sql.DB, name string) (profile, bool, error) {
	var raw sql.NullString
	err := db.QueryRowContext(ctx, "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", name).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return profile{}, false, nil
	}
	if err != nil {
		return profile{}, false, fmt.Errorf("look up: %w", err)
	}
	var p profile
	if err := json.Unmarshal([]byte(raw.String), &p); err != nil {
		return profile{}, false, fmt.Errorf("profile of %s: %w", name, err)
	}
	return p, true, nil
}

// userRelations selects the qualified name of the relations of kinds in
// the database's own schemas.
const userRelations = `
SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = ANY ($1) AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
ORDER BY 1`

// profileOf reads the profile of the database at dsn.
func profileOf(ctx context.Context, dsn string) (profile, error) {
	db, err := connect(dsn)
	if err != nil {
		return profile{}, err
	}
	defer db.Close()
	p := profile{Kept: map[string]string{}, Sequences: map[string]sequence{}}
	tables, err := column(ctx, db, userRelations, "{r,p}")
	if err != nil {
		return profile{}, err
	}
	var empty []string
	for _, table := range tables {
		var rows bool
		if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+table+")").Scan(&rows); err != nil {
			return profile{}, err
		}
		if !rows {
			empty = append(empty, table)
			continue
		}
		if p.Kept[table], err = digestRows(ctx, db, table); err != nil {
			return profile{}, err
		}
	}
	if p.Empty, err = childrenFirst(ctx, db, empty); err != nil {
		return profile{}, err
	}
	seqs, err := column(ctx, db, userRelations, "{S}")
	if err != nil {
		return profile{}, err
	}
	for _, seq := range seqs {
		var s sequence
		if err := db.QueryRowContext(ctx, "SELECT last_value, is_called FROM "+seq).Scan(&s.Last, &s.Called); err != nil {
			return profile{}, err
		}
		p.Sequences[seq] = s
	}
	return p, nil
}

// digestRows is a digest of every row of table.
func digestRows(ctx context.Context, db *sql.DB, table string) (string, error) {
	var d string
	err := db.QueryRowContext(ctx, "SELECT md5(coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '')) FROM "+table+" AS r").Scan(&d)
	return d, err
}

// childrenFirst orders tables so that each comes before the tables its
// foreign keys reference (a table referencing itself is no obstacle).
func childrenFirst(ctx context.Context, db *sql.DB, tables []string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `
SELECT quote_ident(cn.nspname) || '.' || quote_ident(c.relname), quote_ident(fn.nspname) || '.' || quote_ident(f.relname)
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
JOIN pg_class f ON f.oid = k.confrelid JOIN pg_namespace fn ON fn.oid = f.relnamespace
WHERE k.contype = 'f' AND k.conrelid <> k.confrelid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	referrers := map[string]map[string]bool{} // table -> tables referencing it
	for rows.Next() {
		var child, parent string
		if err := rows.Scan(&child, &parent); err != nil {
			return nil, err
		}
		if referrers[parent] == nil {
			referrers[parent] = map[string]bool{}
		}
		referrers[parent][child] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var order []string
	done := map[string]bool{}
	for len(order) < len(tables) {
		progress := false
		for _, t := range tables {
			if done[t] {
				continue
			}
			ready := true
			for child := range referrers[t] {
				if !done[child] && child != t && slices.Contains(tables, child) {
					ready = false
				}
			}
			if ready {
				order, done[t], progress = append(order, t), true, true
			}
		}
		if !progress {
			return nil, fmt.Errorf("foreign keys form a cycle among %v", tables)
		}
	}
	return order, nil
}

// column runs a query of one text column.
func column(ctx context.Context, db *sql.DB, query string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
