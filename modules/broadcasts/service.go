package broadcasts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Clock    ports.Clock
	Tx       ports.TxManager
	Messages ports.BroadcastMessageStore
}

// Service holds the broadcast message use cases. It never sees HTTP types.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// errNotFound is GitLab 9.x's answer for an unknown id: the
// RecordNotFound of BroadcastMessage.find, which the API renders as a
// plain "404 Not found".
var errNotFound = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not found"}

// requireAdmin is the API's before filters: authenticate! (401), then
// authenticated_as_admin! (403).
func requireAdmin(caller *domain.Caller) error {
	if caller.UserID() == 0 {
		return core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return core.Forbidden("")
	}
	return nil
}

// List reads a page of the messages, oldest first.
func (s *Service) List(ctx context.Context, caller *domain.Caller, pg domain.Page, invalid error) (*Listed, error) {
	if err := requireAdmin(caller); err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	ms, total, err := s.p.Messages.List(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("list broadcast messages: %w", err)
	}
	return &Listed{Messages: ms, Total: total}, nil
}

// Current returns the messages showing now, for a banner; no route
// serves it (GitLab 9.x renders it in its web pages only).
func (s *Service) Current(ctx context.Context) ([]domain.BroadcastMessage, error) {
	ms, err := s.p.Messages.Current(ctx, s.now())
	if err != nil {
		return nil, fmt.Errorf("current broadcast messages: %w", err)
	}
	return ms, nil
}

// Get reads message id.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, id MessageID) (*domain.BroadcastMessage, error) {
	if err := requireAdmin(caller); err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	return s.read(ctx, id.ID)
}

func (s *Service) read(ctx context.Context, id int64) (*domain.BroadcastMessage, error) {
	m, err := s.p.Messages.Get(ctx, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read broadcast message %d: %w", id, err)
	}
	return m, nil
}

// Create adds a message with GitLab's defaults for what in leaves out:
// shown from now for an hour, GitLab's colours.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, in Input) (*domain.BroadcastMessage, error) {
	if err := requireAdmin(caller); err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	now := s.now()
	// A blank time on POST is Grape's nil, which its default replaces.
	in.BlankStartsAt, in.BlankEndsAt = false, false
	m := &domain.BroadcastMessage{StartsAt: now, EndsAt: now.Add(time.Hour),
		Color: domain.DefaultBroadcastColor, Font: domain.DefaultBroadcastFont, CreatedAt: now, UpdatedAt: now}
	in.apply(m)
	if err := in.validate(m); err != nil {
		return nil, err
	}
	if err := s.p.Messages.Create(ctx, m); err != nil {
		return nil, fmt.Errorf("create broadcast message: %w", err)
	}
	return m, nil
}

// Update changes what in gives and validates the result under the row's
// lock, so the times are checked against what is saved.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, id MessageID, in Input) (*domain.BroadcastMessage, error) {
	if err := requireAdmin(caller); err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	now := s.now()
	m, err := s.p.Messages.Update(ctx, id.ID, func(m *domain.BroadcastMessage) error {
		in.apply(m)
		m.UpdatedAt = now
		return in.validate(m)
	})
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("update broadcast message %d: %w", id.ID, err)
	}
	return m, nil
}

// Delete removes message id and returns it, as 9.x's DELETE answers.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, id MessageID) (*domain.BroadcastMessage, error) {
	if err := requireAdmin(caller); err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	var m *domain.BroadcastMessage
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		if m, err = s.read(ctx, id.ID); err != nil {
			return err
		}
		err = s.p.Messages.Delete(ctx, id.ID)
		if errors.Is(err, core.ErrNotFound) {
			return errNotFound // deleted meanwhile
		}
		if err != nil {
			return fmt.Errorf("delete broadcast message %d: %w", id.ID, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}
