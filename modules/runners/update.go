package runners

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// heartbeatEvery throttles the writes of "running" updates: a job's
// UpdatedAt is the sweep's sign of life, minutes matter, seconds do not.
const heartbeatEvery = 30 * time.Second

// failureJobCanceled is what a runner reports after it canceled a job
// told "canceling".
const failureJobCanceled = "job_canceled"

// JobRefused is a 403 to a runner about a job that no longer runs; the
// runner reads its Job-Status.
type JobRefused struct{ Status string }

func (e *JobRefused) Error() string { return "job is not running (" + e.Status + ")" }

// Is makes JobRefused a core.ErrForbidden.
func (e *JobRefused) Is(target error) bool { return target == core.ErrForbidden }

// RangeRefused is a trace append at the wrong offset (416); Size is where
// the trace ends.
type RangeRefused struct{ Size int64 }

func (e *RangeRefused) Error() string { return fmt.Sprintf("trace ends at %d", e.Size) }

// errJobNotFound is the runner protocol's bare 404.
func errJobNotFound() error { return &core.Error{Kind: core.ErrNotFound, Msg: "404 Not Found"} }

// jobStatus is the Job-Status a runner is told: "canceling" while a
// canceled job's runner still works on it.
func jobStatus(j *domain.Job) string {
	if j.Status == domain.CICanceled && !j.RunnerFinished {
		return "canceling"
	}
	return string(j.Status)
}

// authJob finds job id for a runner presenting token: 404 unknown, 403
// wrong token, JobRefused when the token no longer works.
func (s *Service) authJob(ctx context.Context, id int64, token string) (*domain.Job, error) {
	if id <= 0 {
		return nil, errJobNotFound()
	}
	j, err := s.p.Jobs.GetByID(ctx, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errJobNotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("find job: %w", err)
	}
	if !tokenMatches(j, token) {
		return nil, errForbidden()
	}
	if !tokenLive(j) {
		return nil, &JobRefused{Status: jobStatus(j)}
	}
	return j, nil
}

// errNotLive stops an update whose job changed under the row lock.
var errNotLive = errors.New("job no longer runs")

// UpdateJob is PUT /jobs/:id: a heartbeat ("running") or the end
// ("success", "failed" with a failure reason). It returns the Job-Status
// to answer.
func (s *Service) UpdateJob(ctx context.Context, id int64, in UpdateJobInput) (string, error) {
	j, err := s.authJob(ctx, id, in.Token)
	if err != nil {
		return "", err
	}
	if in.Trace != nil && *in.Trace != "" && j.TraceSize == 0 {
		if _, err := s.p.Jobs.AppendTrace(ctx, j.ID, 0, []byte(*in.Trace)); err != nil && !errors.Is(err, core.ErrStale) {
			return "", fmt.Errorf("set trace: %w", err)
		}
	}
	switch in.State {
	case "", "running", "pending":
		return s.heartbeat(ctx, j)
	case "success", "failed":
		return s.finish(ctx, j, in)
	}
	return "", core.InvalidParam("state")
}

func (s *Service) heartbeat(ctx context.Context, j *domain.Job) (string, error) {
	now := s.now()
	if j.Status != domain.CIRunning || now.Sub(j.UpdatedAt) < heartbeatEvery {
		return jobStatus(j), nil
	}
	id := j.ID
	j, err := s.p.Jobs.Update(ctx, id, func(j *domain.Job) error {
		if !tokenLive(j) {
			return errNotLive
		}
		j.UpdatedAt = now
		return nil
	})
	if errors.Is(err, errNotLive) {
		return s.refusal(ctx, id)
	}
	if err != nil {
		return "", fmt.Errorf("job heartbeat: %w", err)
	}
	return jobStatus(j), nil
}

// refusal re-reads a job that stopped running during an update.
func (s *Service) refusal(ctx context.Context, id int64) (string, error) {
	j, err := s.p.Jobs.GetByID(ctx, id)
	if err != nil {
		return "", fmt.Errorf("find job: %w", err)
	}
	return "", &JobRefused{Status: jobStatus(j)}
}

