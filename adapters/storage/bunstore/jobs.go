package bunstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// jobRow is a row of ci_jobs. Tags and Spec are JSON; Claim matches the
// tags against a runner's in SQL.
type jobRow struct {
	bun.BaseModel `bun:"table:ci_jobs,alias:j"`

	ID                int64      `bun:"id,pk,autoincrement"`
	ProjectID         int64      `bun:"project_id"`
	PipelineID        int64      `bun:"pipeline_id"`
	Kind              string     `bun:"kind"`
	Name              string     `bun:"name"`
	Stage             string     `bun:"stage"`
	StageIdx          int        `bun:"stage_idx"`
	Status            string     `bun:"status"`
	Ref               string     `bun:"ref"`
	Tag               bool       `bun:"tag"`
	SHA               string     `bun:"sha"`
	Protected         bool       `bun:"protected"`
	When              string     `bun:"run_when"`
	AllowFailure      bool       `bun:"allow_failure"`
	UserID            *int64     `bun:"user_id"`
	RunnerID          *int64     `bun:"runner_id"`
	TokenDigest       *string    `bun:"token_digest"`
	Tags              string     `bun:"tags"`
	Spec              string     `bun:"spec"`
	Coverage          *float64   `bun:"coverage"`
	Description       string     `bun:"description"`
	TargetURL         string     `bun:"target_url"`
	FailureReason     string     `bun:"failure_reason"`
	TraceSize         int64      `bun:"trace_size"`
	ArtifactsExpireAt *time.Time `bun:"artifacts_expire_at"`
	ErasedAt          *time.Time `bun:"erased_at"`
	ErasedBy          *int64     `bun:"erased_by"`
	Retried           bool       `bun:"retried"`
	Attempt           int        `bun:"attempt"`
	RunnerFinished    bool       `bun:"runner_finished"`
	CreatedAt         time.Time  `bun:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
	QueuedAt          *time.Time `bun:"queued_at"`
	StartedAt         *time.Time `bun:"started_at"`
	FinishedAt        *time.Time `bun:"finished_at"`
}

func newJobRow(j *domain.Job) (*jobRow, error) {
	spec, err := json.Marshal(j.Spec)
	if err != nil {
		return nil, fmt.Errorf("encode job spec: %w", err)
	}
	return &jobRow{
		ID:                j.ID,
		ProjectID:         j.ProjectID,
		PipelineID:        j.PipelineID,
		Kind:              string(j.Kind),
		Name:              j.Name,
		Stage:             j.Stage,
		StageIdx:          j.StageIdx,
		Status:            string(j.Status),
		Ref:               j.Ref,
		Tag:               j.Tag,
		SHA:               j.SHA,
		Protected:         j.Protected,
		When:              j.When,
		AllowFailure:      j.AllowFailure,
		UserID:            j.UserID,
		RunnerID:          j.RunnerID,
		TokenDigest:       nullString(j.TokenDigest),
		Tags:              jsonStrings(j.Tags),
		Spec:              string(spec),
		Coverage:          j.Coverage,
		Description:       j.Description,
		TargetURL:         j.TargetURL,
		FailureReason:     j.FailureReason,
		TraceSize:         j.TraceSize,
		ArtifactsExpireAt: tsPtr(j.ArtifactsExpireAt),
		ErasedAt:          tsPtr(j.ErasedAt),
		ErasedBy:          j.ErasedBy,
		Retried:           j.Retried,
		Attempt:           j.Attempt,
		RunnerFinished:    j.RunnerFinished,
		CreatedAt:         ts(j.CreatedAt),
		UpdatedAt:         ts(j.UpdatedAt),
		QueuedAt:          tsPtr(j.QueuedAt),
		StartedAt:         tsPtr(j.StartedAt),
		FinishedAt:        tsPtr(j.FinishedAt),
	}, nil
}

func (r *jobRow) domain() domain.Job {
	var spec domain.JobSpec
	_ = json.Unmarshal([]byte(r.Spec), &spec) // written by newJobRow
	return domain.Job{
		ID:                r.ID,
		ProjectID:         r.ProjectID,
		PipelineID:        r.PipelineID,
		Kind:              domain.JobKind(r.Kind),
		Name:              r.Name,
		Stage:             r.Stage,
		StageIdx:          r.StageIdx,
		Status:            domain.CIStatus(r.Status),
		Ref:               r.Ref,
		Tag:               r.Tag,
		SHA:               r.SHA,
		Protected:         r.Protected,
		When:              r.When,
		AllowFailure:      r.AllowFailure,
		UserID:            r.UserID,
		RunnerID:          r.RunnerID,
		TokenDigest:       deref(r.TokenDigest),
		Tags:              parseStrings(r.Tags),
		Spec:              spec,
		Coverage:          r.Coverage,
		Description:       r.Description,
		TargetURL:         r.TargetURL,
		FailureReason:     r.FailureReason,
		TraceSize:         r.TraceSize,
		ArtifactsExpireAt: utcPtr(r.ArtifactsExpireAt),
		ErasedAt:          utcPtr(r.ErasedAt),
		ErasedBy:          r.ErasedBy,
		Retried:           r.Retried,
		Attempt:           r.Attempt,
		RunnerFinished:    r.RunnerFinished,
		CreatedAt:         r.CreatedAt.UTC(),
		UpdatedAt:         r.UpdatedAt.UTC(),
		QueuedAt:          utcPtr(r.QueuedAt),
		StartedAt:         utcPtr(r.StartedAt),
		FinishedAt:        utcPtr(r.FinishedAt),
	}
}

// jsonStrings encodes a list of strings as a JSON array ("[]" for none).
func jsonStrings(xs []string) string {
	if len(xs) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(xs) // []string always marshals
	return string(b)
}

// parseStrings decodes what jsonStrings wrote; nil for none.
func parseStrings(s string) []string {
	if s == "" || s == "[]" {
		return nil
	}
	var xs []string
	_ = json.Unmarshal([]byte(s), &xs) // written by jsonStrings
	return xs
}

var jobTable = tableOf("Job", (*jobRow).domain)

type jobStore struct{ s *Store }

// insertJobs adds jobs (their PipelineID and ProjectID set) in one
// statement and sets their IDs; a pending one
// bumps the queue version (and gets QueuedAt = CreatedAt unless set).
func insertJobs(ctx context.Context, s *Store, db bun.IDB, jobs []domain.Job) error {
	if len(jobs) == 0 {
		return nil
	}
	rows := make([]jobRow, len(jobs))
	pending := false
	for i := range jobs {
		j := &jobs[i]
		j.CreatedAt, j.UpdatedAt = created(j.CreatedAt, j.UpdatedAt)
		if j.Kind == "" {
			j.Kind = domain.JobBuild
		}
		if j.Status == domain.CIPending && j.QueuedAt == nil {
			j.QueuedAt = &j.CreatedAt
		}
		row, err := newJobRow(j)
		if err != nil {
			return err
		}
		row.ID = 0
		rows[i] = *row
		pending = pending || j.Status == domain.CIPending
	}
	if _, err := db.NewInsert().Model(&rows).Returning("id").Exec(ctx); err != nil {
		return writeErr(err, "Pipeline")
	}
	for i := range rows {
		jobs[i] = rows[i].domain()
	}
	if pending {
		return s.bumpQueue(ctx, db)
	}
	return nil
}

// Create inserts j into its pipeline's project (ProjectID is the
// pipeline's).
func (st *jobStore) Create(ctx context.Context, j *domain.Job) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		p, err := pipelineTable.get(ctx, db.NewSelect().Where("pl.id = ?", j.PipelineID))
		if err != nil {
			return err
		}
		jobs := []domain.Job{*j}
		jobs[0].ProjectID = p.ProjectID
		if err := insertJobs(ctx, st.s, db, jobs); err != nil {
			return err
		}
		*j = jobs[0]
		return nil
	})
	if err != nil {
		return fmt.Errorf("bunstore: create job in pipeline %d: %w", j.PipelineID, err)
	}
	return nil
}

func (st *jobStore) Get(ctx context.Context, projectID, id int64) (*domain.Job, error) {
	j, err := jobTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("j.project_id = ? AND j.id = ?", projectID, id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get job %d of project %d: %w", id, projectID, err)
	}
	return j, nil
}

func (st *jobStore) GetByID(ctx context.Context, id int64) (*domain.Job, error) {
	j, err := jobTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("j.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get job %d: %w", id, err)
	}
	return j, nil
}

func (st *jobStore) GetByToken(ctx context.Context, digest string) (*domain.Job, error) {
	j, err := jobTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("j.token_digest = ?", digest))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get job by token: %w", err)
	}
	return j, nil
}

// List pages f newest first (ID descending), after counting it.
func (st *jobStore) List(ctx context.Context, f domain.JobFilter) ([]domain.Job, int, error) {
	q := st.s.Conn(ctx).NewSelect()
	q = whereSet(q, "j.project_id = ?", f.ProjectID)
	q = whereSet(q, "j.pipeline_id = ?", f.PipelineID)
	q = whereSet(q, "j.runner_id = ?", f.RunnerID)
	q = whereSet(q, "j.kind = ?", string(f.Kind))
	if len(f.Statuses) > 0 {
		statuses := make([]string, len(f.Statuses))
		for i, s := range f.Statuses {
			statuses[i] = string(s)
		}
		q = q.Where("j.status IN (?)", bun.List(dedupeStrings(statuses)))
	}
	if f.Latest {
		q = q.Where("j.retried = ?", false)
	}
	q = whereSet(q, "j.sha = ?", f.SHA)
	q = whereSet(q, "j.ref = ?", f.Ref)
	q = whereSet(q, "j.name = ?", f.Name)
	q = whereSet(q, "j.stage = ?", f.Stage)
	out, n, err := jobTable.page(ctx, q.OrderExpr("j.id DESC"), f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list jobs: %w", err)
	}
	return out, n, nil
}

func (st *jobStore) OfPipeline(ctx context.Context, pipelineID int64) ([]domain.Job, error) {
	out, err := jobTable.list(ctx, st.s.Conn(ctx).NewSelect().Where("j.pipeline_id = ?", pipelineID).OrderExpr("j.stage_idx, j.id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: jobs of pipeline %d: %w", pipelineID, err)
	}
	return out, nil
}

// Update locks the row, applies fn and saves every column but ID,
// ProjectID, PipelineID and CreatedAt (TraceSize too: AppendTrace moves
// it); a job that became pending bumps the
// queue version (and gets QueuedAt = UpdatedAt unless fn set one).
func (st *jobStore) Update(ctx context.Context, id int64, fn func(j *domain.Job) error) (*domain.Job, error) {
	save := func(ctx context.Context, db bun.IDB, old, j *domain.Job) (*domain.Job, error) {
		j.ID, j.ProjectID, j.PipelineID, j.CreatedAt = old.ID, old.ProjectID, old.PipelineID, old.CreatedAt
		j.UpdatedAt = edited(j.UpdatedAt, old.UpdatedAt)
		queued := j.Status == domain.CIPending && old.Status != domain.CIPending
		if queued && j.QueuedAt == nil {
			j.QueuedAt = &j.UpdatedAt
		}
		row, err := newJobRow(j)
		if err != nil {
			return nil, err
		}
		if _, err := db.NewUpdate().Model(row).ExcludeColumn("trace_size").WherePK().Exec(ctx); err != nil {
			return nil, writeErr(err, "Runner")
		}
		out := row.domain()
		out.TraceSize = old.TraceSize
		if queued {
			if err := st.s.bumpQueue(ctx, db); err != nil {
				return nil, err
			}
		}
		return &out, nil
	}
	return modify(ctx, st.s, jobTable.locked(st.s, "j.id = ?", id), fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update job %d: %w", id, err)
	})
}

var _ ports.JobStore = (*jobStore)(nil)
