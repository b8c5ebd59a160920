package members

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Remove ends a membership: those who may manage the source remove anyone,
// members remove themselves (leave); never the last owner of a group or the
// owner of a personal project.
func (s *Service) Remove(ctx context.Context, caller *domain.Caller, ref Ref, user UserRef) error {
	src, err := s.source(ctx, caller, ref, true)
	if err != nil {
		return err
	}
	if user.Invalid != nil {
		return user.Invalid
	}
	userID := user.ID
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		m, err := s.member(ctx, src, userID)
		if err != nil {
			return err
		}
		if src.manage != nil && caller.UserID() != userID {
			return src.manage
		}
		if err := s.protected(ctx, src, m); err != nil {
			return err
		}
		if err := s.p.Members.Remove(ctx, src.kind, src.id, userID); err != nil {
			if errors.Is(err, core.ErrNotFound) {
				return core.NotFound("Member")
			}
			return fmt.Errorf("remove member: %w", err)
		}
		return s.p.Bus.Publish(ctx, domain.MemberLeft{Member: *m, ProjectID: src.projectID(), Actor: caller.UserID()})
	})
}