// finish records the runner's final report: the job succeeds or fails,
// or a canceled job notes that its runner is done (it stays canceled). The
// trace is archived to the blob store after commit.
func (s *Service) finish(ctx context.Context, j *domain.Job, in UpdateJobInput) (string, error) {
	now := s.now()
	var out *domain.Job
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var prev domain.CIStatus
		var err error
		out, err = s.p.Jobs.Update(ctx, j.ID, func(j *domain.Job) error {
			if !tokenLive(j) {
				return errNotLive
			}
			prev = j.Status
			if j.Status == domain.CICanceled {
				j.RunnerFinished = true
				return nil
			}
			switch {
			case in.State == "success":
				if err := j.Succeed(now); err != nil {
					return err
				}
			case in.FailureReason == failureJobCanceled:
				if err := j.Cancel(now); err != nil {
					return err
				}
			default:
				if err := j.Drop(now, failureReason(in.FailureReason)); err != nil {
					return err
				}
			}
			j.RunnerFinished = true
			if cov := s.coverage(ctx, j); cov != nil {
				j.Coverage = cov
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := s.publishJob(ctx, out, prev, 0); err != nil {
			return err
		}
		s.p.Tx.AfterCommit(ctx, func(ctx context.Context) { s.archiveTrace(ctx, out) })
		return nil
	})
	if errors.Is(err, errNotLive) {
		return s.refusal(ctx, j.ID)
	}
	if err != nil {
		return "", fmt.Errorf("finish job: %w", err)
	}
	return jobStatus(out), nil
}

// knownFailures are the failure reasons a runner may report; others are
// recorded as unknown_failure.
var knownFailures = map[string]bool{
	domain.FailureUnknown: true, domain.FailureScript: true, domain.FailureAPI: true,
	domain.FailureStuckOrTimeout: true, domain.FailureRunnerSystem: true,
	domain.FailureMissingDeps: true, domain.FailureJobExecTimeout: true,
	"runner_unsupported": true, "stale_schedule": true, "archived_failure": true,
	"unmet_prerequisites": true, "scheduler_failure": true, "data_integrity_failure": true,
	"forward_deployment_failure": true, "user_blocked": true, "project_deleted": true,
	"insufficient_bridge_permissions": true, "downstream_bridge_project_not_found": true,
	"invalid_bridge_trigger": true, "bridge_pipeline_is_child_pipeline": true,
	"downstream_pipeline_creation_failed": true, "secrets_provider_not_found": true,
	"reached_max_descendant_pipelines_depth": true, "ip_restriction_failure": true,
	"reached_max_pipeline_hierarchy_size": true, "image_pull_failure": true,
}

func failureReason(r string) string {
	if knownFailures[r] {
		return r
	}
	return domain.FailureUnknown
}

var coverageNumber = regexp.MustCompile(`\d+(\.\d+)?`)

// coverage applies the job's coverage regex to its trace as GitLab does:
// the last line that matches, and the first number in that match.
func (s *Service) coverage(ctx context.Context, j *domain.Job) *float64 {
	expr := strings.TrimSpace(j.Spec.CoverageRegex)
	if expr == "" {
		return nil
	}
	if len(expr) >= 2 && strings.HasPrefix(expr, "/") && strings.HasSuffix(expr, "/") {
		expr = expr[1 : len(expr)-1]
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	trace, err := s.p.Jobs.Trace(ctx, j.ID)
	if err != nil || len(trace) == 0 {
		return nil
	}
	var last []byte
	for _, line := range bytes.Split(trace, []byte("\n")) {
		if m := re.Find(line); m != nil {
			last = m
		}
	}
	if last == nil {
		return nil
	}
	n := coverageNumber.Find(last)
	if n == nil {
		return nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return nil
	}
	return &f
}

// archiveTrace moves a finished job's trace from the database to the blob
// store (readers look in the database first, then at TraceKey).
func (s *Service) archiveTrace(ctx context.Context, j *domain.Job) {
	trace, err := s.p.Jobs.Trace(ctx, j.ID)
	if err != nil {
		s.log.Warn("read trace to archive", zapJob(j.ID), zapErr(err))
		return
	}
	if len(trace) == 0 {
		return
	}
	if _, err := s.p.Blob.Write(ctx, domain.TraceKey(j.ProjectID, j.ID), bytes.NewReader(trace), 0); err != nil {
		s.log.Warn("archive trace", zapJob(j.ID), zapErr(err))
		return
	}
	if err := s.p.Jobs.DeleteTrace(ctx, j.ID); err != nil {
		s.log.Warn("delete archived trace", zapJob(j.ID), zapErr(err))
	}
}

// maxTracePatch is the largest trace patch a runner sends.
const maxTracePatch = 1 << 20

// AppendTrace is PATCH /jobs/:id/trace: data goes at start, which must be
// the trace's current length (else RangeRefused with the length). It
// returns the new length and the Job-Status.
func (s *Service) AppendTrace(ctx context.Context, id int64, token string, contentRange *string, data []byte) (int64, string, error) {
	j, err := s.authJob(ctx, id, token)
	if err != nil {
		return 0, "", err
	}
	if contentRange == nil {
		return 0, "", core.BadRequest("400 Missing header Content-Range")
	}
	startText, _, _ := strings.Cut(strings.TrimSpace(*contentRange), "-")
	start, err := strconv.ParseInt(strings.TrimSpace(startText), 10, 64)
	if err != nil || start < 0 {
		return 0, "", &RangeRefused{Size: j.TraceSize}
	}
	size, err := s.p.Jobs.AppendTrace(ctx, j.ID, start, data)
	if errors.Is(err, core.ErrStale) {
		cur, gerr := s.p.Jobs.GetByID(ctx, j.ID)
		if gerr != nil {
			return 0, "", fmt.Errorf("find job: %w", gerr)
		}
		return 0, "", &RangeRefused{Size: cur.TraceSize}
	}
	if err != nil {
		return 0, "", fmt.Errorf("append trace: %w", err)
	}
	return size, jobStatus(j), nil
}
