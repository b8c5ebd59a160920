// Package hooks is the project webhooks module: GitLab 9.x's project hooks
// API (list, get, add, edit, delete under /projects/:id/hooks), for
// masters and owners. Hooks are stored with their secret token, which the
// API never shows; every URL passes ports.URLGuard when it is saved.
// Delivering events to the hooks is not built yet.
package hooks

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the routes. Its ports (HookStore,
// URLGuard, Clock, the policy) come from the app.
var Module = fx.Module("hooks",
	fx.Invoke(func(s *Service) { s.subscribeSystem() }), // system events (system_events.go)
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("hooks") }),
)
