// Package notes is the notes module: GitLab 9.x's comments on issues,
// merge requests and project snippets, with the award emoji a comment of
// a single emoji gives instead, and the award emoji API on issues, merge
// requests, project snippets and their notes. Creating a note publishes
// a NoteEvent in its transaction, which the events feed records.
package notes

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the notes routes of every noteable kind.
// Its dependencies (stores, TxManager, EventBus, Clock, *access.Policy,
// config.Config) come from the app.
var Module = fx.Module("notes",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("notes") }),
)
