package ci

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// maxRounds bounds one processing: each round either changes a job or
// ends it, and a pipeline has few stages, so this is never reached by a
// pipeline that converges.
const maxRounds = 32

// errMoved: a job changed under the processor (it holds the pipeline's
// lock, so only a writer that does not process, like a runner taking a
// job, can do that); the next round reads it again.
var errMoved = errors.New("job moved meanwhile")

// process brings pipeline id up to date with its jobs, as GitLab's
// Ci::ProcessPipelineService and Pipeline#update_status do: failed jobs
// with retries left are retried, the created jobs of stages whose turn
// came are enqueued, made manual or skipped (each with a JobEvent), and
// the pipeline takes the status its jobs make, with its timestamps,
// duration and coverage. A change of status publishes a PipelineEvent,
// success a PipelineSucceeded. It runs in one transaction, holding the
// pipeline's row lock, so that concurrent job events of one pipeline are
// processed one after the other.
//
// afterStage >= 0 first makes the skipped CI jobs of the later stages
// processable again (GitLab's mark_as_processable_after_stage, which a
// retried job triggers).
func (s *Service) process(ctx context.Context, pipelineID, actor int64, afterStage int) error {
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		ctx, done := markProcessing(ctx, pipelineID)
		defer done()
		var previous domain.CIStatus
		var jobs []domain.Job
		changed := false
		p, err := s.p.Pipelines.Update(ctx, pipelineID, func(p *domain.Pipeline) error {
			previous = p.Status
			if afterStage >= 0 {
				if err := s.reprocessAfter(ctx, pipelineID, afterStage, actor); err != nil {
					return err
				}
			}
			var err error
			if jobs, err = s.settle(ctx, pipelineID, actor); err != nil {
				return err
			}
			now := s.now()
			changed = p.Follow(jobs, now)
			p.Coverage = domain.PipelineCoverage(jobs)
			return nil
		})
		if err != nil {
			return fmt.Errorf("process pipeline %d: %w", pipelineID, err)
		}
		if !changed {
			return nil
		}
		return s.publishPipeline(ctx, p, jobs, previous, actor)
	})
}

// reprocessAfter makes the skipped CI jobs of the stages after stage
// created again.
func (s *Service) reprocessAfter(ctx context.Context, pipelineID int64, stage int, actor int64) error {
	jobs, err := s.p.Jobs.OfPipeline(ctx, pipelineID)
	if err != nil {
		return fmt.Errorf("jobs of pipeline %d: %w", pipelineID, err)
	}
	for i := range jobs {
		j := &jobs[i]
		if j.Kind == domain.JobBuild && !j.Retried && j.Status == domain.CISkipped && j.StageIdx > stage {
			if err := s.reprocess(ctx, j, actor); err != nil {
				return err
			}
		}
	}
	return nil
}

// settle moves the pipeline's jobs until nothing moves and returns them.
func (s *Service) settle(ctx context.Context, pipelineID, actor int64) ([]domain.Job, error) {
	for range maxRounds {
		jobs, err := s.p.Jobs.OfPipeline(ctx, pipelineID)
		if err != nil {
			return nil, fmt.Errorf("jobs of pipeline %d: %w", pipelineID, err)
		}
		retried, err := s.autoRetry(ctx, jobs, actor)
		if err != nil {
			return nil, err
		}
		if retried {
			continue
		}
		now := s.now()
		moved := domain.ProcessJobs(jobs, now)
		if len(moved) == 0 {
			return jobs, nil
		}
		for _, i := range moved {
			if err := s.saveProcessed(ctx, jobs[i], actor); err != nil {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("pipeline %d did not settle in %d rounds", pipelineID, maxRounds)
}

// saveProcessed stores the status processing gave a created job and
// publishes its JobEvent.
func (s *Service) saveProcessed(ctx context.Context, want domain.Job, actor int64) error {
	saved, err := s.p.Jobs.Update(ctx, want.ID, func(j *domain.Job) error {
		if j.Status != domain.CICreated {
			return errMoved
		}
		j.Status, j.QueuedAt = want.Status, want.QueuedAt
		return nil
	})
	if errors.Is(err, errMoved) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("save job %d: %w", want.ID, err)
	}
	return s.p.Bus.Publish(ctx, domain.JobEvent{Job: *saved, Previous: domain.CICreated, Actor: actor})
}

// autoRetry retries, once each, the latest failed CI jobs whose retry
// keyword allows another attempt (GitLab 9.5's retry: the copy is
// enqueued at once). It reports whether it retried any.
func (s *Service) autoRetry(ctx context.Context, jobs []domain.Job, actor int64) (bool, error) {
	retried := false
	for i := range jobs {
		j := &jobs[i]
		if j.Kind != domain.JobBuild || j.Retried || j.Status != domain.CIFailed || j.Attempt >= j.Spec.Retry {
			continue
		}
		if _, err := s.retryJob(ctx, j, j.UserID, true, actor); err != nil {
			return false, err
		}
		retried = true
	}
	return retried, nil
}

// retryJob supersedes j by a copy (GitLab's RetryBuildService): the old
// job is marked retried, the new one created, enqueued when enqueue is
// set (otherwise left created for processing), and announced.
func (s *Service) retryJob(ctx context.Context, j *domain.Job, userID *int64, automatic bool, actor int64) (*domain.Job, error) {
	now := s.now()
	n := j.RetryOf(now, userID)
	if automatic {
		n.Attempt = j.Attempt + 1
		if err := n.Enqueue(now); err != nil {
			return nil, err
		}
	}
	if _, err := s.p.Jobs.Update(ctx, j.ID, func(old *domain.Job) error {
		if old.Retried {
			return errMoved
		}
		old.Retried = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("mark job %d retried: %w", j.ID, err)
	}
	if err := s.p.Jobs.Create(ctx, &n); err != nil {
		return nil, fmt.Errorf("create retry of job %d: %w", j.ID, err)
	}
	if err := s.p.Bus.Publish(ctx, domain.JobEvent{Job: n, Actor: actor}); err != nil {
		return nil, err
	}
	return &n, nil
}

// publishPipeline announces a pipeline's new status (and its success to
// the merge requests waiting for it).
func (s *Service) publishPipeline(ctx context.Context, p *domain.Pipeline, jobs []domain.Job, previous domain.CIStatus, actor int64) error {
	if err := s.p.Bus.Publish(ctx, domain.PipelineEvent{Pipeline: *p, Jobs: latest(jobs), Previous: previous, Actor: actor}); err != nil {
		return err
	}
	if p.Status == domain.CISuccess && !p.Tag {
		return s.p.Bus.Publish(ctx, domain.PipelineSucceeded{ProjectID: p.ProjectID, PipelineID: p.ID, Ref: p.Ref, SHA: p.SHA, At: s.now()})
	}
	return nil
}

// latest leaves out the jobs superseded by a retry.
func latest(jobs []domain.Job) []domain.Job {
	out := make([]domain.Job, 0, len(jobs))
	for _, j := range jobs {
		if !j.Retried {
			out = append(out, j)
		}
	}
	return out
}
