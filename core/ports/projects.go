package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// ProjectStore keeps projects. Names and paths are unique in a namespace,
// case-insensitively.
type ProjectStore interface {
	// Create inserts p and sets p.ID. A taken name or path is
	// core.ErrConflict with Fields {"name"|"path": ["has already been taken"]}.
	Create(ctx context.Context, p *domain.Project) error
	// Get returns the project; core.ErrNotFound when absent.
	Get(ctx context.Context, id int64) (*domain.Project, error)
	// GetByFullPath finds "namespace/full/path/project" case-insensitively.
	GetByFullPath(ctx context.Context, fullPath string) (*domain.Project, error)
	// GetMany returns the projects with these IDs in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.Project, error)
	// Update applies fn under a lock and saves; conflicts as in Create.
	Update(ctx context.Context, id int64, fn func(p *domain.Project) error) (*domain.Project, error)
	// Delete removes the project with its memberships, shares and stars.
	Delete(ctx context.Context, id int64) error
	// List returns one page and the total, both limited by f.Readable.
	List(ctx context.Context, f domain.ProjectFilter) ([]domain.Project, int, error)
	// CountInNamespace counts the projects directly in a namespace.
	CountInNamespace(ctx context.Context, namespaceID int64) (int, error)
	// Star records that user starred the project and moves star_count;
	// false when it already was starred (nothing changes).
	Star(ctx context.Context, userID, projectID int64) (bool, error)
	// Unstar is Star's inverse; false when it was not starred.
	Unstar(ctx context.Context, userID, projectID int64) (bool, error)
	// AddForks moves forks_count by delta.
	AddForks(ctx context.Context, projectID int64, delta int) error
	// Starred reports which of the projects the user has starred.
	Starred(ctx context.Context, userID int64, projectIDs []int64) (map[int64]bool, error)
	// PendingImports lists projects whose import_status is scheduled or
	// started: work to resume after a restart.
	PendingImports(ctx context.Context) ([]domain.Project, error)
	// Forks lists the IDs of projects forked from projectID.
	Forks(ctx context.Context, projectID int64) ([]int64, error)
	// TouchActivity sets last_activity_at to at when it is earlier, leaving
	// updated_at alone. core.ErrNotFound when the project is absent.
	TouchActivity(ctx context.Context, id int64, at time.Time) error
}
