// Package todos is the todos module: GitLab 9.x's to-do list of the
// signed-in user (GET /todos, POST /todos/:id/mark_as_done, POST
// /todos/mark_as_done). Other modules create todos through
// ports.TodoStore; this one lists them and marks them done.
package todos

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the /todos routes. Its dependencies
// (TodoStore and *zap.Logger for the service, *apijson.TodoPresenter for
// the handlers) come from the app.
var Module = fx.Module("todos",
	fx.Provide(
		NewService,
		httpx.AsRoutes(routes),
	),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("todos") }),
)
