package runners_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/modules/runners"
)

func TestSweep(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		ctx := context.Background()
		cfg := s.Config.CI
		pid, _ := s.project("sweep")
		_, rtok := s.runner(s.regToken(pid), nil)
		jobs := s.pipeline(pid, jobSpec{name: "silent"}, jobSpec{name: "alive"}, jobSpec{name: "waiting", tags: []string{"nobody"}})
		silent := s.take(rtok)
		alive := s.take(rtok)
		atok := alive["token"].(string)
		if r := s.upload(idOf(alive), atok, "expire_in=2+days", 100); r.status != 201 {
			t.Fatalf("upload: %d %s", r.status, r.body)
		}
		s.expect(202, "PATCH", fmt.Sprintf("/jobs/%d/trace", idOf(silent)), []byte("started\n"), "Job-Token", silent["token"].(string), "Content-Range", "0-7")

		// Nothing is stale yet.
		if res, err := s.svc.Sweep(ctx); err != nil || res != (runners.SweepResult{}) {
			t.Fatalf("early sweep: %+v %v", res, err)
		}

		// Past the heartbeat timeout; the live runner sent a heartbeat.
		s.Advance(cfg.HeartbeatTimeout + time.Minute)
		s.expect(200, "PUT", fmt.Sprintf("/jobs/%d", idOf(alive)), map[string]any{"token": atok, "state": "running"})
		res, err := s.svc.Sweep(ctx)
		if err != nil || res.StuckRunning != 1 || res.StuckPending != 0 {
			t.Fatalf("heartbeat sweep: %+v %v", res, err)
		}
		j := s.job(jobs["silent"].ID)
		if j.Status != domain.CIFailed || j.FailureReason != domain.FailureStuckOrTimeout {
			t.Fatalf("silent job %+v", j)
		}
		if s.job(jobs["alive"].ID).Status != domain.CIRunning {
			t.Fatal("a job with a live runner was dropped")
		}
		// Its trace was archived; its runner hears the end.
		if rc, _, err := s.blob.Open(ctx, domain.TraceKey(pid, j.ID)); err != nil {
			t.Fatalf("trace of the dropped job: %v", err)
		} else {
			rc.Close()
		}
		r := s.expect(403, "PUT", fmt.Sprintf("/jobs/%d", j.ID), map[string]any{"token": silent["token"], "state": "running"})
		if r.header.Get("Job-Status") != "failed" {
			t.Fatalf("Job-Status %q", r.header.Get("Job-Status"))
		}

		// Past the pending timeout (and the artifact's two days): the
		// job nobody could take fails, the expired artifact goes, and the
		// live job, now far past its own timeout (an hour by default),
		// fails although its runner still beats.
		s.Advance(cfg.PendingTimeout + 48*time.Hour)
		s.expect(200, "PUT", fmt.Sprintf("/jobs/%d", idOf(alive)), map[string]any{"token": atok, "state": "running"})
		res, err = s.svc.Sweep(ctx)
		if err != nil || res.StuckPending != 1 || res.ArtifactsGone != 1 || res.StuckRunning != 1 {
			t.Fatalf("pending sweep: %+v %v", res, err)
		}
		if j := s.job(jobs["waiting"].ID); j.Status != domain.CIFailed || j.FailureReason != domain.FailureStuckOrTimeout {
			t.Fatalf("waiting job %+v", j)
		}
		if j := s.job(jobs["alive"].ID); j.Status != domain.CIFailed || j.FailureReason != domain.FailureStuckOrTimeout {
			t.Fatalf("overdue job %+v", j)
		}
		arts, _ := s.artifacts.OfJobs(ctx, []int64{idOf(alive)})
		if len(arts) != 0 {
			t.Fatalf("expired artifacts left: %+v", arts)
		}
		if _, _, err := s.blob.Open(ctx, domain.ArtifactKey(pid, idOf(alive), "archive")); !errors.Is(err, core.ErrNotFound) {
			t.Fatalf("expired file left: %v", err)
		}
		// Sweeping again finds nothing.
		if res, err := s.svc.Sweep(ctx); err != nil || res != (runners.SweepResult{}) {
			t.Fatalf("idle sweep: %+v %v", res, err)
		}
	})
}

// TestSweepConcurrent runs sweeps side by side, as several nodes do: each
// stuck job is dropped once.
func TestSweepConcurrent(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid, _ := s.project("many")
		var specs []jobSpec
		for i := range 10 {
			specs = append(specs, jobSpec{name: fmt.Sprintf("j%d", i), tags: []string{"none"}})
		}
		s.pipeline(pid, specs...)
		s.Advance(s.Config.CI.PendingTimeout + time.Minute)
		results := make(chan runners.SweepResult, 4)
		for range 4 {
			go func() {
				res, err := s.svc.Sweep(context.Background())
				if err != nil {
					t.Error(err)
				}
				results <- res
			}()
		}
		total := 0
		for range 4 {
			total += (<-results).StuckPending
		}
		if total != 10 {
			t.Fatalf("dropped %d jobs in all, want 10", total)
		}
	})
}

// TestSweepAbandonedCancel: a job canceled while it runs keeps its token
// until its runner reports the end; a runner that never does loses it at
// the heartbeat timeout, and the job stays canceled.
func TestSweepAbandonedCancel(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		ctx := context.Background()
		pid, _ := s.project("abandoned")
		_, rtok := s.runner(s.regToken(pid), nil)
		jobs := s.pipeline(pid, jobSpec{name: "build"})
		job := s.take(rtok)
		tok := job["token"].(string)
		s.Expect(201, "POST", fmt.Sprintf("/projects/%d/jobs/%d/cancel", pid, jobs["build"].ID), s.RootToken, nil)
		// The runner has not heard yet: its token still reads.
		s.expect(200, "GET", fmt.Sprintf("/projects/%d", pid), nil, "Job-Token", tok)

		s.Advance(s.Config.CI.HeartbeatTimeout / 2)
		if res, err := s.svc.Sweep(ctx); err != nil || res.Abandoned != 0 {
			t.Fatalf("early sweep: %+v %v", res, err)
		}
		s.expect(200, "GET", fmt.Sprintf("/projects/%d", pid), nil, "Job-Token", tok)

		s.Advance(s.Config.CI.HeartbeatTimeout)
		if res, err := s.svc.Sweep(ctx); err != nil || res != (runners.SweepResult{Abandoned: 1}) {
			t.Fatalf("sweep: %+v %v", res, err)
		}
		s.expect(401, "GET", fmt.Sprintf("/projects/%d", pid), nil, "Job-Token", tok)
		if j := s.job(jobs["build"].ID); j.Status != domain.CICanceled || !j.RunnerFinished {
			t.Fatalf("abandoned job %+v", j)
		}
		// A second sweep finds nothing more.
		if res, err := s.svc.Sweep(ctx); err != nil || res != (runners.SweepResult{}) {
			t.Fatalf("second sweep: %+v %v", res, err)
		}
	})
}
