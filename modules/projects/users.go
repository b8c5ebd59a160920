package projects

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// UsersInput is GET /projects/:id/users's.
type UsersInput struct {
	Search  string // username or name
	Page    domain.Page
	Invalid error // parameter problems, reported once the project resolves
}

// Users lists the users with access to a project (GitLab's team.users):
// direct members, members of its group and the groups above, members of
// the groups it is shared with (and the groups above them), and the owner
// of a personal project. Memberships are
// read per source in a constant number of queries; the page is cut from
// the sorted set of user IDs, so the total is exact.
func (s *Service) Users(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in UsersInput) ([]domain.User, int, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadProject)
	if err != nil {
		return nil, 0, err
	}
	if in.Invalid != nil {
		return nil, 0, in.Invalid
	}
	proj, search, pg := t.Project, strings.TrimSpace(in.Search), in.Page
	now := s.now()
	ns, err := s.p.Namespaces.Get(ctx, proj.NamespaceID)
	if err != nil {
		return nil, 0, fmt.Errorf("project namespace: %w", err)
	}
	ids := map[int64]bool{}
	collect := func(src domain.MemberSource, id int64) error {
		ms, _, err := s.p.Members.List(ctx, src, id, search, domain.Page{})
		if err != nil {
			return fmt.Errorf("members: %w", err)
		}
		for _, m := range ms {
			if m.Active(now) {
				ids[m.UserID] = true
			}
		}
		return nil
	}
	if err := collect(domain.MemberOfProject, proj.ID); err != nil {
		return nil, 0, err
	}
	var groups []int64
	if ns.Kind == domain.NamespaceGroup {
		groups = append(groups, ns.ID)
	} else if ns.OwnerID != nil {
		owner, err := s.p.Users.Get(ctx, *ns.OwnerID)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return nil, 0, fmt.Errorf("namespace owner: %w", err)
		}
		if err == nil && matchesUser(owner, search) {
			ids[owner.ID] = true
		}
	}
	shares, err := s.p.Members.SharesOfProject(ctx, proj.ID)
	if err != nil {
		return nil, 0, fmt.Errorf("project shares: %w", err)
	}
	for _, sh := range shares {
		if sh.ExpiresAt == nil || now.Before(*sh.ExpiresAt) {
			groups = append(groups, sh.GroupID)
		}
	}
	if len(groups) > 0 {
		anc, err := s.p.Namespaces.AncestorIDs(ctx, groups)
		if err != nil {
			return nil, 0, fmt.Errorf("group ancestors: %w", err)
		}
		seen := map[int64]bool{}
		for _, g := range append(groups, anc...) {
			if seen[g] {
				continue
			}
			seen[g] = true
			if err := collect(domain.MemberOfGroup, g); err != nil {
				return nil, 0, err
			}
		}
	}
	all := make([]int64, 0, len(ids))
	for id := range ids {
		all = append(all, id)
	}
	slices.Sort(all)
	total := len(all)
	start := min(pg.Offset(), total)
	end := total
	if pg.PerPage > 0 {
		end = min(start+pg.PerPage, total)
	}
	page := all[start:end]
	if len(page) == 0 {
		return []domain.User{}, total, nil
	}
	users, err := s.p.Users.GetMany(ctx, page)
	if err != nil {
		return nil, 0, fmt.Errorf("load users: %w", err)
	}
	slices.SortFunc(users, func(a, b domain.User) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return users, total, nil
}

// matchesUser is the member search (username or name, case-insensitive).
func matchesUser(u *domain.User, search string) bool {
	if search == "" {
		return true
	}
	q := strings.ToLower(search)
	return strings.Contains(strings.ToLower(u.Username), q) || strings.Contains(strings.ToLower(u.Name), q)
}
