package groups

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// ProjectsInput are the group projects list's filters.
type ProjectsInput struct {
	Archived   *bool
	Visibility domain.Visibility
	OrderBy    domain.ProjectOrder
	Ascending  bool
	Search     string
	Owned      bool
	Starred    bool
	Page       domain.Page
	Invalid    error // parameter problems, reported once the group resolves
}

// Projects returns one page of the projects directly in the group ref
// names that the caller may read, and the total. owned keeps them only when the caller
// directly owns the group (GitLab 9.x's owned_projects); starred keeps the
// caller's starred ones.
func (s *Service) Projects(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ProjectsInput) ([]domain.Project, int, error) {
	t, err := s.p.Policy.ResolveGroup(ctx, caller, ref)
	if err != nil {
		return nil, 0, err
	}
	if in.Invalid != nil {
		return nil, 0, in.Invalid
	}
	g, uid := t.Group, caller.UserID()
	if (in.Owned || in.Starred) && uid == 0 {
		return []domain.Project{}, 0, nil
	}
	if in.Owned {
		m, err := s.p.Members.Get(ctx, domain.MemberOfGroup, g.ID, uid)
		if errors.Is(err, core.ErrNotFound) || (err == nil && (m.AccessLevel < domain.Owner || !m.Active(s.now()))) {
			return []domain.Project{}, 0, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("group membership: %w", err)
		}
	}
	scope, err := s.p.Policy.ProjectScope(ctx, caller)
	if err != nil {
		return nil, 0, err
	}
	f := domain.ProjectFilter{
		Readable:     scope,
		NamespaceIDs: []int64{g.ID},
		Archived:     in.Archived,
		Visibility:   in.Visibility,
		Search:       strings.TrimSpace(in.Search),
		OrderBy:      in.OrderBy,
		Ascending:    in.Ascending,
		Page:         in.Page,
	}
	if in.Starred {
		f.StarredBy = uid
	}
	list, total, err := s.p.Projects.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("group projects: %w", err)
	}
	return list, total, nil
}
