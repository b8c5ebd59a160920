package members

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// AddInput is a new membership.
type AddInput struct {
	UserID    int64
	Level     domain.AccessLevel
	ExpiresAt *time.Time // a date; nil: never
	Invalid   error      // parameter problems, reported after the access checks
}

// Add makes a user a member. Only those who may manage the source may;
// the level must be one the source allows; the user must exist; an
// existing membership is a 409.
func (s *Service) Add(ctx context.Context, caller *domain.Caller, ref Ref, in AddInput) (*Entry, error) {
	src, err := s.managed(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if err := s.validate(src.kind, in.Level, in.ExpiresAt, true); err != nil {
		return nil, err
	}
	if _, err := s.p.Users.Get(ctx, in.UserID); err != nil {
		if errors.Is(err, core.ErrNotFound) {
			return nil, core.NotFound("User")
		}
		return nil, fmt.Errorf("get user: %w", err)
	}
	m := &domain.Member{
		Source:      src.kind,
		SourceID:    src.id,
		UserID:      in.UserID,
		AccessLevel: in.Level,
		ExpiresAt:   in.ExpiresAt,
		CreatedAt:   s.now(),
		CreatedBy:   caller.UserID(),
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Members.Add(ctx, m); err != nil {
			if errors.Is(err, core.ErrConflict) {
				return core.Conflict("Member already exists")
			}
			return fmt.Errorf("add member: %w", err)
		}
		return s.p.Bus.Publish(ctx, domain.MemberJoined{Member: *m, ProjectID: src.projectID(), Actor: caller.UserID()})
	})
	if err != nil {
		return nil, err
	}
	return s.entry(ctx, m)
}
