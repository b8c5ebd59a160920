// Package hooks is the webhooks module: GitLab 9.x's project hooks API
// (list, get, add, edit, delete under /projects/:id/hooks) for masters and
// owners, with later GitLab's recent deliveries (list and resend under
// /projects/:id/hooks/:hook_id/events) and test (.../test/:trigger)
// routes; the system hooks API (/hooks) for admins; the subscriptions that
// keep each project event hooks want as one row in the publisher's
// transaction and fan it out to GitLab's payloads afterwards (enqueue.go,
// fanout.go), and queue system events' payloads in the publisher's
// transaction (system_events.go); and the delivery workers that send the
// outbox (deliver.go). Hooks are stored with their
// secret token, which the API never shows; every URL passes
// ports.URLGuard when it is saved, and the sender checks it again.
package hooks

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the routes, and runs the delivery workers
// while the app runs. Its ports (the hook and delivery stores, the sender,
// URLGuard, Clock, the policy) come from the app.
var Module = fx.Module("hooks",
	fx.Invoke(func(s *Service) { s.subscribeSystem() }), // system events (system_events.go)
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Invoke(startDelivery),
	fx.Invoke(func(s *Service) { s.subscribe() }),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("hooks") }),
)
