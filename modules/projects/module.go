// Package projects is the projects module: GitLab 9.x's projects API (list,
// user projects, details, create, create for a user, edit, delete, users,
// star, archive, fork, share) and GET /namespaces, plus the personal
// namespaces that follow users. Who may see and do what is decided by
// core/access; projects are rendered by core/apijson; repositories live
// behind ports.RepoStorage (and ports.RepoWriter for the default branch).
package projects

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the projects routes, keeps personal
// namespaces in step with users (in the users module's transactions), and
// runs fork copies: pending ones resume when the app starts, running ones
// are waited for when it stops. Its dependencies (ProjectStore,
// NamespaceStore, MemberStore, UserStore, RepoStorage, RepoWriter,
// TxManager, EventBus, Clock, *access.Policy, *zap.Logger, and for the
// handlers *apijson.ProjectPresenter) come from the app.
var Module = fx.Module("projects",
	fx.Provide(
		NewService,
		httpx.AsRoutes(routes),
	),
	fx.Invoke(func(s *Service, lc fx.Lifecycle) {
		s.subscribe()
		lc.Append(fx.Hook{
			OnStart: func(ctx context.Context) error { return s.forks.resume(ctx) },
			OnStop:  func(ctx context.Context) error { return s.forks.stop(ctx) },
		})
	}),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("projects") }),
)
