// Package groups is the groups module: GET/POST /groups, GET/PUT/DELETE
// /groups/:id, GET /groups/:id/projects and the administrators' project
// transfer POST /groups/:id/projects/:project_id. Who may see and do what
// is decided by core/access; projects are rendered by core/apijson.
package groups

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the groups routes. Its dependencies
// (NamespaceStore, ProjectStore, MemberStore, RepoStorage,
// TxManager, EventBus, Clock, *access.Policy, *zap.Logger, and for the
// handlers *apijson.ProjectPresenter) come from the app.
var Module = fx.Module("groups",
	fx.Provide(
		NewService,
		httpx.AsRoutes(routes),
	),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("groups") }),
)
