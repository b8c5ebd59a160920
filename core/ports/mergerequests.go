package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// MergeRequestStore keeps merge requests, their labels and merge state.
// Every read fills UserNotesCount (non-system notes), Upvotes and
// Downvotes (thumbsup / thumbsdown awards) in the same query.
type MergeRequestStore interface {
	// Create inserts m, setting ID and the next IID of m.ProjectID (unique
	// under concurrent creates). A second open merge request (opened or
	// reopened) for the same source project and branch and target project
	// and branch is core.ErrConflict; an unknown project is
	// core.ErrNotFound. Zero times mean now.
	Create(ctx context.Context, m *domain.MergeRequest) error
	// Get reads one merge request by project and IID (core.ErrNotFound).
	Get(ctx context.Context, projectID, iid int64) (*domain.MergeRequest, error)
	// GetByID reads one merge request by its global ID (core.ErrNotFound).
	GetByID(ctx context.Context, id int64) (*domain.MergeRequest, error)
	// GetMany returns the merge requests with these IDs, in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.MergeRequest, error)
	// Update applies fn to the merge request under a row lock and saves it
	// (labels included). fn's error is returned as is and nothing is saved.
	// UpdatedAt is set to now unless fn changed it. Reopening into a pair
	// that already has an open merge request is core.ErrConflict.
	Update(ctx context.Context, projectID, iid int64, fn func(m *domain.MergeRequest) error) (*domain.MergeRequest, error)
	// Delete removes the merge request with its labels, notes, awards,
	// todos and subscriptions (core.ErrNotFound).
	Delete(ctx context.Context, projectID, iid int64) error
	// List returns one page of f and the total.
	List(ctx context.Context, f domain.MergeRequestFilter) ([]domain.MergeRequest, int, error)
	// OpenOnBranch lists the open merge requests of projectID whose source
	// or target branch is branch (a push moved it).
	OpenOnBranch(ctx context.Context, projectID int64, branch string) ([]domain.MergeRequest, error)
	// Locked lists merge requests whose merge was started (LockedAt set)
	// before the given time: work a repair finishes or drops.
	Locked(ctx context.Context, before time.Time) ([]domain.MergeRequest, error)
}
