// Package snippets is the snippet module: GitLab 9.x's
// /projects/:id/snippets API (list, read, raw content, create, update,
// idempotent delete, and the user agent detail administrators use for
// spam checks) and its /snippets API of personal snippets, which belong
// to their author and no project. Notes on project snippets belong to the
// notes module; personal snippets have none here.
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
