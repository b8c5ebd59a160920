package ports

import (
	"context"

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
