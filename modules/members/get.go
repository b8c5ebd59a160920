package members

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// Get returns one direct membership of the source ref names; 404 "Member
// Not Found" when absent.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref Ref, user UserRef) (*Entry, error) {
	src, err := s.source(ctx, caller, ref, false)
	if err != nil {
		return nil, err
	}
	if user.Invalid != nil {
		return nil, user.Invalid
	}
	m, err := s.member(ctx, src, user.ID)
	if err != nil {
		return nil, err
	}
	return s.entry(ctx, m)
}
