package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// TimeTrackingStore keeps the time estimate and the total time spent of
// issues and merge requests, named by subject (TargetIssue or
// TargetMergeRequest and the item's ID). Each write is one statement, so
// concurrent writers lose nothing. A missing item is core.ErrNotFound.
type TimeTrackingStore interface {
	// TimeStats reads the item's stats.
	TimeStats(ctx context.Context, item domain.Subject) (domain.TimeStats, error)
	// SetEstimate sets the estimate; when it changes, the item's
	// updated_at becomes now.
	SetEstimate(ctx context.Context, item domain.Subject, seconds int64, now time.Time) (domain.TimeStats, error)
	// AddSpent adds seconds (negative: takes them off) to the total time
	// spent. Taking off more than the total is core.ErrInvalid and
	// changes nothing.
	AddSpent(ctx context.Context, item domain.Subject, seconds int64) (domain.TimeStats, error)
	// ResetSpent sets the total time spent to zero.
	ResetSpent(ctx context.Context, item domain.Subject) (domain.TimeStats, error)
}
