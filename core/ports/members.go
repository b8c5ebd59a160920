package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

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
