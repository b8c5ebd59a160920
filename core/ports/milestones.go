package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// MilestoneStore keeps project milestones.
type MilestoneStore interface {
	// Create inserts m with the next IID of its project; a title taken in
	// the project is core.ErrConflict ("Milestone already exists").
	Create(ctx context.Context, m *domain.Milestone) error
	// Get reads a milestone of a project by ID (core.ErrNotFound).
	Get(ctx context.Context, projectID, id int64) (*domain.Milestone, error)
	// GetMany returns the milestones with these IDs, in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.Milestone, error)
	// IDsByTitle returns the IDs of the project's milestones titled title.
	IDsByTitle(ctx context.Context, projectID int64, title string) ([]int64, error)
	// Update applies fn under a lock (conflicts as in Create).
	Update(ctx context.Context, projectID, id int64, fn func(m *domain.Milestone) error) (*domain.Milestone, error)
	// Delete removes the milestone; issues and merge requests lose it.
	Delete(ctx context.Context, projectID, id int64) error
	// List returns one page of f (due date, then ID) and the total.
	List(ctx context.Context, f domain.MilestoneFilter) ([]domain.Milestone, int, error)
}

// MilestoneReader is the part of MilestoneStore that merge requests and
// their rendering need. The app provides it from the milestone store; an
// embedder without one leaves it out and no milestone exists.
type MilestoneReader interface {
	// GetMany returns the milestones with these IDs, in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.Milestone, error)
	// IDsByTitle returns the IDs of the project's milestones titled title.
	IDsByTitle(ctx context.Context, projectID int64, title string) ([]int64, error)
}
