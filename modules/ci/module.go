// Package ci is the pipeline module: pipelines created from
// .gitlab-ci.yml on every push, the pipeline state machine that follows
// job events (GitLab's Ci::ProcessPipelineService), GitLab 9.x's
// pipelines API (list, get, create, retry, cancel, delete), the
// project CI variables API, pipeline triggers (their API and the
// trigger itself, whose variables reach the jobs) and POST /ci/lint. Jobs, commit statuses and runners are other
// modules': they change jobs and publish domain.JobEvent, and the
// pipeline follows here.
package ci

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service and the routes, creates pipelines on pushes
// and re-processes pipelines on job events. Its ports (the CI stores,
// RepoReader, PipelineConfigParser, BlobStore, bus, tx, clock, policy)
// come from the app.
var Module = fx.Module("ci",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Invoke(func(s *Service) { s.subscribe() }),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("ci") }),
)
