package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// runnerRow is a row of ci_runners; tags are a JSON array. The projects a
// runner serves are rows of ci_runner_projects.
type runnerRow struct {
	bun.BaseModel `bun:"table:ci_runners,alias:r"`

	ID             int64      `bun:"id,pk,autoincrement"`
	TokenDigest    string     `bun:"token_digest"`
	Description    string     `bun:"description"`
	Active         bool       `bun:"active"`
	Locked         bool       `bun:"locked"`
	RunUntagged    bool       `bun:"run_untagged"`
	Tags           string     `bun:"tags"`
	IsShared       bool       `bun:"is_shared"`
	AccessLevel    string     `bun:"access_level"`
	MaximumTimeout int        `bun:"maximum_timeout"`
	Name           string     `bun:"name"`
	Version        string     `bun:"version"`
	Revision       string     `bun:"revision"`
	Platform       string     `bun:"platform"`
	Architecture   string     `bun:"architecture"`
	IPAddress      string     `bun:"ip_address"`
	ContactedAt    *time.Time `bun:"contacted_at"`
	CreatedAt      time.Time  `bun:"created_at"`
}

type runnerProjectRow struct {
	bun.BaseModel `bun:"table:ci_runner_projects,alias:rp"`

	RunnerID  int64     `bun:"runner_id,pk"`
	ProjectID int64     `bun:"project_id,pk"`
	CreatedAt time.Time `bun:"created_at"`
}

type registrationTokenRow struct {
	bun.BaseModel `bun:"table:ci_registration_tokens,alias:rt"`

	ProjectID int64  `bun:"project_id,pk"`
	Digest    string `bun:"digest"`
}

func newRunnerRow(r *domain.Runner) *runnerRow {
	level := r.AccessLevel
	if level == "" {
		level = domain.RunnerNotProtected
	}
	return &runnerRow{
		ID:             r.ID,
		TokenDigest:    r.TokenDigest,
		Description:    r.Description,
		Active:         r.Active,
		Locked:         r.Locked,
		RunUntagged:    r.RunUntagged,
		Tags:           jsonStrings(r.Tags),
		IsShared:       r.IsShared,
		AccessLevel:    level,
		MaximumTimeout: r.MaximumTimeout,
		Name:           r.Name,
		Version:        r.Version,
		Revision:       r.Revision,
		Platform:       r.Platform,
		Architecture:   r.Architecture,
		IPAddress:      r.IPAddress,
		ContactedAt:    tsPtr(r.ContactedAt),
		CreatedAt:      ts(r.CreatedAt),
	}
}

func (r *runnerRow) domain() domain.Runner {
	return domain.Runner{
		ID:             r.ID,
		TokenDigest:    r.TokenDigest,
		Description:    r.Description,
		Active:         r.Active,
		Locked:         r.Locked,
		RunUntagged:    r.RunUntagged,
		Tags:           parseStrings(r.Tags),
		IsShared:       r.IsShared,
		AccessLevel:    r.AccessLevel,
		MaximumTimeout: r.MaximumTimeout,
		Name:           r.Name,
		Version:        r.Version,
		Revision:       r.Revision,
		Platform:       r.Platform,
		Architecture:   r.Architecture,
		IPAddress:      r.IPAddress,
		ContactedAt:    utcPtr(r.ContactedAt),
		CreatedAt:      r.CreatedAt.UTC(),
	}
}

var runnerTable = tableOf("Runner", (*runnerRow).domain)

type runnerStore struct{ s *Store }

func errRunnerTokenTaken() error { return core.Conflict("Token has already been taken") }

// Create inserts r (ProjectIDs are not saved: use AddProject); an empty
// access level is not_protected.
func (st *runnerStore) Create(ctx context.Context, r *domain.Runner) error {
	r.CreatedAt = orNow(r.CreatedAt)
	row := newRunnerRow(r)
	row.ID = 0
	if err := st.s.insert(ctx, row, takenErr("token_digest", errRunnerTokenTaken, "Runner"), "id"); err != nil {
		return fmt.Errorf("bunstore: create runner: %w", err)
	}
	projects := r.ProjectIDs
	*r = row.domain()
	r.ProjectIDs = projects
	return nil
}

