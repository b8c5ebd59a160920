package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// EventStore keeps the activity feed.
type EventStore interface {
	// Create inserts e and sets e.ID.
	Create(ctx context.Context, e *domain.Event) error
	// List returns one page of events by created_at (then ID) and the total.
	List(ctx context.Context, f domain.EventFilter) ([]domain.Event, int, error)
}
