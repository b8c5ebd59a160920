// Package repository is the repository module: GitLab 9.x's branches, tags
// and releases, commits (list, get, multi-file commits, cherry-pick, diff,
// comments), tree, files, blobs, compare and archive under /api/v4, and git
// smart HTTP at /<namespace>/<project>.git. Git lives behind
// ports.RepoBackend; who may read and write is asked of core/access.
package repository

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service, the API routes and the git HTTP routes.
var Module = fx.Module("repository",
	fx.Provide(
		NewService,
		httpx.AsRoutes(apiRoutes),
		httpx.AsRoutes(gitRoutes),
	),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("repository") }),
)

// apiRoutes gathers the /api/v4 endpoints; each file contributes its own.
func apiRoutes(s *Service) httpx.Routes {
	h := handlers{s}
	var all []httpx.Route
	all = append(all, h.branchRoutes()...)
	all = append(all, h.tagRoutes()...)
	all = append(all, h.commitRoutes()...)
	all = append(all, h.fileRoutes()...)
	return httpx.Routes{Module: "repository", Routes: all}
}

// gitRoutes are the smart HTTP endpoints, at the server root.
func gitRoutes(s *Service) httpx.Routes {
	return httpx.Routes{Module: "repository-git", Root: true, Routes: handlers{s}.gitHTTPRoutes()}
}
