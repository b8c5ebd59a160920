// Package members is the members module: the memberships of projects and
// groups (GET/POST /projects/:id/members, GET/PUT/DELETE
// /projects/:id/members/:user_id, the same under /groups/:id, and the
// inherited view .../members/all). One implementation serves both sources;
// who may see and manage them is decided by core/access.
package members

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the members routes. Its dependencies
// (MemberStore, UserStore, NamespaceStore, TxManager, EventBus, Clock,
// *access.Policy) come from the app.
var Module = fx.Module("members",
	fx.Provide(
		NewService,
		httpx.AsRoutes(routes),
	),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("members") }),
)
