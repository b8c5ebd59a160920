package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// SubscriptionStore keeps explicit subscriptions to issues and merge
// requests. Implicit ones (authors, assignees) are the modules' rule.
type SubscriptionStore interface {
	// Set records the user's explicit choice.
	Set(ctx context.Context, target domain.Subject, userID int64, subscribed bool) error
	// Get returns the user's explicit choice, nil when there is none.
	Get(ctx context.Context, target domain.Subject, userID int64) (*bool, error)
	// OfUser returns the user's explicit choices for targets of one type
	// with these IDs (one query); IDs without a choice are absent.
	OfUser(ctx context.Context, userID int64, targetType string, ids []int64) (map[int64]bool, error)
	// DeleteTarget removes every subscription to a target.
	DeleteTarget(ctx context.Context, target domain.Subject) error
}
