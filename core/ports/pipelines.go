package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// PipelineStore keeps pipelines.
type PipelineStore interface {
	// Create inserts p with its jobs in one transaction, setting the IDs
	// (and each job's PipelineID and ProjectID). An unknown project is
	// core.ErrNotFound. Zero times mean now.
	Create(ctx context.Context, p *domain.Pipeline, jobs []domain.Job) error
	// Get reads one pipeline of a project (core.ErrNotFound).
	Get(ctx context.Context, projectID, id int64) (*domain.Pipeline, error)
	// GetByID reads one pipeline by its global ID (core.ErrNotFound).
	GetByID(ctx context.Context, id int64) (*domain.Pipeline, error)
	// List returns one page of f and the total.
	List(ctx context.Context, f domain.PipelineFilter) ([]domain.Pipeline, int, error)
	// Update applies fn under a row lock and saves; fn's error is
	// returned as is. UpdatedAt = now unless fn changed it.
	Update(ctx context.Context, id int64, fn func(p *domain.Pipeline) error) (*domain.Pipeline, error)
	// Lock takes the pipeline's row lock until ctx's transaction ends,
	// without writing it: use cases that change a pipeline's jobs take it
	// first, in the order the pipeline processor does (core.ErrNotFound).
	Lock(ctx context.Context, id int64) error
	// Delete removes the pipeline with its jobs, their traces and their
	// artifact records, and returns those artifacts so that the caller
	// deletes their files after commit (core.ErrNotFound).
	Delete(ctx context.Context, projectID, id int64) ([]domain.Artifact, error)
	// Latest returns the newest pipeline for sha on ref in the project
	// (ref "" : on any ref); core.ErrNotFound when there is none.
	Latest(ctx context.Context, projectID int64, sha, ref string) (*domain.Pipeline, error)
	// LatestOfSHAs returns the newest pipeline of each of these commits in
	// the project, in one query (commit lists' status); commits without
	// one are absent.
	LatestOfSHAs(ctx context.Context, projectID int64, shas []string) (map[string]domain.Pipeline, error)
}
