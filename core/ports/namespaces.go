package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// NamespaceStore keeps user namespaces and groups. Full paths are unique
// case-insensitively; so are paths among siblings.
type NamespaceStore interface {
	// Create inserts n (FullPath computed from the parent) and sets n.ID. A
	// taken path is core.ErrConflict with Fields {"path": ["has already been taken"]};
	// an unknown parent is core.ErrNotFound.
	Create(ctx context.Context, n *domain.Namespace) error
	// Get returns the namespace; core.ErrNotFound when absent.
	Get(ctx context.Context, id int64) (*domain.Namespace, error)
	// GetByFullPath matches case-insensitively; core.ErrNotFound when absent.
	GetByFullPath(ctx context.Context, fullPath string) (*domain.Namespace, error)
	// GetMany returns the namespaces with these IDs in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.Namespace, error)
	// ForUser returns the personal namespace of a user; core.ErrNotFound when absent.
	ForUser(ctx context.Context, userID int64) (*domain.Namespace, error)
	// Update applies fn under a lock; a changed Path or ParentID rewrites
	// the FullPath of the namespace and of every descendant. Conflicts as in Create.
	Update(ctx context.Context, id int64, fn func(n *domain.Namespace) error) (*domain.Namespace, error)
	// Delete removes the namespace, its descendants, their projects and
	// memberships; core.ErrNotFound when absent.
	Delete(ctx context.Context, id int64) error
	// Ancestors returns the chain from the top down to n's parent.
	Ancestors(ctx context.Context, id int64) ([]domain.Namespace, error)
	// Descendants returns the IDs of every group below the given ones
	// (not including them).
	Descendants(ctx context.Context, ids []int64) ([]int64, error)
	// AncestorIDs returns the IDs of every group above the given ones (not
	// including them).
	AncestorIDs(ctx context.Context, ids []int64) ([]int64, error)
	// WithAncestors returns the namespaces with these IDs and every group
	// above them, each once, in any order, in one query: what rendering a
	// full name needs. Unknown IDs are left out.
	WithAncestors(ctx context.Context, ids []int64) ([]domain.Namespace, error)
	// OfProjects returns the IDs of the group namespaces holding these
	// projects (personal namespaces are left out).
	OfProjects(ctx context.Context, projectIDs []int64) ([]int64, error)
	// ListGroups returns one page of groups and the total.
	ListGroups(ctx context.Context, f domain.GroupFilter) ([]domain.Namespace, int, error)
	// Search returns namespaces (personal and groups) whose path or name
	// contains search, limited to ids when idsSet (all when admin passes false).
	Search(ctx context.Context, search string, ids []int64, idsSet bool, p domain.Page) ([]domain.Namespace, int, error)
}
