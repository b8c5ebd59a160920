package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Jobs      ports.JobStore
	Pipelines ports.PipelineStore
	Runners   ports.RunnerStore
	Artifacts ports.ArtifactStore
	Projects  ports.ProjectStore
	Blobs     ports.BlobStore
	Repos     ports.RepoReader
	Tx        ports.TxManager
	Bus       ports.EventBus
	Clock     ports.Clock
	Policy    *access.Policy
	Log       *zap.Logger
}

// Service holds the jobs and commit status use cases. It never sees HTTP
// types.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// Found is a job with the project it belongs to.
type Found struct {
	Project *domain.Project
	Job     *domain.Job
}

// load reads job id of the target's project; an id that cannot exist is
// as missing as an unknown one, and so is a commit status of another
// system (GitLab's jobs API finds builds only).
func (s *Service) load(ctx context.Context, t access.Target, id int64) (*domain.Job, error) {
	if id <= 0 {
		return nil, errJobNotFound
	}
	j, err := s.p.Jobs.Get(ctx, t.Project.ID, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read job: %w", err)
	}
	if j.Kind != domain.JobBuild {
		return nil, errJobNotFound
	}
	return j, nil
}

// errJobNotFound is the 404 of a job that is not in the project.
var errJobNotFound = core.NotFound("Job")

// update changes job j with change inside a transaction and publishes a
// JobEvent there when its status moved (the ci module follows the
// pipeline). change returns the error GitLab answers when the job cannot
// take it.
func (s *Service) update(ctx context.Context, actor int64, j *domain.Job, change func(j *domain.Job) error) (*domain.Job, error) {
	var out *domain.Job
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Pipelines.Lock(ctx, j.PipelineID); err != nil {
			return err
		}
		var prev domain.CIStatus
		u, err := s.p.Jobs.Update(ctx, j.ID, func(j *domain.Job) error {
			prev = j.Status
			return change(j)
		})
		if err != nil {
			return err
		}
		out = u
		return s.published(ctx, u, prev, actor)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// published publishes the job's event when its status moved.
func (s *Service) published(ctx context.Context, j *domain.Job, prev domain.CIStatus, actor int64) error {
	if j.Status == prev {
		return nil
	}
	if err := s.p.Bus.Publish(ctx, domain.JobEvent{Job: *j, Previous: prev, Actor: actor}); err != nil {
		return fmt.Errorf("publish job event: %w", err)
	}
	return nil
}
