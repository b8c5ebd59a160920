package ports

import (
	"context"
	"time"

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
	// OfProjects returns the IDs of the group namespaces holding these
	// projects (personal namespaces are left out).
	OfProjects(ctx context.Context, projectIDs []int64) ([]int64, error)
	// ListGroups returns one page of groups and the total.
	ListGroups(ctx context.Context, f domain.GroupFilter) ([]domain.Namespace, int, error)
	// Search returns namespaces (personal and groups) whose path or name
	// contains search, limited to ids when idsSet (all when admin passes false).
	Search(ctx context.Context, search string, ids []int64, idsSet bool, p domain.Page) ([]domain.Namespace, int, error)
}

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

// MemberStore keeps memberships of projects and groups, and project shares.
type MemberStore interface {
	// Add inserts m; an existing membership is core.ErrConflict ("Member already exists").
	Add(ctx context.Context, m *domain.Member) error
	// Get returns one membership; core.ErrNotFound when absent.
	Get(ctx context.Context, src domain.MemberSource, sourceID, userID int64) (*domain.Member, error)
	// Update applies fn under a lock; core.ErrNotFound when absent.
	Update(ctx context.Context, src domain.MemberSource, sourceID, userID int64, fn func(m *domain.Member) error) (*domain.Member, error)
	// Remove deletes the membership; core.ErrNotFound when absent.
	Remove(ctx context.Context, src domain.MemberSource, sourceID, userID int64) error
	// List returns one page of a source's members ordered by user ID, and
	// the total; search matches username or name.
	List(ctx context.Context, src domain.MemberSource, sourceID int64, search string, p domain.Page) ([]domain.Member, int, error)
	// OfUser returns every membership of a user (projects and groups).
	OfUser(ctx context.Context, userID int64) ([]domain.Member, error)
	// InSources returns the user's memberships of the given sources.
	InSources(ctx context.Context, userID int64, src domain.MemberSource, sourceIDs []int64) ([]domain.Member, error)
	// CountOwners counts the active owners of a group.
	CountOwners(ctx context.Context, groupID int64) (int, error)

	// Share links a project to a group; an existing link is core.ErrConflict.
	Share(ctx context.Context, s *domain.ProjectShare) error
	// Unshare removes the link; core.ErrNotFound when absent.
	Unshare(ctx context.Context, projectID, groupID int64) error
	// SharesOfProject lists the groups a project is shared with.
	SharesOfProject(ctx context.Context, projectID int64) ([]domain.ProjectShare, error)
	// SharesWithGroups lists the shares of projects with any of these groups.
	SharesWithGroups(ctx context.Context, groupIDs []int64) ([]domain.ProjectShare, error)
	// SharesOfProjects lists the shares of any of these projects (rendering lists).
	SharesOfProjects(ctx context.Context, projectIDs []int64) ([]domain.ProjectShare, error)
}
