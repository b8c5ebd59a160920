package bunstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// pipelineRow is a row of ci_pipelines.
type pipelineRow struct {
	bun.BaseModel `bun:"table:ci_pipelines,alias:pl"`

	ID          int64      `bun:"id,pk,autoincrement"`
	ProjectID   int64      `bun:"project_id"`
	Ref         string     `bun:"ref"`
	Tag         bool       `bun:"tag"`
	SHA         string     `bun:"sha"`
	BeforeSHA   string     `bun:"before_sha"`
	Status      string     `bun:"status"`
	Source      string     `bun:"source"`
	UserID      *int64     `bun:"user_id"`
	YAMLErrors  string     `bun:"yaml_errors"`
	ConfigPath  string     `bun:"config_path"`
	Coverage    *float64   `bun:"coverage"`
	Duration    *int       `bun:"duration"`
	CreatedAt   time.Time  `bun:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at"`
	StartedAt   *time.Time `bun:"started_at"`
	FinishedAt  *time.Time `bun:"finished_at"`
	CommittedAt *time.Time `bun:"committed_at"`
}

func newPipelineRow(p *domain.Pipeline) *pipelineRow {
	return &pipelineRow{
		ID:          p.ID,
		ProjectID:   p.ProjectID,
		Ref:         p.Ref,
		Tag:         p.Tag,
		SHA:         p.SHA,
		BeforeSHA:   p.BeforeSHA,
		Status:      string(p.Status),
		Source:      p.Source,
		UserID:      p.UserID,
		YAMLErrors:  p.YAMLErrors,
		ConfigPath:  p.ConfigPath,
		Coverage:    p.Coverage,
		Duration:    p.Duration,
		CreatedAt:   ts(p.CreatedAt),
		UpdatedAt:   ts(p.UpdatedAt),
		StartedAt:   tsPtr(p.StartedAt),
		FinishedAt:  tsPtr(p.FinishedAt),
		CommittedAt: tsPtr(p.CommittedAt),
	}
}

func (r *pipelineRow) domain() domain.Pipeline {
	return domain.Pipeline{
		ID:          r.ID,
		ProjectID:   r.ProjectID,
		Ref:         r.Ref,
		Tag:         r.Tag,
		SHA:         r.SHA,
		BeforeSHA:   r.BeforeSHA,
		Status:      domain.CIStatus(r.Status),
		Source:      r.Source,
		UserID:      r.UserID,
		YAMLErrors:  r.YAMLErrors,
		ConfigPath:  r.ConfigPath,
		Coverage:    r.Coverage,
		Duration:    r.Duration,
		CreatedAt:   r.CreatedAt.UTC(),
		UpdatedAt:   r.UpdatedAt.UTC(),
		StartedAt:   utcPtr(r.StartedAt),
		FinishedAt:  utcPtr(r.FinishedAt),
		CommittedAt: utcPtr(r.CommittedAt),
	}
}

var pipelineTable = tableOf("Pipeline", (*pipelineRow).domain)

type pipelineStore struct{ s *Store }

// Create inserts p and its jobs in one transaction; a job created pending
// bumps the queue version.
func (st *pipelineStore) Create(ctx context.Context, p *domain.Pipeline, jobs []domain.Job) error {
	p.CreatedAt, p.UpdatedAt = created(p.CreatedAt, p.UpdatedAt)
	row := newPipelineRow(p)
	row.ID = 0
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if _, err := db.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
			return writeErr(err, "Project")
		}
		for i := range jobs {
			jobs[i].PipelineID, jobs[i].ProjectID = row.ID, row.ProjectID
		}
		return insertJobs(ctx, st.s, db, jobs)
	})
	if err != nil {
		return fmt.Errorf("bunstore: create pipeline in project %d: %w", p.ProjectID, err)
	}
	*p = row.domain()
	return nil
}

func (st *pipelineStore) Get(ctx context.Context, projectID, id int64) (*domain.Pipeline, error) {
	p, err := pipelineTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("pl.project_id = ? AND pl.id = ?", projectID, id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get pipeline %d of project %d: %w", id, projectID, err)
	}
	return p, nil
}

func (st *pipelineStore) GetByID(ctx context.Context, id int64) (*domain.Pipeline, error) {
	p, err := pipelineTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("pl.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get pipeline %d: %w", id, err)
	}
	return p, nil
}

// pipelineOrders are the columns List may order by (OrderBy), each with
// the ID as tie-break.
var pipelineOrders = map[string]string{"": "pl.id", "id": "pl.id", "status": "pl.status", "ref": "pl.ref", "user_id": "pl.user_id"}

