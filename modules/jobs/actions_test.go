package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestJobActions(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		f := s.readFixture()
		one := func(id int64) string { return fmt.Sprintf("/projects/%d/jobs/%d", f.repo.id, id) }

		// Cancel a running job: canceled at once, its runner not finished.
		c := s.Expect(201, "POST", one(f.lint.ID)+"/cancel", f.dev.token, nil).Object(t)
		wantKeys(t, "canceled job", c, jobKeys...)
		if c["status"] != "canceled" || c["started_at"] != "2026-01-02T03:05:05.000Z" || c["finished_at"] == nil {
			t.Errorf("canceled = %v", c)
		}
		if j := s.stored(f.lint.ID); j.Status != domain.CICanceled || j.RunnerFinished {
			t.Errorf("stored canceled job: %s runner finished %v", j.Status, j.RunnerFinished)
		}
		if ev := s.events.of(f.lint.ID); len(ev) != 1 || ev[0].Previous != domain.CIRunning || ev[0].Job.Status != domain.CICanceled || ev[0].Actor != f.dev.id {
			t.Errorf("cancel events = %+v", ev)
		}
		// Canceling a finished job changes nothing.
		if c := s.Expect(201, "POST", one(f.build.ID)+"/cancel", f.dev.token, nil).Object(t); c["status"] != "success" {
			t.Errorf("cancel of a finished job = %v", c["status"])
		}
		if ev := s.events.of(f.build.ID); len(ev) != 0 {
			t.Errorf("cancel of a finished job published %+v", ev)
		}

		// Retry a failed job: a new pending job, the old one retried.
		r := s.Expect(201, "POST", one(f.test.ID)+"/retry", f.dev.token, nil).Object(t)
		wantKeys(t, "retried job", r, jobKeys...)
		newID := apptest.ID(r)
		if newID == f.test.ID || r["status"] != "pending" || r["finished_at"] != nil || r["started_at"] != nil ||
			r["name"] != "test" || r["stage"] != "test" || r["user"].(map[string]any)["username"] != "dev" {
			t.Errorf("retry = %v", r)
		}
		if old := s.stored(f.test.ID); !old.Retried || old.Status != domain.CIFailed {
			t.Errorf("old job: retried %v status %s", old.Retried, old.Status)
		}
		if n := s.stored(newID); n.PipelineID != f.master.ID || n.QueuedAt == nil || n.Retried {
			t.Errorf("new job %+v", n)
		}
		if ev := s.events.of(newID); len(ev) != 1 || ev[0].Previous != "" || ev[0].Job.Status != domain.CIPending {
			t.Errorf("retry events = %+v", ev)
		}
		pjobs := fmt.Sprintf("/projects/%d/pipelines/%d/jobs", f.repo.id, f.master.ID)
		if l := s.Expect(200, "GET", pjobs, f.dev.token, nil).List(t); !eq(ids(l), []int64{newID, f.deploy.ID, f.test.ID, f.build.ID}) {
			t.Errorf("pipeline jobs after retry: %v (GitLab 9.x lists the retried one too)", ids(l))
		}
		if l := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/jobs", f.repo.id), f.dev.token, nil).List(t); len(l) != 6 || apptest.ID(l[0]) != newID {
			t.Errorf("project jobs after retry: %v (retried ones included)", ids(l))
		}
		s.wantBody(403, `{"message":"403 Forbidden - Job is not retryable"}`, "POST", one(f.pend.ID)+"/retry", f.dev.token, nil)
		s.wantBody(403, `{"message":"403 Forbidden - Job is not retryable"}`, "POST", one(f.deploy.ID)+"/retry", f.dev.token, nil)

		// Play a manual job: pending, played by the caller; the answer
		// shows "started" (the spec).
		p := s.Expect(200, "POST", one(f.deploy.ID)+"/play", f.dev.token, nil).Object(t)
		wantKeys(t, "played job", p, jobKeys...)
		if p["status"] != "started" || p["finished_at"] != nil || p["user"].(map[string]any)["username"] != "dev" {
			t.Errorf("play = %v", p)
		}
		if j := s.stored(f.deploy.ID); j.Status != domain.CIPending || j.UserID == nil || *j.UserID != f.dev.id {
			t.Errorf("played job %s user %v", j.Status, j.UserID)
		}
		if ev := s.events.of(f.deploy.ID); len(ev) != 1 || ev[0].Previous != domain.CIManual {
			t.Errorf("play events = %+v", ev)
		}
		s.wantBody(400, `{"message":"400 Bad request - Unplayable Job"}`, "POST", one(f.deploy.ID)+"/play", f.dev.token, nil)
		s.wantBody(400, `{"message":"400 Bad request - Unplayable Job"}`, "POST", one(f.build.ID)+"/play", f.dev.token, nil)

		// Keep: the expiry goes, on the job and its artifacts.
		s.wantBody(404, `{"message":"Build not found or no artifacts"}`, "POST", one(f.test.ID)+"/artifacts/keep", f.dev.token, nil)
		expiring := job("package", "build", 0, domain.CISuccess)
		_, js := s.pipeline(f.repo.id, "master", f.repo.master, domain.CISuccess, expiring)
		expiring = js[0]
		s.artifacts(expiring, []byte("pkg"), ptr(time.Now().Add(time.Hour)))
		if g := s.Expect(200, "GET", one(expiring.ID), f.dev.token, nil).Object(t); g["artifacts_expire_at"] == nil {
			t.Errorf("artifacts_expire_at before keep = nil")
		}
		k := s.Expect(200, "POST", one(expiring.ID)+"/artifacts/keep", f.dev.token, nil).Object(t)
		wantKeys(t, "kept job", k, append(jobKeys, "download_url")...)
		if k["artifacts_expire_at"] != nil || k["download_url"] != nil || k["artifacts_file"] == nil {
			t.Errorf("keep = %v", k)
		}
		arts, err := s.Store.Artifacts().OfJobs(context.Background(), []int64{expiring.ID})
		if err != nil || len(arts[expiring.ID]) != 1 || arts[expiring.ID][0].ExpireAt != nil || s.stored(expiring.ID).ArtifactsExpireAt != nil {
			t.Errorf("artifacts after keep: %+v %v", arts, err)
		}

		// Erase: trace and artifacts go, the status stays.
		e := s.Expect(201, "POST", one(f.build.ID)+"/erase", f.dev.token, nil).Object(t)
		wantKeys(t, "erased job", e, append(jobKeys, "download_url")...)
		if e["status"] != "success" || e["erased_at"] == nil || e["artifacts_file"] != nil || len(e["artifacts"].([]any)) != 0 || e["download_url"] != nil {
			t.Errorf("erase = %v", e)
		}
		if j := s.stored(f.build.ID); j.ErasedAt == nil || j.ErasedBy == nil || *j.ErasedBy != f.dev.id {
			t.Errorf("erased job %+v", j)
		}
		s.wantBody(404, `{"message":"Build not found or no trace file"}`, "GET", one(f.build.ID)+"/trace", f.dev.token, nil)
		s.wantBody(404, `{"message":"Build not found or no artifacts"}`, "GET", one(f.build.ID)+"/artifacts", f.dev.token, nil)
		for _, key := range []string{domain.TraceKey(f.repo.id, f.build.ID), domain.ArtifactKey(f.repo.id, f.build.ID, "archive")} {
			if _, _, err := s.blobs.Open(context.Background(), key); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("blob %s after erase: %v", key, err)
			}
		}
		s.wantBody(403, `{"message":"403 Forbidden - Job is not erasable!"}`, "POST", one(f.build.ID)+"/erase", f.dev.token, nil)
		s.wantBody(403, `{"message":"403 Forbidden - Job is not erasable!"}`, "POST", one(f.pend.ID)+"/erase", f.dev.token, nil)

		// Unknown jobs.
		for _, a := range []string{"/cancel", "/retry", "/erase", "/artifacts/keep", "/play"} {
			s.wantBody(404, `{"message":"404 Job Not Found"}`, "POST", one(f.pend.ID+1000)+a, f.dev.token, nil)
		}
	})
}

