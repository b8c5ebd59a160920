package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// TokenFilter selects a user's tokens.
type TokenFilter struct {
	UserID int64 // 0: every user's
	Kinds  []domain.TokenKind
	State  domain.TokenState // "" or all: every token
	Now    time.Time         // reference time for active/inactive; zero means the current time
	Page   domain.Page
}

// TokenStore keeps API tokens by digest.
type TokenStore interface {
	// Create inserts t and sets t.ID; a duplicate digest is core.ErrConflict.
	Create(ctx context.Context, t *domain.Token) error
	// Get returns the token; core.ErrNotFound when absent.
	Get(ctx context.Context, id int64) (*domain.Token, error)
	// GetByDigest returns the token with this digest; core.ErrNotFound when absent.
	GetByDigest(ctx context.Context, digest string) (*domain.Token, error)
	// List returns one page ordered by ID and the total.
	List(ctx context.Context, f TokenFilter) ([]domain.Token, int, error)
	// Revoke marks the token revoked (again is fine); core.ErrNotFound when absent.
	Revoke(ctx context.Context, id int64) error
	// TouchLastUsed records use; callers throttle it. core.ErrNotFound when absent.
	TouchLastUsed(ctx context.Context, id int64, at time.Time) error
	// PruneSessions deletes the user's session tokens beyond the newest keep
	// (newest by ID); keep <= 0 deletes them all.
	PruneSessions(ctx context.Context, userID int64, keep int) error
}
