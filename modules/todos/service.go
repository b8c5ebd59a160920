package todos

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Todos ports.TodoStore
	Log   *zap.Logger
}

// Service holds the todos use cases. It never sees HTTP types. Every use
// case is about the caller's own list, so there is no access rule beyond
// being signed in: another user's todo is simply not found.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// List returns one page of the caller's todos matching in, newest first,
// and the total.
func (s *Service) List(ctx context.Context, caller *domain.Caller, in ListInput, pg domain.Page) ([]domain.Todo, int, error) {
	f, err := in.filter(pg)
	if err != nil {
		return nil, 0, err
	}
	f.UserID = caller.UserID()
	list, total, err := s.p.Todos.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list todos of user %d: %w", f.UserID, err)
	}
	return list, total, nil
}

// MarkDone marks one of the caller's todos done; marking a done todo
// again changes nothing. Unknown and other users' todos are 404s alike.
func (s *Service) MarkDone(ctx context.Context, caller *domain.Caller, id int64) (*domain.Todo, error) {
	t, err := s.p.Todos.MarkDone(ctx, caller.UserID(), id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("Todo")
	}
	if err != nil {
		return nil, fmt.Errorf("mark todo %d done: %w", id, err)
	}
	return t, nil
}

// MarkAllDone marks every pending todo of the caller done.
func (s *Service) MarkAllDone(ctx context.Context, caller *domain.Caller) error {
	n, err := s.p.Todos.MarkAllDone(ctx, caller.UserID())
	if err != nil {
		return fmt.Errorf("mark todos of user %d done: %w", caller.UserID(), err)
	}
	s.p.Log.Debug("marked todos done", zap.Int64("user", caller.UserID()), zap.Int("count", n))
	return nil
}
