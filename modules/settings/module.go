// Package settings is the application settings module: GitLab 9.x's
// GET and PUT /application/settings for administrators, and the
// ports.Settings other modules read the settings in effect through
// (visibility defaults and restrictions, the default projects limit,
// password sign-in, the default branch protection). The settings live in
// one database row and are cached in memory: a node re-reads them at most
// every cacheTTL, and at once after its own PUT, so several nodes sharing a
// database agree within cacheTTL.
package settings

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Module provides *Service, ports.Settings and the routes.
var Module = fx.Module("settings",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Provide(func(s *Service) ports.Settings { return s }),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("settings") }),
)
