package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// AwardStore keeps award emoji.
type AwardStore interface {
	// Create stores a; the same user, awardable and name twice is
	// core.ErrConflict.
	Create(ctx context.Context, a *domain.Award) error
	// List returns the awards of an awardable, oldest first.
	List(ctx context.Context, awardableType string, awardableID int64) ([]domain.Award, error)
	// Delete removes an award (core.ErrNotFound).
	Delete(ctx context.Context, id int64) error
}
