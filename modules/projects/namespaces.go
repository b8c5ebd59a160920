package projects

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// NamespacesInput is GET /namespaces's.
type NamespacesInput struct {
	Search  string // path or name
	Page    domain.Page
	Invalid error // parameter problems, reported after the sign-in check
}

// Namespaces lists the namespaces the caller may use: every one for
// administrators; for others their personal namespace and the groups they
// are members of (with the groups below them, where membership is
// inherited), as GitLab 9.x's User#namespaces.
func (s *Service) Namespaces(ctx context.Context, caller *domain.Caller, in NamespacesInput) ([]domain.Namespace, int, error) {
	if caller.UserID() == 0 {
		return nil, 0, core.Unauthenticated()
	}
	if in.Invalid != nil {
		return nil, 0, in.Invalid
	}
	search, pg := strings.TrimSpace(in.Search), in.Page
	if caller.IsAdmin() {
		list, total, err := s.p.Namespaces.Search(ctx, search, nil, false, pg)
		if err != nil {
			return nil, 0, fmt.Errorf("search namespaces: %w", err)
		}
		return list, total, nil
	}
	ids := []int64{}
	ns, err := s.p.Namespaces.ForUser(ctx, caller.UserID())
	switch {
	case err == nil:
		ids = append(ids, ns.ID)
	case !errors.Is(err, core.ErrNotFound):
		return nil, 0, fmt.Errorf("personal namespace: %w", err)
	}
	ms, err := s.p.Members.OfUser(ctx, caller.UserID())
	if err != nil {
		return nil, 0, fmt.Errorf("memberships: %w", err)
	}
	now := s.now()
	var groups []int64
	for _, m := range ms {
		if m.Source == domain.MemberOfGroup && m.Active(now) {
			groups = append(groups, m.SourceID)
		}
	}
	if len(groups) > 0 {
		desc, err := s.p.Namespaces.Descendants(ctx, groups)
		if err != nil {
			return nil, 0, fmt.Errorf("subgroups: %w", err)
		}
		ids = append(append(ids, groups...), desc...)
	}
	list, total, err := s.p.Namespaces.Search(ctx, search, ids, true, pg)
	if err != nil {
		return nil, 0, fmt.Errorf("search namespaces: %w", err)
	}
	return list, total, nil
}
