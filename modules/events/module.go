// Package events is the activity feed: it records domain events published on
// the bus and serves GET /events and GET /users/:id/events.
package events

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
)

// Module records feed events and serves the feed.
var Module = fx.Module("events",
	fx.Provide(NewService, routes()),
	fx.Invoke(func(s *Service) { s.subscribe() }),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("events") }),
)
