// Package broadcasts is the broadcast messages module: GitLab 9.x's
// broadcast messages API (lib/api/broadcast_messages.rb), the banners an
// administrator shows every user between two times. Every route is for
// administrators only: anonymous callers get 401, other users 403, before
// anything about the request is looked at (authenticate! and
// authenticated_as_admin! run before Grape's parameter checks).
package broadcasts

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the routes. Its ports (the broadcast
// message store, the transaction manager, Clock) come from the app.
var Module = fx.Module("broadcasts",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("broadcasts") }),
)
