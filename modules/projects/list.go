package projects

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// ListInput are the filters of GET /projects and GET /users/:id/projects.
type ListInput struct {
	Archived                 *bool
	Visibility               domain.Visibility
	OrderBy                  domain.ProjectOrder
	Ascending                bool
	Search                   string
	Owned                    bool
	Membership               bool
	Starred                  bool
	WithIssuesEnabled        bool
	WithMergeRequestsEnabled bool
	Page                     domain.Page
}

// idSet is a set of projects given as project IDs and namespaces whose
// projects all belong to it.
type idSet struct {
	projects   []int64
	namespaces []int64
}

// List returns one page of the projects the caller may read, filtered in
// the store so the total is exact. Anonymous callers see public projects
// and nothing that is owned, membership or starred.
func (s *Service) List(ctx context.Context, caller *domain.Caller, in ListInput) ([]domain.Project, int, error) {
	return s.list(ctx, caller, in, nil)
}

// UserProjects lists the personal projects that the caller may read of
// the user userRef names (numeric ID or username; 404 "User Not Found").
func (s *Service) UserProjects(ctx context.Context, caller *domain.Caller, userRef string, in ListInput) ([]domain.Project, int, error) {
	user, err := s.userByRef(ctx, userRef)
	if err != nil {
		return nil, 0, err
	}
	ns, err := s.p.Namespaces.ForUser(ctx, user.ID)
	if errors.Is(err, core.ErrNotFound) {
		return []domain.Project{}, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("personal namespace: %w", err)
	}
	return s.list(ctx, caller, in, []int64{ns.ID})
}

func (s *Service) list(ctx context.Context, caller *domain.Caller, in ListInput, namespaces []int64) ([]domain.Project, int, error) {
	uid := caller.UserID()
	if uid == 0 && (in.Owned || in.Membership || in.Starred) {
		return []domain.Project{}, 0, nil
	}
	scope, err := s.p.Policy.ProjectScope(ctx, caller)
	if err != nil {
		return nil, 0, err
	}
	f := domain.ProjectFilter{
		Readable:                 scope,
		NamespaceIDs:             namespaces,
		Archived:                 in.Archived,
		Visibility:               in.Visibility,
		Search:                   strings.TrimSpace(in.Search),
		WithIssuesEnabled:        in.WithIssuesEnabled,
		WithMergeRequestsEnabled: in.WithMergeRequestsEnabled,
		OrderBy:                  in.OrderBy,
		Ascending:                in.Ascending,
		Page:                     in.Page,
	}
	if in.Starred {
		f.StarredBy = uid
	}
	if in.Owned {
		set, err := s.ownedSet(ctx, caller)
		if err != nil {
			return nil, 0, err
		}
		if err := s.restrict(ctx, &f, set); err != nil {
			return nil, 0, err
		}
	}
	if in.Membership {
		set, err := s.membershipSet(ctx, caller)
		if err != nil {
			return nil, 0, err
		}
		if err := s.restrict(ctx, &f, set); err != nil {
			return nil, 0, err
		}
	}
	list, total, err := s.p.Projects.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list projects: %w", err)
	}
	return list, total, nil
}

// restrict limits f to the projects of set. A set of namespaces alone
// becomes the namespace filter; otherwise the set is turned into project
// IDs (one query for the projects of its namespaces) and intersected with
// any earlier restriction.
func (s *Service) restrict(ctx context.Context, f *domain.ProjectFilter, set idSet) error {
	if len(set.projects) == 0 && len(f.NamespaceIDs) == 0 && !f.OnlyIDsSet {
		if len(set.namespaces) == 0 {
			f.OnlyIDs, f.OnlyIDsSet = nil, true
			return nil
		}
		f.NamespaceIDs = set.namespaces
		return nil
	}
	ids := append([]int64{}, set.projects...)
	if len(set.namespaces) > 0 {
		inNS, _, err := s.p.Projects.List(ctx, domain.ProjectFilter{
			Readable: domain.ReadScope{All: true}, NamespaceIDs: set.namespaces, OrderBy: domain.OrderByID, Ascending: true,
		})
		if err != nil {
			return fmt.Errorf("projects of namespaces: %w", err)
		}
		for _, p := range inNS {
			ids = append(ids, p.ID)
		}
	}
	if f.OnlyIDsSet {
		keep := map[int64]bool{}
		for _, id := range f.OnlyIDs {
			keep[id] = true
		}
		ids = slices.DeleteFunc(ids, func(id int64) bool { return !keep[id] })
	}
	f.OnlyIDs, f.OnlyIDsSet = ids, true
	return nil
}

// membershipSet is every project the caller has a membership level in:
// direct memberships, the projects of their groups (and the groups below
// them), projects shared with those groups, and their personal namespace.
// It is the policy's scope without the visibility part, computed as if the
// caller were not an administrator.
func (s *Service) membershipSet(ctx context.Context, caller *domain.Caller) (idSet, error) {
	plain := *caller
	u := *caller.User
	u.Admin = false
	plain.User = &u
	scope, err := s.p.Policy.ProjectScope(ctx, &plain)
	if err != nil {
		return idSet{}, err
	}
	return idSet{projects: scope.ProjectIDs, namespaces: scope.NamespaceIDs}, nil
}

// ownedSet is what the caller owns: their personal namespace, the groups
// they own (with the groups below them, where ownership is inherited) and
// projects they are direct owners of.
func (s *Service) ownedSet(ctx context.Context, caller *domain.Caller) (idSet, error) {
	var set idSet
	uid := caller.UserID()
	ns, err := s.p.Namespaces.ForUser(ctx, uid)
	switch {
	case err == nil:
		set.namespaces = append(set.namespaces, ns.ID)
	case !errors.Is(err, core.ErrNotFound):
		return set, fmt.Errorf("personal namespace: %w", err)
	}
	ms, err := s.p.Members.OfUser(ctx, uid)
	if err != nil {
		return set, fmt.Errorf("memberships: %w", err)
	}
	now := s.now()
	var groups []int64
	for _, m := range ms {
		if m.AccessLevel < domain.Owner || !m.Active(now) {
			continue
		}
		if m.Source == domain.MemberOfGroup {
			groups = append(groups, m.SourceID)
		} else {
			set.projects = append(set.projects, m.SourceID)
		}
	}
	if len(groups) > 0 {
		desc, err := s.p.Namespaces.Descendants(ctx, groups)
		if err != nil {
			return set, fmt.Errorf("subgroups: %w", err)
		}
		set.namespaces = append(append(set.namespaces, groups...), desc...)
	}
	return set, nil
}