// List filters as GitLab 9.x's PipelinesFinder: the branches and tags
// scopes keep the latest pipeline of each ref (of f.ProjectID); two
// queries.
func (st *pipelineStore) List(ctx context.Context, f domain.PipelineFilter) ([]domain.Pipeline, int, error) {
	db := st.s.Conn(ctx)
	q := whereSet(db.NewSelect(), "pl.project_id = ?", f.ProjectID)
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			return []domain.Pipeline{}, 0, nil
		}
		q = q.Where("pl.id IN (?)", bun.List(dedupeIDs(f.IDs)))
	}
	switch f.Scope {
	case "running":
		q = q.Where("pl.status = ?", string(domain.CIRunning))
	case "pending":
		q = q.Where("pl.status = ?", string(domain.CIPending))
	case "finished":
		q = q.Where("pl.status IN (?)", bun.List([]string{string(domain.CISuccess), string(domain.CIFailed), string(domain.CICanceled), string(domain.CISkipped)}))
	case "branches", "tags":
		latest := db.NewSelect().TableExpr("ci_pipelines AS l").ColumnExpr("max(l.id)").
			Where("l.project_id = ? AND l.tag = ?", f.ProjectID, f.Scope == "tags").Group("l.ref")
		q = q.Where("pl.id IN (?)", latest)
	}
	q = whereSet(q, "pl.status = ?", string(f.Status))
	q = whereSet(q, "pl.ref = ?", f.Ref)
	q = whereSet(q, "pl.sha = ?", f.SHA)
	if f.YAMLErrors != nil {
		if *f.YAMLErrors {
			q = q.Where("pl.yaml_errors <> ''")
		} else {
			q = q.Where("pl.yaml_errors = ''")
		}
	}
	if f.Username != "" {
		q = q.Where("pl.user_id IN (?)", db.NewSelect().TableExpr("users AS u").Column("u.id").
			Where("lower(u.username) = ?", strings.ToLower(f.Username)))
	}
	if f.Name != "" {
		// GitLab's by_name: the pipeline user's full name, exactly.
		q = q.Where("pl.user_id IN (?)", db.NewSelect().TableExpr("users AS u").Column("u.id").
			Where("u.name = ?", f.Name))
	}
	col, ok := pipelineOrders[f.OrderBy]
	if !ok {
		col = "pl.id"
	}
	cols := []string{col}
	if col != "pl.id" {
		cols = append(cols, "pl.id")
	}
	q = q.OrderExpr(orderBy(f.Ascending, cols...))
	out, n, err := pipelineTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list pipelines of project %d: %w", f.ProjectID, err)
	}
	return out, n, nil
}

// Update locks the row, applies fn and saves every column but ID,
// ProjectID and CreatedAt.
func (st *pipelineStore) Update(ctx context.Context, id int64, fn func(p *domain.Pipeline) error) (*domain.Pipeline, error) {
	save := func(ctx context.Context, db bun.IDB, old, p *domain.Pipeline) (*domain.Pipeline, error) {
		p.ID, p.ProjectID, p.CreatedAt = old.ID, old.ProjectID, old.CreatedAt
		p.UpdatedAt = edited(p.UpdatedAt, old.UpdatedAt)
		return pipelineTable.save(ctx, db, newPipelineRow(p), nil)
	}
	return modify(ctx, st.s, pipelineTable.locked(st.s, "pl.id = ?", id), fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update pipeline %d: %w", id, err)
	})
}

// Lock reads the pipeline under its row lock (Postgres) inside ctx's
// transaction; on SQLite the immediate transaction already serialises
// writers, so the read only checks that it exists.
func (st *pipelineStore) Lock(ctx context.Context, id int64) error {
	if _, err := pipelineTable.locked(st.s, "pl.id = ?", id)(ctx, st.s.Conn(ctx)); err != nil {
		return fmt.Errorf("bunstore: lock pipeline %d: %w", id, err)
	}
	return nil
}

// Delete removes the pipeline; its jobs, their tags, trace chunks and
// artifact records go by ON DELETE CASCADE, after the artifacts were read.
func (st *pipelineStore) Delete(ctx context.Context, projectID, id int64) ([]domain.Artifact, error) {
	var out []domain.Artifact
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		jobs := db.NewSelect().TableExpr("ci_jobs AS j").Column("j.id").Where("j.pipeline_id = ?", id)
		arts, err := artifactTable.list(ctx, db.NewSelect().
			Where("a.job_id IN (?) AND a.project_id = ?", jobs, projectID).OrderExpr("a.id"))
		if err != nil {
			return fmt.Errorf("artifacts: %w", err)
		}
		out = arts
		return pipelineTable.deleteOne(ctx, db, "project_id = ? AND id = ?", projectID, id)
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: delete pipeline %d of project %d: %w", id, projectID, err)
	}
	return out, nil
}

func (st *pipelineStore) Latest(ctx context.Context, projectID int64, sha, ref string) (*domain.Pipeline, error) {
	q := st.s.Conn(ctx).NewSelect().Where("pl.project_id = ? AND pl.sha = ?", projectID, sha)
	q = whereSet(q, "pl.ref = ?", ref)
	p, err := pipelineTable.get(ctx, q.OrderExpr("pl.id DESC").Limit(1))
	if err != nil {
		return nil, fmt.Errorf("bunstore: latest pipeline of %s in project %d: %w", sha, projectID, err)
	}
	return p, nil
}

func (st *pipelineStore) LatestOfSHAs(ctx context.Context, projectID int64, shas []string) (map[string]domain.Pipeline, error) {
	out := map[string]domain.Pipeline{}
	if len(shas) == 0 {
		return out, nil
	}
	db := st.s.Conn(ctx)
	latest := db.NewSelect().TableExpr("ci_pipelines AS l").ColumnExpr("max(l.id)").
		Where("l.project_id = ? AND l.sha IN (?)", projectID, bun.List(dedupeStrings(shas))).Group("l.sha")
	list, err := pipelineTable.list(ctx, db.NewSelect().Where("pl.id IN (?)", latest))
	if err != nil {
		return nil, fmt.Errorf("bunstore: latest pipelines of %d commits in project %d: %w", len(shas), projectID, err)
	}
	for _, p := range list {
		out[p.SHA] = p
	}
	return out, nil
}

var _ ports.PipelineStore = (*pipelineStore)(nil)
