package bunstore

import (
	"context"
	"fmt"
	"sort"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// What `hearth doctor` asks of the database: the schema's state and the
// records that name blob files. Nothing here writes.

var (
	_ ports.SchemaInspector = (*Store)(nil)
	_ ports.BlobReferences  = (*Store)(nil)
)

// SchemaStatus compares the embedded migrations with the rows of the
// migrations table, without creating it when it is missing.
func (s *Store) SchemaStatus(ctx context.Context) (ports.SchemaStatus, error) {
	ms, err := migrations()
	if err != nil {
		return ports.SchemaStatus{}, fmt.Errorf("bunstore: schema status: %w", err)
	}
	known := ms.Sorted()
	st := ports.SchemaStatus{Known: len(known)}
	exists, err := s.tableExists(ctx, migrationsTable)
	if err != nil {
		return ports.SchemaStatus{}, fmt.Errorf("bunstore: schema status: %w", err)
	}
	applied := map[string]bool{}
	if exists {
		var names []string
		if err := s.db.NewSelect().Column("name").TableExpr(migrationsTable).Scan(ctx, &names); err != nil {
			return ports.SchemaStatus{}, fmt.Errorf("bunstore: schema status: %w", err)
		}
		for _, n := range names {
			applied[n] = true
		}
	}
	for _, m := range known {
		if !applied[m.Name] {
			st.Pending = append(st.Pending, m.Name)
		}
		delete(applied, m.Name)
	}
	for n := range applied {
		st.Unknown = append(st.Unknown, n)
	}
	sort.Strings(st.Unknown)
	return st, nil
}

// tableExists looks the table up in the catalogue (Postgres: in the search
// path, as unqualified queries do).
func (s *Store) tableExists(ctx context.Context, name string) (bool, error) {
	var n int
	var err error
	if s.db.Dialect().Name() == dialect.PG {
		err = s.db.NewRaw("SELECT count(*) FROM (SELECT to_regclass(?) AS t) r WHERE r.t IS NOT NULL", name).Scan(ctx, &n)
	} else {
		err = s.db.NewRaw("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(ctx, &n)
	}
	if err != nil {
		return false, fmt.Errorf("look up table %s: %w", name, err)
	}
	return n > 0, nil
}

// ArtifactsAfter pages through ci_artifacts by ID.
func (s *Store) ArtifactsAfter(ctx context.Context, afterID int64, limit int) ([]domain.Artifact, error) {
	out, err := artifactTable.list(ctx, s.Conn(ctx).NewSelect().Where("a.id > ?", afterID).OrderExpr("a.id").Limit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: artifacts after %d: %w", afterID, err)
	}
	return out, nil
}

// ArchivedTracesAfter pages through finished jobs whose trace left the
// database: archiving deletes the chunks only once the blob is written,
// and keeps trace_size.
func (s *Store) ArchivedTracesAfter(ctx context.Context, afterID int64, limit int) ([]domain.Job, error) {
	finished := []string{string(domain.CISuccess), string(domain.CIFailed), string(domain.CICanceled)}
	out, err := jobTable.list(ctx, s.Conn(ctx).NewSelect().
		Where("j.id > ?", afterID).
		Where("j.status IN (?)", bun.In(finished)).
		Where("j.trace_size > 0 AND j.erased_at IS NULL").
		Where("NOT EXISTS (SELECT 1 FROM ci_trace_chunks tc WHERE tc.job_id = j.id)").
		OrderExpr("j.id").Limit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: archived traces after %d: %w", afterID, err)
	}
	return out, nil
}
