package runners_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// running seeds a project with one pending job, registers a runner and
// hands the job to it; it returns the project, the job and its token.
func (s *server) running(name string, spec domain.JobSpec) (int64, domain.Job, string) {
	s.T.Helper()
	pid, _ := s.project(name)
	_, token := s.runner(s.regToken(pid), nil)
	jobs := s.pipeline(pid, jobSpec{name: "build", spec: spec})
	p := s.take(token)
	return pid, jobs["build"], p["token"].(string)
}

func TestJobUpdatesAndTrace(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid, job, tok := s.running("trace", domain.JobSpec{CoverageRegex: `/Coverage: \d+\.\d+%/`})
		path := fmt.Sprintf("/jobs/%d", job.ID)
		tracePath := path + "/trace"

		// Trace appends.
		r := s.expect(400, "PATCH", tracePath, []byte("hello\n"), "Job-Token", tok, "Content-Type", "text/plain")
		if string(r.body) != `{"message":"400 Missing header Content-Range"}` {
			t.Fatalf("missing range: %s", r.body)
		}
		r = s.expect(202, "PATCH", tracePath, []byte("hello\n"), "Job-Token", tok, "Content-Range", "0-5", "Content-Type", "text/plain")
		if r.header.Get("Range") != "0-6" || r.header.Get("Job-Status") != "running" || r.header.Get("X-GitLab-Trace-Update-Interval") == "" {
			t.Fatalf("append headers %v", r.header)
		}
		// A duplicate and a gap are refused with where the trace ends.
		r = s.expect(416, "PATCH", tracePath, []byte("hello\n"), "Job-Token", tok, "Content-Range", "0-5")
		if r.header.Get("Range") != "0-6" {
			t.Fatalf("duplicate: Range %q", r.header.Get("Range"))
		}
		r = s.expect(416, "PATCH", tracePath, []byte("x"), "Job-Token", tok, "Content-Range", "10-10")
		if r.header.Get("Range") != "0-6" {
			t.Fatalf("gap: Range %q", r.header.Get("Range"))
		}
		r = s.expect(202, "PATCH", tracePath, []byte("Coverage: 81.5%\n"), "Job-Token", tok, "Content-Range", "6-21")
		if r.header.Get("Range") != "0-22" {
			t.Fatalf("second append: Range %q", r.header.Get("Range"))
		}
		s.expect(403, "PATCH", tracePath, []byte("x"), "Job-Token", "glcbt-wrong", "Content-Range", "22-22")
		s.expect(404, "PATCH", "/jobs/999999/trace", []byte("x"), "Job-Token", tok, "Content-Range", "22-22")
		s.expect(413, "PATCH", tracePath, []byte(strings.Repeat("x", 1<<20+1)), "Job-Token", tok, "Content-Range", "22-1048598")

		// Heartbeats.
		r = s.expect(200, "PUT", path, map[string]any{"token": tok, "state": "running"})
		if r.header.Get("Job-Status") != "running" || r.header.Get("X-GitLab-Trace-Update-Interval") == "" {
			t.Fatalf("heartbeat headers %v", r.header)
		}
		s.expect(200, "PUT", path, map[string]any{"state": "running"}, "Job-Token", tok)
		s.expect(403, "PUT", path, map[string]any{"token": "glcbt-wrong", "state": "running"})
		s.expect(404, "PUT", "/jobs/999999", map[string]any{"token": tok, "state": "running"})
		s.expect(400, "PUT", path, map[string]any{"token": tok, "state": "exploded"})

		// The end: success, coverage, the trace archived.
		r = s.expect(200, "PUT", path, map[string]any{"token": tok, "state": "success", "exit_code": 0,
			"output": map[string]any{"checksum": "crc32:0", "bytesize": 22}})
		if r.header.Get("Job-Status") != "success" {
			t.Fatalf("final Job-Status %q", r.header.Get("Job-Status"))
		}
		j := s.job(job.ID)
		if j.Status != domain.CISuccess || !j.RunnerFinished || j.FinishedAt == nil || j.Coverage == nil || *j.Coverage != 81.5 {
			t.Fatalf("finished job %+v", j)
		}
		ctx := context.Background()
		if tr, _ := s.jobs.Trace(ctx, job.ID); len(tr) != 0 {
			t.Fatalf("trace still in the database: %q", tr)
		}
		rc, _, err := s.blob.Open(ctx, domain.TraceKey(pid, job.ID))
		if err != nil {
			t.Fatalf("archived trace: %v", err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if string(data) != "hello\nCoverage: 81.5%\n" {
			t.Fatalf("archived trace %q", data)
		}

		// The job no longer runs: 403 with its status.
		r = s.expect(403, "PUT", path, map[string]any{"token": tok, "state": "running"})
		if r.header.Get("Job-Status") != "success" {
			t.Fatalf("403 Job-Status %q", r.header.Get("Job-Status"))
		}
		r = s.expect(403, "PATCH", tracePath, []byte("late"), "Job-Token", tok, "Content-Range", "22-25")
		if r.header.Get("Job-Status") != "success" {
			t.Fatalf("403 trace Job-Status %q", r.header.Get("Job-Status"))
		}
	})
}

