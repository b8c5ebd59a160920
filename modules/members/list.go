package members

import (
	"context"
	"fmt"
	"sort"

	"github.com/hearth-forge/hearth/core/domain"
)

// ListInput is a members list's.
type ListInput struct {
	Query   string // username or name
	Page    domain.Page
	Invalid error // parameter problems, reported once the source resolves
}

// List returns one page of the direct members of the source ref names.
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref Ref, in ListInput) ([]Entry, int, error) {
	src, err := s.listed(ctx, caller, ref, in)
	if err != nil {
		return nil, 0, err
	}
	query, pg := in.Query, in.Page
	ms, total, err := s.p.Members.List(ctx, src.kind, src.id, query, pg)
	if err != nil {
		return nil, 0, fmt.Errorf("list members: %w", err)
	}
	entries, err := s.withUsers(ctx, ms)
	if err != nil {
		return nil, 0, err
	}
	return entries, total, nil
}

// All returns one page of the inherited view of the source ref names: its
// direct members and the members of every group above it (a project's group and its
// ancestors; a group's ancestors), each user once with their highest active
// level, ordered by user ID.
func (s *Service) All(ctx context.Context, caller *domain.Caller, ref Ref, in ListInput) ([]Entry, int, error) {
	src, err := s.listed(ctx, caller, ref, in)
	if err != nil {
		return nil, 0, err
	}
	query, pg := in.Query, in.Page
	type key struct {
		kind domain.MemberSource
		id   int64
	}
	sources := []key{{src.kind, src.id}}
	var groupID int64
	switch src.kind {
	case domain.MemberOfProject:
		ns, err := s.p.Namespaces.Get(ctx, src.project.NamespaceID)
		if err != nil {
			return nil, 0, fmt.Errorf("project namespace: %w", err)
		}
		if ns.Kind == domain.NamespaceGroup {
			groupID = ns.ID
			sources = append(sources, key{domain.MemberOfGroup, ns.ID})
		}
	case domain.MemberOfGroup:
		groupID = src.id
	}
	if groupID != 0 {
		anc, err := s.p.Namespaces.AncestorIDs(ctx, []int64{groupID})
		if err != nil {
			return nil, 0, fmt.Errorf("group ancestors: %w", err)
		}
		for _, id := range anc {
			sources = append(sources, key{domain.MemberOfGroup, id})
		}
	}
	now := s.now()
	best := map[int64]domain.Member{}
	for _, k := range sources {
		ms, _, err := s.p.Members.List(ctx, k.kind, k.id, query, domain.Page{})
		if err != nil {
			return nil, 0, fmt.Errorf("list members: %w", err)
		}
		for _, m := range ms {
			if !m.Active(now) {
				continue
			}
			if cur, ok := best[m.UserID]; !ok || m.AccessLevel > cur.AccessLevel {
				best[m.UserID] = m
			}
		}
	}
	ids := make([]int64, 0, len(best))
	for id := range best {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	total := len(ids)
	if pg.PerPage > 0 {
		from := min(pg.Offset(), total)
		ids = ids[from:min(from+pg.PerPage, total)]
	}
	page := make([]domain.Member, len(ids))
	for i, id := range ids {
		page[i] = best[id]
	}
	entries, err := s.withUsers(ctx, page)
	if err != nil {
		return nil, 0, err
	}
	return entries, total, nil
}

// listed resolves the source a list is of, then reports the list's
// parameter problems.
func (s *Service) listed(ctx context.Context, caller *domain.Caller, ref Ref, in ListInput) (*source, error) {
	src, err := s.source(ctx, caller, ref, false)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	return src, nil
}
