package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// TriggerStore keeps projects' pipeline triggers, found by token digest,
// and the requests that ran pipelines with them.
type TriggerStore interface {
	// Create inserts t and sets its ID; an unknown project or owner is
	// core.ErrNotFound, a taken token digest core.ErrConflict.
	Create(ctx context.Context, t *domain.Trigger) error
	// Get reads one trigger of a project (core.ErrNotFound).
	Get(ctx context.Context, projectID, id int64) (*domain.Trigger, error)
	// GetByToken reads the trigger whose token has this digest, of any
	// project (core.ErrNotFound).
	GetByToken(ctx context.Context, digest string) (*domain.Trigger, error)
	// List returns one page of the project's triggers by ID, and the total.
	List(ctx context.Context, projectID int64, p domain.Page) ([]domain.Trigger, int, error)
	// Update applies fn under a row lock and saves Description, OwnerID,
	// UpdatedAt and LastUsedAt; fn's error is returned as is
	// (core.ErrNotFound for a trigger of another project or none).
	Update(ctx context.Context, projectID, id int64, fn func(t *domain.Trigger) error) (*domain.Trigger, error)
	// Delete removes the trigger; its requests stay, without trigger
	// (core.ErrNotFound).
	Delete(ctx context.Context, projectID, id int64) error
	// Record inserts r and sets its ID; an unknown pipeline is
	// core.ErrNotFound, a second request of one pipeline core.ErrConflict.
	Record(ctx context.Context, r *domain.TriggerRequest) error
	// OfPipeline reads the request that created the pipeline
	// (core.ErrNotFound when a trigger did not).
	OfPipeline(ctx context.Context, pipelineID int64) (*domain.TriggerRequest, error)
}
