package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// BroadcastMessageStore keeps the instance's broadcast messages.
type BroadcastMessageStore interface {
	// List returns one page of the messages by ID, and the total.
	List(ctx context.Context, p domain.Page) ([]domain.BroadcastMessage, int, error)
	// Current returns the messages showing at now (StartsAt <= now <=
	// EndsAt) by ID: what a banner displays.
	Current(ctx context.Context, now time.Time) ([]domain.BroadcastMessage, error)
	// Get reads message id (core.ErrNotFound).
	Get(ctx context.Context, id int64) (*domain.BroadcastMessage, error)
	// Create inserts m and sets its ID; a zero CreatedAt or UpdatedAt is
	// now.
	Create(ctx context.Context, m *domain.BroadcastMessage) error
	// Update applies fn to message id under a lock and saves every field
	// but ID and CreatedAt (core.ErrNotFound; fn's error is returned as
	// is and nothing is saved).
	Update(ctx context.Context, id int64, fn func(m *domain.BroadcastMessage) error) (*domain.BroadcastMessage, error)
	// Delete removes message id (core.ErrNotFound).
	Delete(ctx context.Context, id int64) error
}
