package jobs

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// target resolves the project for a change to one of its jobs: anonymous
// callers get 401, callers who may not read its jobs 404, readers who may
// not update them 403 (GitLab's update_build).
func (s *Service) target(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (access.Target, *domain.Job, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadJob)
	if err != nil {
		return t, nil, err
	}
	if err := t.Require(access.UpdateJob); err != nil {
		return t, nil, err
	}
	j, err := s.load(ctx, t, id)
	return t, j, err
}

// Cancel cancels the job if it has not finished; a finished job is
// answered as it is (GitLab's cancel is a no-op then). A running job's
// runner learns it through Job-Status: canceling.
func (s *Service) Cancel(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
	_, j, err := s.target(ctx, caller, ref, id)
	if err != nil {
		return nil, err
	}
	if !j.Cancelable() {
		return j, nil
	}
	now := s.now()
	return s.update(ctx, caller.UserID(), j, func(j *domain.Job) error {
		if !j.Cancelable() { // finished meanwhile
			return nil
		}
		return j.Cancel(now)
	})
}

// Retry creates a new job that runs the finished job again (pending at
// once) and marks the old one retried; 403 "Job is not retryable"
// otherwise.
func (s *Service) Retry(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
	_, j, err := s.target(ctx, caller, ref, id)
	if err != nil {
		return nil, err
	}
	if !j.Retryable() {
		return nil, errNotRetryable
	}
	return s.retry(ctx, caller.UserID(), j)
}

// errNotRetryable: GitLab retries any finished CI job, one already
// retried too (each retry makes a new job).
var errNotRetryable = core.Forbidden("Job is not retryable")

// retry copies job j into a new job, marks j retried and enqueues the
// copy, in one transaction with the copy's JobEvent. Its Previous is ""
// (a new job): the ci module then runs the later stages again (GitLab's
// mark_as_processable_after_stage).
func (s *Service) retry(ctx context.Context, actor int64, j *domain.Job) (*domain.Job, error) {
	id := j.ID
	now := s.now()
	var uid *int64
	if actor != 0 {
		uid = &actor
	}
	var out *domain.Job
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Pipelines.Lock(ctx, j.PipelineID); err != nil {
			return err
		}
		var copied domain.Job
		if _, err := s.p.Jobs.Update(ctx, id, func(j *domain.Job) error {
			if !j.Retryable() {
				return errNotRetryable
			}
			copied = j.RetryOf(now, uid)
			j.Retried = true
			return nil
		}); err != nil {
			return err
		}
		if err := s.p.Jobs.Create(ctx, &copied); err != nil {
			return fmt.Errorf("create the retry of job %d: %w", id, err)
		}
		n, err := s.p.Jobs.Update(ctx, copied.ID, func(j *domain.Job) error { return j.Enqueue(now) })
		if err != nil {
			return fmt.Errorf("enqueue the retry of job %d: %w", id, err)
		}
		out = n
		// Previous "" : the copy is a new job (the ci module then reopens
		// the stages after it, as GitLab's retry does).
		return s.published(ctx, n, "", actor)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Play starts a manual job (pending, played by the caller); a finished
// manual job is retried. 400 "Unplayable Job" for any other job.
func (s *Service) Play(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
	_, j, err := s.target(ctx, caller, ref, id)
	if err != nil {
		return nil, err
	}
	if !j.Playable() {
		return nil, errUnplayable
	}
	if j.Retryable() {
		return s.retry(ctx, caller.UserID(), j)
	}
	now := s.now()
	actor := caller.UserID()
	return s.update(ctx, actor, j, func(j *domain.Job) error {
		if !j.Playable() || j.Retryable() {
			return errUnplayable
		}
		if err := j.Enqueue(now); err != nil {
			return errUnplayable
		}
		j.UserID = &actor
		return nil
	})
}

var errUnplayable = core.BadRequest("400 Bad request - Unplayable Job")

// Erase removes the finished job's trace and artifacts and records who
// erased it; 403 "Job is not erasable!" otherwise. The files go after
// commit.
func (s *Service) Erase(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
	_, j, err := s.target(ctx, caller, ref, id)
	if err != nil {
		return nil, err
	}
	if !j.Erasable() {
		return nil, errNotErasable
	}
	now := s.now()
	actor := caller.UserID()
	var out *domain.Job
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		e, err := s.p.Jobs.Update(ctx, j.ID, func(j *domain.Job) error {
			if !j.Erasable() {
				return errNotErasable
			}
			j.ErasedAt, j.ErasedBy, j.ArtifactsExpireAt = &now, &actor, nil
			return nil
		})
		if err != nil {
			return err
		}
		out = e
		if err := s.p.Jobs.DeleteTrace(ctx, j.ID); err != nil {
			return fmt.Errorf("erase trace of job %d: %w", j.ID, err)
		}
		arts, err := s.p.Artifacts.DeleteOfJob(ctx, j.ID)
		if err != nil {
			return fmt.Errorf("erase artifacts of job %d: %w", j.ID, err)
		}
		keys := []string{domain.TraceKey(j.ProjectID, j.ID)}
		for _, a := range arts {
			keys = append(keys, a.Key)
		}
		s.p.Tx.AfterCommit(ctx, func(ctx context.Context) { s.deleteBlobs(ctx, keys) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

var errNotErasable = core.Forbidden("Job is not erasable!")

// deleteBlobs removes files whose records are gone; a failure leaves an
// orphan file, logged, never a broken record.
func (s *Service) deleteBlobs(ctx context.Context, keys []string) {
	for _, k := range keys {
		if err := s.p.Blobs.Delete(ctx, k); err != nil {
			s.p.Log.Warn("delete blob", zap.String("key", k), zap.Error(err))
		}
	}
}

// Keep keeps the job's artifacts past their expiry; 404 when it has none.
func (s *Service) Keep(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
	_, j, err := s.target(ctx, caller, ref, id)
	if err != nil {
		return nil, err
	}
	arts, err := s.p.Artifacts.OfJobs(ctx, []int64{j.ID})
	if err != nil {
		return nil, fmt.Errorf("artifacts of job %d: %w", j.ID, err)
	}
	if archiveOf(arts[j.ID]) == nil {
		return nil, errNoArtifacts
	}
	var out *domain.Job
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		k, err := s.p.Jobs.Update(ctx, j.ID, func(j *domain.Job) error {
			j.ArtifactsExpireAt = nil
			return nil
		})
		if err != nil {
			return err
		}
		out = k
		return s.p.Artifacts.Keep(ctx, j.ID)
	})
	if errors.Is(err, core.ErrNotFound) {
		return nil, errJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("keep artifacts of job %d: %w", j.ID, err)
	}
	return out, nil
}
