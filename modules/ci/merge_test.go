package ci_test

import (
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestMergeWhenPipelineSucceeds: a merge request waiting for its pipeline
// merges when the processor finishes the pipeline, and
// only_allow_merge_if_pipeline_succeeds refuses merges until it did.
func TestMergeWhenPipelineSucceeds(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("mwps", "private", "only_allow_merge_if_pipeline_succeeds", "true")
		s.commit(pid, "master", "ci", map[string]string{".gitlab-ci.yml": "build:\n  stage: build\n  script: x\ntest:\n  stage: test\n  script: x\n"})
		s.commit(pid, "feature", "work", map[string]string{"f.txt": "x"})
		s.commit(pid, "skipped", "skip [ci skip]", map[string]string{"s.txt": "x"})
		mr := func(branch string) string {
			m := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/merge_requests", pid), s.RootToken,
				apptest.Form("source_branch", branch, "target_branch", "master", "title", branch)).Object(t)
			return fmt.Sprintf("/projects/%d/merge_requests/%v", pid, m["iid"])
		}
		feature, skipped := mr("feature"), mr("skipped")
		l := s.pipelines(pid, "?ref=feature")
		if len(l) != 1 {
			t.Fatalf("feature pipelines %v", l)
		}
		id := apptest.ID(l[0])

		// the head pipeline runs: no merge yet
		s.ExpectBody(405, `{"message":"405 Method Not Allowed"}`, "PUT", feature+"/merge", s.RootToken, nil)
		m := s.Expect(200, "PUT", feature+"/merge", s.RootToken, apptest.Form("merge_when_pipeline_succeeds", "true")).Object(t)
		if m["state"] != "opened" || m["merge_when_pipeline_succeeds"] != true {
			t.Fatalf("deferred merge %v", m)
		}
		s.drive(job(t, s.jobs(id), "build").ID, domain.CISuccess)
		if m := s.Expect(200, "GET", feature, s.RootToken, nil).Object(t); m["state"] != "opened" {
			t.Fatalf("merged before the pipeline finished: %v", m["state"])
		}
		s.drive(job(t, s.jobs(id), "test").ID, domain.CISuccess)
		if m := s.Expect(200, "GET", feature, s.RootToken, nil).Object(t); m["state"] != "merged" {
			t.Fatalf("not merged after the pipeline succeeded: %v", m)
		}

		// a skipped head pipeline lets it merge, as GitLab's mergeable_ci_state?
		if m := s.Expect(200, "PUT", skipped+"/merge", s.RootToken, nil).Object(t); m["state"] != "merged" {
			t.Fatalf("skipped head pipeline: %v", m)
		}

		// a failed head pipeline: merge_when_pipeline_succeeds is refused
		s.commit(pid, "broken", "work", map[string]string{"b.txt": "x"})
		broken := mr("broken")
		bid := apptest.ID(s.pipelines(pid, "?ref=broken")[0])
		s.drive(job(t, s.jobs(bid), "build").ID, domain.CIFailed)
		if p := s.pipeline(pid, bid); p.Status != "failed" {
			t.Fatalf("broken pipeline %+v", p)
		}
		s.ExpectBody(405, `{"message":"405 Method Not Allowed"}`, "PUT", broken+"/merge", s.RootToken, apptest.Form("merge_when_pipeline_succeeds", "true"))
	})
}

func TestAutomaticRetry(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("retry-kw", "private")
		s.commit(pid, "master", "ci", map[string]string{".gitlab-ci.yml": "flaky:\n  stage: build\n  script: x\n  retry: 1\nnext:\n  stage: test\n  script: x\n"})
		id := apptest.ID(s.pipelines(pid, "")[0])
		first := job(t, s.jobs(id), "flaky")
		s.drive(first.ID, domain.CIFailed)
		jobs := s.jobs(id)
		second := job(t, jobs, "flaky")
		if second.ID == first.ID || second.Status != domain.CIPending || second.Attempt != 1 || len(jobs) != 3 {
			t.Fatalf("after the first failure: %s (%d jobs)", states(jobs), len(jobs))
		}
		if p := s.pipeline(pid, id); p.Status != "pending" && p.Status != "running" {
			t.Fatalf("pipeline after an automatic retry: %s", p.Status)
		}
		s.drive(second.ID, domain.CIFailed)
		jobs = s.jobs(id)
		if got := states(jobs); got != "flaky:failed next:skipped" || len(jobs) != 3 {
			t.Fatalf("after the second failure: %s (%d jobs)", got, len(jobs))
		}
		if p := s.pipeline(pid, id); p.Status != "failed" {
			t.Fatalf("pipeline %s", p.Status)
		}
	})
}

// TestRetriedJobReopensLaterStages: a job retried through the jobs module
// makes the stages after it run again (GitLab's
// mark_as_processable_after_stage).
func TestRetriedJobReopensLaterStages(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("reopen", "private")
		s.commit(pid, "master", "ci", map[string]string{".gitlab-ci.yml": threeStages})
		id := apptest.ID(s.pipelines(pid, "")[0])
		jobs := s.jobs(id)
		s.drive(job(t, jobs, "compile").ID, domain.CIFailed)
		jobs = s.jobs(id)
		s.drive(job(t, jobs, "cleanup").ID, domain.CISuccess)
		s.drive(job(t, jobs, "notify").ID, domain.CISuccess)
		if p := s.pipeline(pid, id); p.Status != "failed" {
			t.Fatalf("pipeline %s", p.Status)
		}
		again := s.retryJob(job(t, jobs, "compile").ID)
		jobs = s.jobs(id)
		if got := states(jobs); got != "compile:pending unit:created lint:created cleanup:success notify:success release:created" {
			t.Fatalf("after retry: %s", got)
		}
		if p := s.pipeline(pid, id); p.Status != "running" {
			t.Fatalf("pipeline after retry %s", p.Status)
		}
		s.drive(again, domain.CISuccess)
		if got := states(s.jobs(id)); got != "compile:success unit:pending lint:pending cleanup:success notify:success release:created" {
			t.Fatalf("after the retried job passed: %s", got)
		}
	})
}