func (st *runnerStore) Get(ctx context.Context, id int64) (*domain.Runner, error) {
	db := st.s.Conn(ctx)
	r, err := st.one(ctx, db, db.NewSelect().Where("r.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get runner %d: %w", id, err)
	}
	return r, nil
}

func (st *runnerStore) GetByToken(ctx context.Context, digest string) (*domain.Runner, error) {
	db := st.s.Conn(ctx)
	r, err := st.one(ctx, db, db.NewSelect().Where("r.token_digest = ?", digest))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get runner by token: %w", err)
	}
	return r, nil
}

// one reads the runner q selects (a query without model) with its
// projects.
func (st *runnerStore) one(ctx context.Context, db bun.IDB, q *bun.SelectQuery) (*domain.Runner, error) {
	r, err := runnerTable.get(ctx, q)
	if err != nil {
		return nil, err
	}
	list := []domain.Runner{*r}
	if err := withRunnerProjects(ctx, db, list); err != nil {
		return nil, err
	}
	return &list[0], nil
}

// withRunnerProjects fills the ProjectIDs of runners in one query.
func withRunnerProjects(ctx context.Context, db bun.IDB, runners []domain.Runner) error {
	if len(runners) == 0 {
		return nil
	}
	ids := runnerIDs(runners)
	var links []runnerProjectRow
	if err := db.NewSelect().Model(&links).Where("rp.runner_id IN (?)", bun.List(ids)).
		OrderExpr("rp.runner_id, rp.project_id").Scan(ctx); err != nil {
		return fmt.Errorf("runner projects: %w", err)
	}
	byRunner := map[int64][]int64{}
	for _, l := range links {
		byRunner[l.RunnerID] = append(byRunner[l.RunnerID], l.ProjectID)
	}
	for i := range runners {
		runners[i].ProjectIDs = byRunner[runners[i].ID]
	}
	return nil
}

func runnerIDs(runners []domain.Runner) []int64 {
	ids := make([]int64, len(runners))
	for i, r := range runners {
		ids[i] = r.ID
	}
	return ids
}

// List pages f by ID, with the runners' projects: three queries.
func (st *runnerStore) List(ctx context.Context, f domain.RunnerFilter) ([]domain.Runner, int, error) {
	db := st.s.Conn(ctx)
	q := db.NewSelect()
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			return []domain.Runner{}, 0, nil
		}
		q = q.Where("r.id IN (?)", bun.List(dedupeIDs(f.IDs)))
	}
	switch f.Scope {
	case "active":
		q = q.Where("r.active = ?", true)
	case "paused":
		q = q.Where("r.active = ?", false)
	case "online":
		q = q.Where("r.contacted_at >= ?", ts(f.OnlineSince))
	case "specific":
		q = q.Where("r.is_shared = ?", false)
	case "shared":
		q = q.Where("r.is_shared = ?", true)
	}
	if f.ProjectIDs != nil {
		if len(f.ProjectIDs) == 0 {
			return []domain.Runner{}, 0, nil
		}
		q = q.Where("r.id IN (?)", db.NewSelect().TableExpr("ci_runner_projects AS l").Column("l.runner_id").
			Where("l.project_id IN (?)", bun.List(dedupeIDs(f.ProjectIDs))))
	}
	out, n, err := runnerTable.page(ctx, q.OrderExpr("r.id"), f.Page)
	if err == nil {
		err = withRunnerProjects(ctx, db, out)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list runners: %w", err)
	}
	return out, n, nil
}

