package members

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// UpdateInput changes a membership. ExpiresAt applies when ExpiresSet
// (nil then clears the date).
type UpdateInput struct {
	Level      domain.AccessLevel
	ExpiresAt  *time.Time
	ExpiresSet bool
	Invalid    error // parameter problems, reported after the access checks
}

// Update changes a member's level and expiry. Only those who may manage
// the source may; the last owner of a group and the owner of a personal
// project are not changed by anyone (GitLab 9.x's member policies).
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref Ref, user UserRef, in UpdateInput) (*Entry, error) {
	src, err := s.managed(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if user.Invalid != nil {
		return nil, user.Invalid
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	userID := user.ID
	var out *domain.Member
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		m, err := s.member(ctx, src, userID)
		if err != nil {
			return err
		}
		if err := s.protected(ctx, src, m); err != nil {
			return err
		}
		exp := m.ExpiresAt
		if in.ExpiresSet {
			exp = in.ExpiresAt
		}
		if err := s.validate(src.kind, in.Level, exp, in.ExpiresSet); err != nil {
			return err
		}
		out, err = s.p.Members.Update(ctx, src.kind, src.id, userID, func(m *domain.Member) error {
			m.AccessLevel = in.Level
			if in.ExpiresSet {
				m.ExpiresAt = in.ExpiresAt
			}
			return nil
		})
		if errors.Is(err, core.ErrNotFound) {
			return core.NotFound("Member")
		}
		if err != nil {
			return fmt.Errorf("update member: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.entry(ctx, out)
}
