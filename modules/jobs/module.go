// Package jobs is the public Jobs API (GitLab 9.x's /projects/:id/jobs:
// lists, a job, its trace and artifacts, cancel, retry, erase, keep and
// play), a runner's jobs (/runners/:id/jobs) and the commit statuses API
// (/projects/:id/repository/commits/:sha/statuses, /projects/:id/statuses/:sha).
//
// Every status change goes through the job state machine (domain/jobstate.go),
// is saved in a transaction and publishes domain.JobEvent in it; the ci
// module re-processes the pipeline on that event. This module never
// computes a pipeline's status.
package jobs

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the routes. Its dependencies (the CI
// stores, BlobStore, RepoReader, TxManager, EventBus, Clock,
// *access.Policy, the project presenter, config.Config) come from the app.
var Module = fx.Module("jobs",
	fx.Provide(NewService, newPresenter, httpx.AsRoutes(routes)),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("jobs") }),
)
