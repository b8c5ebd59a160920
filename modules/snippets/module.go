// Package snippets is the project snippet module: GitLab 9.x's
// /projects/:id/snippets API (list, read, raw content, create, update,
// idempotent delete, and the user agent detail administrators use for
// spam checks). Notes on snippets belong to the notes module.
package snippets

import (
	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the snippet routes. Its dependencies
// (SnippetStore, UserStore, NamespaceStore, Clock, *access.Policy,
// config.Config) come from the app.
var Module = fx.Module("snippets",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
)
