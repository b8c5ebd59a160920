// Package mergerequests is the merge request module: GitLab 9.x's merge
// request API (list, create, update, merge, merge when the pipeline
// succeeds, subscriptions, todos, closing issues) over the git ports.
// Merges never use a worktree: a merge commit is written, the target
// moves by compare-and-swap, and the outcome is recorded; reads repair
// what a crash left between the last two steps.
package mergerequests

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the API routes, follows pushes and
// pipelines, and repairs interrupted merges at start-up. It needs the app
// to provide the merge request, issue and todo presenters (core/apijson).
var Module = fx.Module("mergerequests",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Invoke(func(lc fx.Lifecycle, s *Service) {
		s.subscribe()
		lc.Append(fx.StartHook(func(ctx context.Context) error { return s.repairAll(ctx) }))
	}),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("mergerequests") }),
)