// Update locks the row, applies fn and saves every column but ID and
// CreatedAt; ProjectIDs are not saved.
func (st *runnerStore) Update(ctx context.Context, id int64, fn func(r *domain.Runner) error) (*domain.Runner, error) {
	load := func(ctx context.Context, db bun.IDB) (*domain.Runner, error) {
		return st.one(ctx, db, st.s.forUpdate(db.NewSelect().Where("r.id = ?", id)))
	}
	save := func(ctx context.Context, db bun.IDB, old, r *domain.Runner) (*domain.Runner, error) {
		r.ID, r.CreatedAt = old.ID, old.CreatedAt
		out, err := runnerTable.save(ctx, db, newRunnerRow(r), takenErr("token_digest", errRunnerTokenTaken, "Runner"))
		if err != nil {
			return nil, err
		}
		out.ProjectIDs = old.ProjectIDs
		return out, nil
	}
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update runner %d: %w", id, err)
	})
}

// Delete removes the runner; its project links go by ON DELETE CASCADE and
// its jobs keep no runner (ON DELETE SET NULL).
func (st *runnerStore) Delete(ctx context.Context, id int64) error {
	if err := runnerTable.deleteOne(ctx, st.s.Conn(ctx), "id = ?", id); err != nil {
		return fmt.Errorf("bunstore: delete runner %d: %w", id, err)
	}
	return nil
}

func (st *runnerStore) AddProject(ctx context.Context, runnerID, projectID int64) error {
	row := &runnerProjectRow{RunnerID: runnerID, ProjectID: projectID, CreatedAt: now()}
	taken := func() error { return core.Conflict("Runner already enabled for this project") }
	if err := st.s.insert(ctx, row, takenErr("", taken, "Runner or project")); err != nil {
		return fmt.Errorf("bunstore: enable runner %d for project %d: %w", runnerID, projectID, err)
	}
	return nil
}

func (st *runnerStore) RemoveProject(ctx context.Context, runnerID, projectID int64) error {
	res, err := st.s.Conn(ctx).NewDelete().Model((*runnerProjectRow)(nil)).
		Where("runner_id = ? AND project_id = ?", runnerID, projectID).Exec(ctx)
	if err == nil {
		err = mustAffect(res, "Runner")
	}
	if err != nil {
		return fmt.Errorf("bunstore: disable runner %d for project %d: %w", runnerID, projectID, err)
	}
	return nil
}

// Contacted records the contact time and what the runner said of itself
// (the fields it sent; empty ones keep what was stored), in one UPDATE.
func (st *runnerStore) Contacted(ctx context.Context, id int64, at time.Time, info domain.Runner) error {
	q := st.s.Conn(ctx).NewUpdate().Model((*runnerRow)(nil)).Set("contacted_at = ?", ts(at)).Where("id = ?", id)
	for col, v := range map[string]string{
		"name": info.Name, "version": info.Version, "revision": info.Revision,
		"platform": info.Platform, "architecture": info.Architecture, "ip_address": info.IPAddress,
	} {
		if v != "" {
			q = q.Set("? = ?", bun.Ident(col), v)
		}
	}
	res, err := q.Exec(ctx)
	if err == nil {
		err = mustAffect(res, "Runner")
	}
	if err != nil {
		return fmt.Errorf("bunstore: runner %d contacted: %w", id, err)
	}
	return nil
}

// SetRegistrationToken upserts the project's token digest.
func (st *runnerStore) SetRegistrationToken(ctx context.Context, projectID int64, digest string) error {
	row := &registrationTokenRow{ProjectID: projectID, Digest: digest}
	err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
		_, err := db.NewInsert().Model(row).On("CONFLICT (project_id) DO UPDATE").Set("digest = EXCLUDED.digest").Exec(ctx)
		return writeErr(err, "Project")
	})
	if err != nil {
		return fmt.Errorf("bunstore: set the runner registration token of project %d: %w", projectID, err)
	}
	return nil
}

func (st *runnerStore) ProjectOfRegistrationToken(ctx context.Context, digest string) (int64, error) {
	var id int64
	err := st.s.Conn(ctx).NewSelect().Model((*registrationTokenRow)(nil)).Column("rt.project_id").
		Where("rt.digest = ?", digest).Scan(ctx, &id)
	if err != nil {
		return 0, fmt.Errorf("bunstore: project of a runner registration token: %w", readErr(err, "Project"))
	}
	return id, nil
}

var _ ports.RunnerStore = (*runnerStore)(nil)
