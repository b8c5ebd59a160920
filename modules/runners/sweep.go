package runners

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// sweepBatch bounds the work of one sweep per kind; the next sweep takes
// the rest.
const sweepBatch = 100

// timeoutGrace is how long past its own timeout a running job may go
// before the sweep fails it (its runner enforces the timeout itself and
// reports job_execution_timeout; the sweep catches runners that vanished).
const timeoutGrace = 5 * time.Minute

// SweepResult counts what one sweep did.
type SweepResult struct {
	StuckRunning  int
	StuckPending  int
	ArtifactsGone int
	// Abandoned counts canceled jobs whose silent runner lost the job
	// token.
	Abandoned int
}

// errSkip leaves a job another node or the runner changed meanwhile.
var errSkip = errors.New("job changed meanwhile")

// Sweep runs one sweep now: it fails running jobs whose runner went
// silent for the heartbeat timeout or that ran well past their own
// timeout, fails pending jobs no runner took within the pending timeout
// (stuck_or_timeout_failure), and deletes expired artifacts (file, then
// record). Every job is re-checked under its row lock, so several nodes
// may sweep at once.
func (s *Service) Sweep(ctx context.Context) (SweepResult, error) {
	var res SweepResult
	now := s.now()
	ci := s.p.Config.CI
	stale, err := s.p.Jobs.Stale(ctx, now.Add(-ci.HeartbeatTimeout), now.Add(-ci.PendingTimeout), sweepBatch)
	if err != nil {
		return res, fmt.Errorf("stale jobs: %w", err)
	}
	var errs []error
	for _, j := range stale {
		dropped, err := s.dropStuck(ctx, j.ID, now)
		if err != nil {
			errs = append(errs, err)
		}
		switch dropped {
		case domain.CIRunning:
			res.StuckRunning++
		case domain.CIPending:
			res.StuckPending++
		case domain.CICanceled:
			res.Abandoned++
		}
	}
	n, err := s.sweepOverdue(ctx, now)
	res.StuckRunning += n
	if err != nil {
		errs = append(errs, err)
	}
	n, err = s.sweepArtifacts(ctx, now)
	res.ArtifactsGone = n
	if err != nil {
		errs = append(errs, err)
	}
	return res, errors.Join(errs...)
}

// dropStuck fails job id if it is still stuck at now; it returns the
// status it dropped from ("" when it left it alone).
func (s *Service) dropStuck(ctx context.Context, id int64, now time.Time) (domain.CIStatus, error) {
	ci := s.p.Config.CI
	var prev domain.CIStatus
	var out *domain.Job
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.p.Jobs.Update(ctx, id, func(j *domain.Job) error {
			switch {
			case j.Kind != domain.JobBuild:
				return errSkip
			case j.Status == domain.CIRunning:
				if now.Sub(j.UpdatedAt) < ci.HeartbeatTimeout && !s.overdue(j, now) {
					return errSkip
				}
			case j.Status == domain.CICanceled && !j.RunnerFinished:
				// Canceled while running and its runner went silent: it
				// will not report the end, so its job token dies now.
				if now.Sub(j.UpdatedAt) < ci.HeartbeatTimeout {
					return errSkip
				}
				prev = j.Status
				j.RunnerFinished = true
				return nil
			case j.Status == domain.CIPending:
				queued := j.CreatedAt
				if j.QueuedAt != nil {
					queued = *j.QueuedAt
				}
				if now.Sub(queued) < ci.PendingTimeout {
					return errSkip
				}
			default:
				return errSkip
			}
			prev = j.Status
			return j.Drop(now, domain.FailureStuckOrTimeout)
		})
		if err != nil {
			return err
		}
		if prev == domain.CICanceled {
			return nil // no status change: nothing to announce
		}
		if err := s.publishJob(ctx, out, prev, 0); err != nil {
			return err
		}
		if prev == domain.CIRunning {
			s.p.Tx.AfterCommit(ctx, func(ctx context.Context) { s.archiveTrace(ctx, out) })
		}
		return nil
	})
	if errors.Is(err, errSkip) || errors.Is(err, core.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("drop stuck job %d: %w", id, err)
	}
	s.log.Info("dropped stuck job", zapJob(id), zapStatus(string(prev)))
	return prev, nil
}

// overdue reports whether a running job ran past its timeout and the grace.
func (s *Service) overdue(j *domain.Job, now time.Time) bool {
	if j.StartedAt == nil {
		return false
	}
	limit := time.Duration(s.jobTimeout(j, nil))*time.Second + timeoutGrace
	return now.Sub(*j.StartedAt) > limit
}

// sweepOverdue fails running jobs past their own timeout whose runner
// still sends heartbeats but never finishes (a page of the oldest).
func (s *Service) sweepOverdue(ctx context.Context, now time.Time) (int, error) {
	n := 0
	var errs []error
	for page := 1; page <= 10; page++ {
		list, total, err := s.p.Jobs.List(ctx, domain.JobFilter{
			Kind: domain.JobBuild, Statuses: []domain.CIStatus{domain.CIRunning},
			Page: domain.Page{Page: page, PerPage: sweepBatch},
		})
		if err != nil {
			return n, fmt.Errorf("running jobs: %w", err)
		}
		for i := range list {
			if !s.overdue(&list[i], now) {
				continue
			}
			dropped, err := s.dropStuck(ctx, list[i].ID, now)
			if err != nil {
				errs = append(errs, err)
			}
			if dropped != "" {
				n++
			}
		}
		if page*sweepBatch >= total {
			break
		}
	}
	return n, errors.Join(errs...)
}

// sweepArtifacts deletes expired artifacts: the file first, so that a
// crash between the two leaves a record the next sweep deletes again
// rather than a file nothing points to.
func (s *Service) sweepArtifacts(ctx context.Context, now time.Time) (int, error) {
	list, err := s.p.Artifacts.Expired(ctx, now, sweepBatch)
	if err != nil {
		return 0, fmt.Errorf("expired artifacts: %w", err)
	}
	n := 0
	var errs []error
	for _, a := range list {
		if err := s.p.Blob.Delete(ctx, a.Key); err != nil {
			errs = append(errs, fmt.Errorf("delete artifact file %d: %w", a.ID, err))
			continue
		}
		if err := s.p.Artifacts.Delete(ctx, a.ID); err != nil && !errors.Is(err, core.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete artifact %d: %w", a.ID, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// startSweeper runs Sweep every configured interval while the app runs.
func startSweeper(lc fx.Lifecycle, s *Service) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				s.sweepLoop(ctx)
			}()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case <-done:
				return nil
			case <-stop.Done():
				return stop.Err()
			}
		},
	})
}

func (s *Service) sweepLoop(ctx context.Context) {
	every := s.p.Config.CI.SweepInterval
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("sweep", zapErr(err))
			}
		}
	}
}
