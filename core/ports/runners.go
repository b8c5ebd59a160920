package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// RunnerStore keeps runners, the projects they serve and the projects'
// runner registration tokens (as digests).
type RunnerStore interface {
	// Create inserts r and sets its ID; a taken token digest is
	// core.ErrConflict.
	Create(ctx context.Context, r *domain.Runner) error
	// Get reads one runner (core.ErrNotFound).
	Get(ctx context.Context, id int64) (*domain.Runner, error)
	// GetByToken reads the runner whose token has this digest
	// (core.ErrNotFound).
	GetByToken(ctx context.Context, digest string) (*domain.Runner, error)
	// List returns one page of f, by ID, and the total.
	List(ctx context.Context, f domain.RunnerFilter) ([]domain.Runner, int, error)
	// Update applies fn under a row lock and saves (ProjectIDs are not
	// saved: use AddProject and RemoveProject).
	Update(ctx context.Context, id int64, fn func(r *domain.Runner) error) (*domain.Runner, error)
	// Delete removes the runner and its project links (core.ErrNotFound).
	Delete(ctx context.Context, id int64) error
	// AddProject lets a runner serve a project; already serving it is
	// core.ErrConflict.
	AddProject(ctx context.Context, runnerID, projectID int64) error
	// RemoveProject stops it (core.ErrNotFound when it did not).
	RemoveProject(ctx context.Context, runnerID, projectID int64) error
	// Contacted records that the runner asked for work, with what it said
	// of itself; callers throttle it.
	Contacted(ctx context.Context, id int64, at time.Time, info domain.Runner) error
	// SetRegistrationToken replaces a project's runner registration token
	// by its digest.
	SetRegistrationToken(ctx context.Context, projectID int64, digest string) error
	// ProjectOfRegistrationToken finds the project whose registration
	// token has this digest (core.ErrNotFound).
	ProjectOfRegistrationToken(ctx context.Context, digest string) (int64, error)
}

// VariableStore keeps projects' CI variables, unique by key in a project.
type VariableStore interface {
	// List returns one page of the project's variables by key, and the total.
	List(ctx context.Context, projectID int64, p domain.Page) ([]domain.Variable, int, error)
	// Get reads one variable (core.ErrNotFound).
	Get(ctx context.Context, projectID int64, key string) (*domain.Variable, error)
	// Create inserts v; a taken key is core.ErrConflict with Fields
	// {"key": ["has already been taken"]}.
	Create(ctx context.Context, v *domain.Variable) error
	// Update applies fn under a lock and saves (core.ErrNotFound).
	Update(ctx context.Context, projectID int64, key string, fn func(v *domain.Variable) error) (*domain.Variable, error)
	// Delete removes the variable (core.ErrNotFound).
	Delete(ctx context.Context, projectID int64, key string) error
}
