package ci

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Listed is one page of a project's pipelines and the total.
type Listed struct {
	Pipelines []domain.Pipeline
	Total     int
}

// List returns a page of the project's pipelines, filtered and ordered as
// GitLab's PipelinesFinder does. A project whose pipelines the caller may
// not read is its 404.
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ListInput) (*Listed, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadPipeline)
	if err != nil {
		return nil, err
	}
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	f.ProjectID = t.Project.ID
	list, total, err := s.p.Pipelines.List(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("list pipelines: %w", err)
	}
	return &Listed{Pipelines: list, Total: total}, nil
}

// Get reads pipeline id of the project.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id PipelineID) (*domain.Pipeline, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadPipeline)
	if err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	return s.loadPipeline(ctx, t, id.ID)
}

// writable resolves a pipeline for a change the caller needs ability
// for: 401 anonymous, the project's 404, 403, then the pipeline's 404.
func (s *Service) writable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id PipelineID, ability access.Ability) (access.Target, *domain.Pipeline, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadPipeline)
	if err != nil {
		return t, nil, err
	}
	if err := t.Require(ability); err != nil {
		return t, nil, err
	}
	if id.Invalid != nil {
		return t, nil, id.Invalid
	}
	p, err := s.loadPipeline(ctx, t, id.ID)
	return t, p, err
}

// Retry retries the pipeline's failed and canceled jobs and lets its
// skipped ones be processed again (GitLab's RetryPipelineService), then
// processes it.
func (s *Service) Retry(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id PipelineID) (*domain.Pipeline, error) {
	t, p, err := s.writable(ctx, caller, ref, id, access.UpdatePipeline)
	if err != nil {
		return nil, err
	}
	uid := caller.UserID()
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		ctx, done := markProcessing(ctx, p.ID)
		defer done()
		if err := s.p.Pipelines.Lock(ctx, p.ID); err != nil {
			return err
		}
		jobs, err := s.p.Jobs.OfPipeline(ctx, p.ID)
		if err != nil {
			return fmt.Errorf("jobs of pipeline %d: %w", p.ID, err)
		}
		for i := range jobs {
			j := &jobs[i]
			if j.Kind != domain.JobBuild || j.Retried {
				continue
			}
			switch {
			case (j.Status == domain.CIFailed || j.Status == domain.CICanceled) && j.Retryable():
				if _, err := s.retryJob(ctx, j, &uid, false, uid); err != nil {
					return err
				}
			case j.Status == domain.CISkipped:
				if err := s.reprocess(ctx, j, uid); err != nil {
					return err
				}
			}
		}
		return s.process(ctx, p.ID, uid, -1)
	})
	if err != nil {
		return nil, err
	}
	return s.loadPipeline(ctx, t, p.ID)
}

// reprocess makes a skipped job created again, to be processed with its
// stage (GitLab's process event: skipped -> created).
func (s *Service) reprocess(ctx context.Context, j *domain.Job, actor int64) error {
	saved, err := s.p.Jobs.Update(ctx, j.ID, func(cur *domain.Job) error {
		if cur.Status != domain.CISkipped {
			return errMoved
		}
		cur.Status = domain.CICreated
		return nil
	})
	if err != nil {
		return nil // moved meanwhile: nothing to reprocess
	}
	return s.p.Bus.Publish(ctx, domain.JobEvent{Job: *saved, Previous: domain.CISkipped, Actor: actor})
}

// Cancel cancels the pipeline's running, pending and created jobs
// (GitLab's cancel_running; manual actions stay), each with its JobEvent,
// then processes it.
func (s *Service) Cancel(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id PipelineID) (*domain.Pipeline, error) {
	t, p, err := s.writable(ctx, caller, ref, id, access.UpdatePipeline)
	if err != nil {
		return nil, err
	}
	uid := caller.UserID()
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		ctx, done := markProcessing(ctx, p.ID)
		defer done()
		if err := s.p.Pipelines.Lock(ctx, p.ID); err != nil {
			return err
		}
		jobs, err := s.p.Jobs.OfPipeline(ctx, p.ID)
		if err != nil {
			return fmt.Errorf("jobs of pipeline %d: %w", p.ID, err)
		}
		for _, j := range jobs {
			if !cancelable(j.Status) {
				continue
			}
			var previous domain.CIStatus
			saved, err := s.p.Jobs.Update(ctx, j.ID, func(cur *domain.Job) error {
				if !cancelable(cur.Status) {
					return errMoved
				}
				previous = cur.Status
				return cur.Cancel(s.now())
			})
			if err != nil {
				continue // it finished meanwhile
			}
			if err := s.p.Bus.Publish(ctx, domain.JobEvent{Job: *saved, Previous: previous, Actor: uid}); err != nil {
				return err
			}
		}
		return s.process(ctx, p.ID, uid, -1)
	})
	if err != nil {
		return nil, err
	}
	return s.loadPipeline(ctx, t, p.ID)
}

// cancelable is GitLab's CommitStatus.cancelable scope.
func cancelable(st domain.CIStatus) bool {
	return st == domain.CIRunning || st == domain.CIPending || st == domain.CICreated
}

// Delete removes the pipeline with its jobs, traces and artifacts (owners
// only); the files go from the blob store after the commit.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id PipelineID) error {
	_, p, err := s.writable(ctx, caller, ref, id, access.DestroyPipeline)
	if err != nil {
		return err
	}
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		jobs, err := s.p.Jobs.OfPipeline(ctx, p.ID)
		if err != nil {
			return fmt.Errorf("jobs of pipeline %d: %w", p.ID, err)
		}
		artifacts, err := s.p.Pipelines.Delete(ctx, p.ProjectID, p.ID)
		if err != nil {
			return fmt.Errorf("delete pipeline %d: %w", p.ID, err)
		}
		keys := make([]string, 0, len(jobs)+len(artifacts))
		for _, j := range jobs {
			keys = append(keys, domain.TraceKey(j.ProjectID, j.ID))
		}
		for _, a := range artifacts {
			keys = append(keys, a.Key)
		}
		s.p.Tx.AfterCommit(ctx, func(ctx context.Context) {
			for _, k := range keys {
				if err := s.p.Blob.Delete(ctx, k); err != nil {
					s.log.Warn("delete file of deleted pipeline", zap.Int64("pipeline_id", p.ID), zap.String("key", k), zap.Error(err))
				}
			}
		})
		return nil
	})
}
