package groups

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// ListInput are the group list's filters.
type ListInput struct {
	SkipIDs      []int64
	AllAvailable bool
	Search       string
	OrderBy      string // name or path
	Ascending    bool
	Owned        bool
	Statistics   bool // administrators only; silently left out for others
	Page         domain.Page
}

// List returns one page of groups and the total, filtered in the store
// with the policy's scope so the total is exact. Administrators get every
// group; users the groups they are direct members of, or with
// all_available every group they may see; anonymous callers public groups.
// owned limits to groups the caller directly owns.
func (s *Service) List(ctx context.Context, caller *domain.Caller, in ListInput) ([]Group, int, error) {
	f, err := s.p.Policy.GroupScope(ctx, caller)
	if err != nil {
		return nil, 0, err
	}
	uid := caller.UserID()
	switch {
	case in.Owned && uid != 0:
		ids, err := s.directGroups(ctx, uid, domain.Owner)
		if err != nil {
			return nil, 0, err
		}
		f.OnlyIDs, f.OnlyIDsSet = ids, true
	case in.Owned:
		return []Group{}, 0, nil
	case uid != 0 && !caller.IsAdmin() && !in.AllAvailable:
		ids, err := s.directGroups(ctx, uid, domain.Guest)
		if err != nil {
			return nil, 0, err
		}
		f.OnlyIDs, f.OnlyIDsSet = ids, true
	}
	f.SkipIDs = in.SkipIDs
	f.Search = in.Search
	f.OrderBy = in.OrderBy
	f.Ascending = in.Ascending
	f.Page = in.Page
	list, total, err := s.p.Namespaces.ListGroups(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list groups: %w", err)
	}
	names, err := s.fullNames(ctx, list)
	if err != nil {
		return nil, 0, err
	}
	var stats map[int64]Statistics
	// GitLab 9.x shows statistics to administrators and silently leaves
	// them out for everyone else.
	if in.Statistics && caller.IsAdmin() {
		if stats, err = s.statistics(ctx, list); err != nil {
			return nil, 0, err
		}
	}
	out := make([]Group, len(list))
	for i, g := range list {
		out[i] = Group{Namespace: g, FullName: names[g.ID]}
		if st, ok := stats[g.ID]; ok {
			out[i].Statistics = &st
		}
	}
	return out, total, nil
}

// directGroups are the groups the user is an active direct member of with
// at least level.
func (s *Service) directGroups(ctx context.Context, userID int64, level domain.AccessLevel) ([]int64, error) {
	ms, err := s.p.Members.OfUser(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("memberships: %w", err)
	}
	now := s.now()
	ids := []int64{}
	for _, m := range ms {
		if m.Source == domain.MemberOfGroup && m.AccessLevel >= level && m.Active(now) {
			ids = append(ids, m.SourceID)
		}
	}
	return ids, nil
}
