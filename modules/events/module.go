// Package events is the activity feed: it records domain events published on
// the bus and serves GET /events, GET /users/:id/events and GET
// /projects/:id/events.
package events

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module records feed events, inside the publishers' transactions, and
// serves the feed. Its dependencies (stores, EventBus, Clock,
// *access.Policy, config.Config) come from the app.
var Module = fx.Module("events",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Invoke(func(s *Service) { s.subscribe() }),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("events") }),
)
