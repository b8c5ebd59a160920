// Package repository is the repository module: GitLab 9.x's branches, tags
// and releases, commits (list, get, multi-file commits, cherry-pick, diff,
// comments), tree, files, blobs, compare, contributors, archive and
// protected branches under /api/v4, and git smart HTTP at
// /<namespace>/<project>.git and over SSH (GitShell).
//
// routes.go lists every endpoint; the handlers*.go files decode requests,
// call one use case and render. The use cases (branches.go, tags.go,
// commits.go, comments.go, files.go, compare.go, contributors.go,
// archive.go, protectedbranches.go, and git.go and push.go for git over
// HTTP) take ctx, the caller, the project reference and typed input, ask
// core/access who may do what, and reach git through the narrow ports
// ports.RepoReader, ports.RepoWriter and ports.RepoTransport.
package repository

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service, the API routes (the protected branches API a
// group of its own), the git HTTP routes and
// ports.GitShell (git over SSH, for the SSH server).
var Module = fx.Module("repository",
	fx.Provide(
		NewService,
		NewGitShell,
		httpx.AsRoutes(apiRoutes),
		httpx.AsRoutes(protectedBranchRoutes),
		httpx.AsRoutes(gitRoutes),
	),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("repository") }),
)
