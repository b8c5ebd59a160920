package groups

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// Get is a group's detail as the caller sees it; missing and unreadable
// groups are the same 404.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (*Detail, error) {
	g, err := s.p.Policy.ResolveGroup(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	return s.detail(ctx, caller, g.Group)
}
