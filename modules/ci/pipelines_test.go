package ci_test

import (
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/core/domain"
)

const threeStages = `
stages: [build, test, deploy]
variables:
  GLOBAL: "1"
compile:
  stage: build
  script: make
  tags: [linux]
unit:
  stage: test
  script: make test
  coverage: /cov (\d+)%/
lint:
  stage: test
  script: make lint
  allow_failure: true
cleanup:
  stage: deploy
  script: rm -rf
  when: always
notify:
  stage: deploy
  script: mail
  when: on_failure
release:
  stage: deploy
  script: release
  when: manual
.hidden:
  script: never
`

func TestPipelineLifecycle(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("life", "private")
		sha := s.commit(pid, "master", "add ci", map[string]string{".gitlab-ci.yml": threeStages})

		list := s.pipelines(pid, "")
		if len(list) != 1 {
			t.Fatalf("pipelines %v", list)
		}
		id := int64(list[0]["id"].(float64))
		if list[0]["sha"] != sha || list[0]["ref"] != "master" || list[0]["status"] != "pending" || len(list[0]) != 4 {
			t.Fatalf("listed %v", list[0])
		}
		p := s.pipeline(pid, id)
		if p.Status != "pending" || p.Tag || p.YAMLErrors != nil || p.User == nil || p.User.Username != "root" || p.StartedAt != nil || p.CommittedAt == nil {
			t.Fatalf("pipeline %+v", p)
		}
		jobs := s.jobs(id)
		if got := states(jobs); got != "compile:pending unit:created lint:created cleanup:created notify:created release:created" {
			t.Fatalf("jobs %s", got)
		}
		c := job(t, jobs, "compile")
		if c.StageIdx != 0 || job(t, jobs, "unit").StageIdx != 1 || job(t, jobs, "release").StageIdx != 2 ||
			len(c.Tags) != 1 || c.Tags[0] != "linux" || c.QueuedAt == nil || !job(t, jobs, "release").AllowFailure {
			t.Fatalf("compile job %+v", c)
		}

		s.drive(c.ID, domain.CIRunning)
		if p := s.pipeline(pid, id); p.Status != "running" || p.StartedAt == nil {
			t.Fatalf("running: %+v", p)
		}
		s.drive(c.ID, domain.CISuccess)
		jobs = s.jobs(id)
		if got := states(jobs); got != "compile:success unit:pending lint:pending cleanup:created notify:created release:created" {
			t.Fatalf("after build: %s", got)
		}
		s.drive(job(t, jobs, "unit").ID, domain.CISuccess, 80)
		s.drive(job(t, jobs, "lint").ID, domain.CIFailed, 40)
		jobs = s.jobs(id)
		if got := states(jobs); got != "compile:success unit:success lint:failed cleanup:pending notify:skipped release:manual" {
			t.Fatalf("after test: %s", got)
		}
		s.drive(job(t, jobs, "cleanup").ID, domain.CISuccess)
		p = s.pipeline(pid, id)
		// the allowed failure and the optional manual action do not count
		if p.Status != "success" || p.FinishedAt == nil || p.Duration == nil || p.Coverage == nil || *p.Coverage != "60.00" {
			t.Fatalf("finished: %+v", p)
		}
		if list := s.pipelines(pid, "?scope=finished"); len(list) != 1 {
			t.Fatalf("finished scope %v", list)
		}
	})
}

func TestPipelineFailureAndRetry(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("retry", "private")
		s.commit(pid, "master", "add ci", map[string]string{".gitlab-ci.yml": threeStages})
		id := int64(s.pipelines(pid, "")[0]["id"].(float64))
		jobs := s.jobs(id)
		s.drive(job(t, jobs, "compile").ID, domain.CIFailed)
		jobs = s.jobs(id)
		if got := states(jobs); got != "compile:failed unit:skipped lint:skipped cleanup:pending notify:pending release:skipped" {
			t.Fatalf("after failure: %s", got)
		}
		s.drive(job(t, jobs, "cleanup").ID, domain.CISuccess)
		s.drive(job(t, jobs, "notify").ID, domain.CISuccess)
		if p := s.pipeline(pid, id); p.Status != "failed" || p.FinishedAt == nil {
			t.Fatalf("failed: %+v", p)
		}

		dev := s.person("dev")
		s.member(pid, dev, domain.Developer)
		reporter := s.person("rep")
		s.member(pid, reporter, domain.Reporter)
		path := fmt.Sprintf("/projects/%d/pipelines/%d/retry", pid, id)
		s.Expect(401, "POST", path, "", nil)
		s.Expect(403, "POST", path, reporter.token, nil)
		var p pipelineJSON
		s.Expect(201, "POST", path, dev.token, nil).Decode(t, &p)
		if p.Status != "running" || p.FinishedAt != nil {
			t.Fatalf("retried: %+v", p)
		}
		jobs = s.jobs(id)
		if got := states(jobs); got != "compile:pending unit:created lint:created cleanup:success notify:success release:created" {
			t.Fatalf("after retry: %s", got)
		}
		if len(jobs) != 7 {
			t.Fatalf("want the failed job kept as retried: %d jobs", len(jobs))
		}
		s.drive(job(t, jobs, "compile").ID, domain.CISuccess)
		jobs = s.jobs(id)
		if got := states(jobs); got != "compile:success unit:pending lint:pending cleanup:success notify:success release:created" {
			t.Fatalf("after retried build: %s", got)
		}

		// cancel: pending and created jobs are canceled, the pipeline too
		s.Expect(403, "POST", fmt.Sprintf("/projects/%d/pipelines/%d/cancel", pid, id), reporter.token, nil)
		s.Expect(200, "POST", fmt.Sprintf("/projects/%d/pipelines/%d/cancel", pid, id), dev.token, nil).Decode(t, &p)
		if p.Status != "canceled" {
			t.Fatalf("canceled: %+v", p)
		}
		if got := states(s.jobs(id)); got != "compile:success unit:canceled lint:canceled cleanup:success notify:success release:canceled" {
			t.Fatalf("after cancel: %s", got)
		}
	})
}
