// Package issues is the issue tracker module: GitLab 9.x's issues,
// milestones and labels API, subscriptions and todos on issues, and the
// closing of issues by merged merge requests (through the event bus).
package issues

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the API routes, and closes issues when a
// merge request that names them is merged. It needs the app to provide
// the issue, merge request and todo presenters (core/apijson).
var Module = fx.Module("issues",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Invoke(func(s *Service) { s.subscribe() }),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("issues") }),
)