// TestPlayFinishedManualJob: a finished manual job plays again as a retry.
func TestPlayFinishedManualJob(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.project("ci", "private")
	done := job("deploy", "deploy", 0, domain.CISuccess)
	done.When = domain.WhenManual
	_, js := s.pipeline(r.id, "master", r.master, domain.CISuccess, done)
	p := s.Expect(200, "POST", fmt.Sprintf("/projects/%d/jobs/%d/play", r.id, js[0].ID), s.RootToken, nil).Object(t)
	if apptest.ID(p) == js[0].ID || p["status"] != "started" {
		t.Errorf("play of a finished manual job = %v", p)
	}
	if !s.stored(js[0].ID).Retried || s.stored(apptest.ID(p)).Status != domain.CIPending {
		t.Errorf("the played copy is not pending, or the original not retried")
	}
}

// TestConcurrentRetry: a job retried by several callers at once makes one
// new job per retry, as GitLab's retry does, without a failure or a
// deadlock (each locks the pipeline, then the job).
func TestConcurrentRetry(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		r := s.project("ci", "private")
		_, js := s.pipeline(r.id, "master", r.master, domain.CIFailed, job("test", "test", 0, domain.CIFailed))
		path := fmt.Sprintf("/projects/%d/jobs/%d/retry", r.id, js[0].ID)
		const n = 6
		codes := make(chan int, n)
		for range n {
			go func() {
				resp, _ := s.Do(t, "POST", path, s.RootToken, nil)
				codes <- resp.StatusCode
			}()
		}
		for range n {
			if c := <-codes; c != 201 {
				t.Errorf("concurrent retry answered %d", c)
			}
		}
		if l := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/jobs", r.id), s.RootToken, nil).List(t); len(l) != n+1 {
			t.Errorf("%d jobs after %d concurrent retries, want %d", len(l), n, n+1)
		}
	})
}

