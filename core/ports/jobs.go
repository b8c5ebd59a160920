package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// JobStore keeps the jobs of pipelines (CI jobs and commit statuses) and
// the traces of running jobs.
type JobStore interface {
	// Create inserts j (a commit status, or a retry of a job) and sets its
	// ID; an unknown pipeline is core.ErrNotFound.
	Create(ctx context.Context, j *domain.Job) error
	// Get reads one job of a project (core.ErrNotFound).
	Get(ctx context.Context, projectID, id int64) (*domain.Job, error)
	// GetByID reads one job by its global ID (core.ErrNotFound).
	GetByID(ctx context.Context, id int64) (*domain.Job, error)
	// GetByToken reads the job whose token has this digest
	// (core.ErrNotFound).
	GetByToken(ctx context.Context, digest string) (*domain.Job, error)
	// List returns one page of f, newest first, and the total.
	List(ctx context.Context, f domain.JobFilter) ([]domain.Job, int, error)
	// OfPipeline returns every job of a pipeline (retried ones included),
	// ordered by stage index, then ID.
	OfPipeline(ctx context.Context, pipelineID int64) ([]domain.Job, error)
	// Update applies fn under a row lock and saves; fn's error is returned
	// as is. UpdatedAt = now unless fn changed it.
	Update(ctx context.Context, id int64, fn func(j *domain.Job) error) (*domain.Job, error)
	// Claim hands runner the oldest pending CI job it may take, in one
	// atomic step: the job becomes running, bound to the runner, started
	// at now, with the token digest assign returns for it (assign runs
	// inside the step and may refuse the job with an error). No job is
	// ever handed to two runners, whatever the number of runners and of
	// processes sharing the database. nil, nil when there is none.
	//
	// A runner may take a job when: the job's project is one of its
	// projects (specific runner) or has shared runners on (shared runner),
	// and has jobs enabled; every tag of the job is one of the runner's,
	// and a job without tags needs RunUntagged; a ref_protected runner
	// takes only Protected jobs.
	Claim(ctx context.Context, runner *domain.Runner, now time.Time, assign func(j *domain.Job) (tokenDigest string, err error)) (*domain.Job, error)
	// QueueVersion changes whenever a job becomes pending (runners send
	// it back as last_update; X-GitLab-Last-Update).
	QueueVersion(ctx context.Context) (string, error)
	// Stale lists running CI jobs not updated since runningBefore (and
	// canceled ones whose runner has not reported the end since then:
	// their token still works until it does), and pending ones queued
	// before pendingBefore, oldest first, at most limit.
	Stale(ctx context.Context, runningBefore, pendingBefore time.Time, limit int) ([]domain.Job, error)
	// AppendTrace appends data to the running job's trace at offset, which
	// must equal its TraceSize: otherwise core.ErrStale and nothing is
	// written. It returns the new size.
	AppendTrace(ctx context.Context, jobID, offset int64, data []byte) (int64, error)
	// Trace returns the trace stored so far (empty when none).
	Trace(ctx context.Context, jobID int64) ([]byte, error)
	// DeleteTrace removes the stored trace (it was archived or erased).
	DeleteTrace(ctx context.Context, jobID int64) error
}
