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
	// EnqueueFor queues a pending copy of d (its Event, Payload,
	// MaxAttempts and times) for each hook of hookIDs that still exists,
	// in one statement and in ctx's transaction, and returns how many it
	// queued: a hook deleted since it was routed is skipped, never an
	// error that would fail the change. MaxAttempts < 1 is core.ErrInvalid.
	EnqueueFor(ctx context.Context, hookIDs []int64, d domain.HookDelivery) (int, error)
	// Claim atomically takes up to max deliveries for node: pending ones
	// whose NextAttemptAt <= now, and running ones whose claim expired by
	// now (their node crashed), oldest NextAttemptAt first, skipping those
	// of hooks disabled at now. Each comes with its hook's Target. Each becomes
	// running, claimed by node until now+lease, with Attempts one more.
	// Concurrent claims, on any number of nodes, never take the same
	// delivery.
	Claim(ctx context.Context, node string, now time.Time, lease time.Duration, max int) ([]domain.HookDelivery, error)
	// Finish records the attempt of delivery id that node claimed: a
	// delivered attempt makes it delivered; a failed one with Retry makes
	// it pending again at NextAt while Attempts < MaxAttempts, and failed
	// otherwise. When node no longer holds the claim (another node took
	// it over, or it was finished already) it is core.ErrStale and nothing
	// changes; a missing delivery is core.ErrNotFound. In the same
	// transaction it keeps the hook's failure record: a delivered attempt
	// resets FailureCount and DisabledUntil; a failed one adds one to
	// FailureCount and, from result.DisableAfter on (when it is > 0),
	// sets DisabledUntil to result.At + domain.HookDisableBackoff.
	Finish(ctx context.Context, id int64, node string, result domain.HookAttempt) error
	// List returns one page of the hook's deliveries newest first, and
	// the total.
	List(ctx context.Context, hookID int64, p domain.Page) ([]domain.HookDelivery, int, error)
	// Get reads delivery id of hook hookID (core.ErrNotFound).
	Get(ctx context.Context, hookID, id int64) (*domain.HookDelivery, error)
	// Record inserts a delivery that was already attempted (a hook test,
	// sent at once): d's State, Attempts and Last* are kept as given.
	Record(ctx context.Context, d *domain.HookDelivery) error
	// Prune deletes the delivered and failed deliveries created before
	// before and returns how many.
	Prune(ctx context.Context, before time.Time) (int, error)
}

// HookEventStore keeps the changes that wait to be fanned out to hook
// deliveries (see domain.HookEvent).
type HookEventStore interface {
	// Add inserts e and sets its ID and CreatedAt (when zero), in the
	// transaction ctx carries: call it with the change, so both commit or
	// neither does.
	Add(ctx context.Context, e *domain.HookEvent) error
	// Claim atomically takes up to max events for node, oldest first:
	// unclaimed ones and those whose claim expired by now. Each is
	// claimed by node until now+lease, with Attempts one more. Concurrent
	// claims, on any number of nodes, never take the same event.
	Claim(ctx context.Context, node string, now time.Time, lease time.Duration, max int) ([]domain.HookEvent, error)
	// Done deletes event id that node claimed, in ctx's transaction (the
	// one that queued its deliveries). When node no longer holds the
	// claim it is core.ErrStale and nothing changes; a missing event is
	// core.ErrNotFound.
	Done(ctx context.Context, id int64, node string) error
}

// SystemHookStore keeps the instance's system hooks. They share the
// outbox (HookDeliveryStore) with project hooks: hook IDs are unique
// across both.
type SystemHookStore interface {
	// List returns one page of the system hooks by ID, and the total.
	List(ctx context.Context, p domain.Page) ([]domain.SystemHook, int, error)
	// Get reads system hook id (core.ErrNotFound, also for a project
	// hook's id).
	Get(ctx context.Context, id int64) (*domain.SystemHook, error)
	// Create inserts h and sets its ID.
	Create(ctx context.Context, h *domain.SystemHook) error
	// Delete removes system hook id and its deliveries (core.ErrNotFound).
	Delete(ctx context.Context, id int64) error
}

// HookRouter finds the hooks an event goes to.
type HookRouter interface {
	// HooksFor returns the IDs of the hooks subscribed to kind for an
	// event of project projectID (0: an event of no project): the
	// project's hooks whose flag for kind is on and, for HookPush and
	// HookTagPush, the system hooks with that flag; for HookSystem every
	// system hook. Disabled hooks are included: their deliveries wait
	// in the outbox until the hook is enabled again.
	HooksFor(ctx context.Context, projectID int64, kind domain.HookEventKind) ([]int64, error)
}

// HookSender POSTs one payload to one hook.
type HookSender interface {
	// Send posts payload with GitLab's webhook headers (X-Gitlab-Event:
	// event, X-Gitlab-Token when t has one) and reports the outcome. It
	// never follows redirects and refuses, without dialling, an address
	// that the URL guard blocks (checked again at connection time).
	Send(ctx context.Context, t domain.HookTarget, m HookMessage) HookResponse
}

// HookMessage is what one delivery sends.
type HookMessage struct {
	// DeliveryID is sent as X-Hearth-Delivery, the same on every retry,
	// so that a receiver can drop a delivery it already processed (after
	// a crash between its answer and the outbox's record of it). 0 sends
	// none (a hook test).
	DeliveryID int64
	Event      string
	Payload    []byte
}

// HookResponse is what one POST to a hook got back.
type HookResponse struct {
	// Status is the HTTP status, 0 when no response came.
	Status int
	// Body is the start of the response body (domain.HookResponseLimit).
	Body string
	// Err says why no usable response came (a refused address, a
	// timeout, a connection error); nil when Status is set.
	Err      error
	Duration time.Duration
	// Refused is set when the request was never sent because the URL or
	// the address it resolved to is not allowed (or not valid): retrying
	// cannot help.
	Refused bool
}