func TestJobFailure(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, job, tok := s.running("fail", domain.JobSpec{})
	r := s.expect(200, "PUT", fmt.Sprintf("/jobs/%d", job.ID), map[string]any{"token": tok, "state": "failed", "failure_reason": "script_failure", "exit_code": 1})
	if r.header.Get("Job-Status") != "failed" {
		t.Fatalf("Job-Status %q", r.header.Get("Job-Status"))
	}
	if j := s.job(job.ID); j.Status != domain.CIFailed || j.FailureReason != domain.FailureScript {
		t.Fatalf("failed job %+v", j)
	}
	_, job2, tok2 := s.running("fail2", domain.JobSpec{})
	s.expect(200, "PUT", fmt.Sprintf("/jobs/%d", job2.ID), map[string]any{"token": tok2, "state": "failed", "failure_reason": "made_up"})
	if j := s.job(job2.ID); j.FailureReason != domain.FailureUnknown {
		t.Fatalf("unknown reason recorded as %q", j.FailureReason)
	}
}

// cancel cancels a running job as the jobs API does.
func (s *server) cancel(id int64) {
	s.T.Helper()
	if _, err := s.jobs.Update(context.Background(), id, func(j *domain.Job) error { return j.Cancel(time.Now().UTC()) }); err != nil {
		s.T.Fatal(err)
	}
}

func TestCancelThroughJobStatus(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		_, job, tok := s.running("cancel", domain.JobSpec{})
		path := fmt.Sprintf("/jobs/%d", job.ID)
		s.expect(202, "PATCH", path+"/trace", []byte("a"), "Job-Token", tok, "Content-Range", "0-0")
		s.cancel(job.ID)
		r := s.expect(200, "PUT", path, map[string]any{"token": tok, "state": "running"})
		if r.header.Get("Job-Status") != "canceling" {
			t.Fatalf("Job-Status %q, want canceling", r.header.Get("Job-Status"))
		}
		// after_script output still arrives.
		r = s.expect(202, "PATCH", path+"/trace", []byte("b"), "Job-Token", tok, "Content-Range", "1-1")
		if r.header.Get("Job-Status") != "canceling" {
			t.Fatalf("trace Job-Status %q", r.header.Get("Job-Status"))
		}
		// The job token still reads while the runner winds down.
		s.expect(200, "GET", "/version", nil, "Job-Token", tok)
		r = s.expect(200, "PUT", path, map[string]any{"token": tok, "state": "failed", "failure_reason": "job_canceled"})
		if r.header.Get("Job-Status") != "canceled" {
			t.Fatalf("final Job-Status %q", r.header.Get("Job-Status"))
		}
		j := s.job(job.ID)
		if j.Status != domain.CICanceled || !j.RunnerFinished {
			t.Fatalf("canceled job %+v", j)
		}
		r = s.expect(403, "PUT", path, map[string]any{"token": tok, "state": "running"})
		if r.header.Get("Job-Status") != "canceled" {
			t.Fatalf("after the end: %q", r.header.Get("Job-Status"))
		}
	})
}
