package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// HookStore keeps projects' webhooks.
type HookStore interface {
	// List returns one page of the project's hooks by ID, and the total.
	List(ctx context.Context, projectID int64, p domain.Page) ([]domain.ProjectHook, int, error)
	// Get reads hook id of the project (core.ErrNotFound, also for a hook
	// of another project).
	Get(ctx context.Context, projectID, id int64) (*domain.ProjectHook, error)
	// Create inserts h and sets its ID; a missing project is
	// core.ErrNotFound.
	Create(ctx context.Context, h *domain.ProjectHook) error
	// Update applies fn to hook id of the project under a lock and saves
	// every field but ID, ProjectID and CreatedAt (core.ErrNotFound; fn's
	// error is returned as is and nothing is saved).
	Update(ctx context.Context, projectID, id int64, fn func(h *domain.ProjectHook) error) (*domain.ProjectHook, error)
	// Delete removes hook id of the project (core.ErrNotFound).
	Delete(ctx context.Context, projectID, id int64) error
}

// URLGuard decides whether a webhook may be sent to a URL, so that users
// cannot aim the server at its own network.
type URLGuard interface {
	// CheckURL refuses a malformed URL, a scheme other than http and
	// https, a host that does not resolve and, unless local requests are
	// allowed, one that resolves to a local address. A refusal is
	// core.ErrUnprocessable with Fields {"url": ["is blocked: <reason>"]}
	// (GitLab's 422), ready to return to the client; any other error (a
	// cancelled ctx) is returned as is.
	CheckURL(ctx context.Context, raw string) error
}

// HookDeliveryStore is the webhook outbox: deliveries are queued in the
// transaction of the change that caused them and handed out to the nodes'
// workers by claims, so a crash loses none and each is attempted by one
// node at a time.
type HookDeliveryStore interface {
	// Enqueue inserts d as pending (a zero NextAttemptAt is now) and sets
	// its ID and times. It joins the transaction ctx carries: call it in
	// TxManager.WithinTx with the change, so both commit or neither does.
	// A missing hook is core.ErrNotFound; MaxAttempts < 1 is
	// core.ErrInvalid.
	Enqueue(ctx context.Context, d *domain.HookDelivery) error
	// Claim atomically takes up to max deliveries for node: pending ones
	// whose NextAttemptAt <= now, and running ones whose claim expired by
	// now (their node crashed), oldest NextAttemptAt first. Each becomes
	// running, claimed by node until now+lease, with Attempts one more.
	// Concurrent claims, on any number of nodes, never take the same
	// delivery.
	Claim(ctx context.Context, node string, now time.Time, lease time.Duration, max int) ([]domain.HookDelivery, error)
	// Finish records the attempt of delivery id that node claimed: a
	// delivered attempt makes it delivered; a failed one with Retry makes
	// it pending again at NextAt while Attempts < MaxAttempts, and failed
	// otherwise. When node no longer holds the claim (another node took
	// it over, or it was finished already) it is core.ErrStale and nothing
	// changes; a missing delivery is core.ErrNotFound.
	Finish(ctx context.Context, id int64, node string, result domain.HookAttempt) error
	// List returns one page of the hook's deliveries newest first, and
	// the total.
	List(ctx context.Context, hookID int64, p domain.Page) ([]domain.HookDelivery, int, error)
	// Prune deletes the delivered and failed deliveries created before
	// before and returns how many.
	Prune(ctx context.Context, before time.Time) (int, error)
}
