package hooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Hooks  ports.HookStore
	Guard  ports.URLGuard
	Clock  ports.Clock
	Policy *access.Policy
}

// Service holds the hook use cases. It never sees HTTP types.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// errHookNotFound is GitLab's answer for a hook id of another project or
// of none (ActiveRecord's RecordNotFound from user_project.hooks.find).
var errHookNotFound = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not found"}

// target resolves the project for the hooks API as GitLab's before
// filters do: anonymous callers 401 first (authenticate!), the project's
// 404, then admin_project (masters, 403 below).
func (s *Service) target(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return t, err
	}
	return t, t.Require(access.AdminHooks)
}

// load reads hook id of the target's project.
func (s *Service) load(ctx context.Context, t access.Target, id HookID) (*domain.ProjectHook, error) {
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	h, err := s.p.Hooks.Get(ctx, t.Project.ID, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errHookNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read hook: %w", err)
	}
	return h, nil
}