// TestEventsInTransaction: the JobEvent is published inside the
// transaction of the change, so a subscriber's failure undoes the change.
func TestEventsInTransaction(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.project("ci", "private")
	manual := job(failingJob, "deploy", 1, domain.CIManual)
	manual.When = domain.WhenManual
	_, js := s.pipeline(r.id, "master", r.master, domain.CIRunning, job(failingJob, "test", 0, domain.CIFailed), manual, job(failingJob, "lint", 0, domain.CIRunning))
	for i, action := range []string{"retry", "play", "cancel"} {
		before := *s.stored(js[i].ID)
		if resp, body := s.Do(t, "POST", fmt.Sprintf("/projects/%d/jobs/%d/%s", r.id, js[i].ID, action), s.RootToken, nil); resp.StatusCode != 500 {
			t.Errorf("%s with a failing subscriber: %d %s", action, resp.StatusCode, body)
		}
		if after := s.stored(js[i].ID); after.Status != before.Status || after.Retried != before.Retried {
			t.Errorf("%s was not rolled back: %s retried %v", action, after.Status, after.Retried)
		}
	}
	if l := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/jobs", r.id), s.RootToken, nil).List(t); len(l) != 3 {
		t.Errorf("%d jobs, want 3: the retry's copy rolled back", len(l))
	}
	if resp, _ := s.Do(t, "POST", fmt.Sprintf("/projects/%d/statuses/%s", r.id, r.master), s.RootToken, map[string]any{"state": "success", "name": failingJob}); resp.StatusCode != 500 {
		t.Errorf("status with a failing subscriber: %d", resp.StatusCode)
	}
	if l := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/commits/%s/statuses?name=%s&stage=external", r.id, r.master, failingJob), s.RootToken, nil).List(t); len(l) != 0 {
		t.Errorf("a rolled back status is listed: %v", l)
	}
}
