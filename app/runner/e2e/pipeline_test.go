package e2e_test

import (
	"archive/zip"
	"bytes"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// secretValue is a masked project variable: a job echoes it, the trace
// must show [MASKED] only.
const secretValue = "s3cretValueNobodySees42"

// pipelineYML has three stages; build leaves artifacts that expire and
// that unit and the manual deploy unpack; lint fails but may; unit
// reports coverage; variables come from the top, the job and the project.
const pipelineYML = `
stages: [build, test, deploy]
variables:
  GLOBAL_VAR: global-value
build:
  stage: build
  variables:
    JOB_VAR: job-value
  script:
    - echo "global=$GLOBAL_VAR job=$JOB_VAR"
    - echo "secret=$SECRET_VAR"
    - echo "token=$CI_JOB_TOKEN"
    - mkdir -p out
    - echo "built $CI_COMMIT_SHA" > out/build.txt
  artifacts:
    paths: [out/]
    expire_in: 1 week
unit:
  stage: test
  dependencies: [build]
  script:
    - cat out/build.txt
    - echo "job var in unit is '$JOB_VAR'"
    - echo "Coverage 87.5%"
  coverage: '/Coverage \d+\.\d+%/'
lint:
  stage: test
  allow_failure: true
  dependencies: []
  script:
    - echo "lint runs"
    - exit 3
deploy:
  stage: deploy
  when: manual
  dependencies: [build]
  script:
    - test -f out/build.txt
    - echo "deployed $(cat out/build.txt)"
`

// TestPipelineEndToEnd: a push of a .gitlab-ci.yml runs on the real
// runner (in this process, over HTTP against the server's URL) on SQLite
// and on Postgres; statuses, traces, masking, artifacts, coverage, the
// pipeline's and the commit's status, and playing the manual job.
func TestPipelineEndToEnd(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, driver string) {
		srv := apptest.New(t, apptest.Driver(driver), serverConfig(nil))
		p := newProject(t, srv, "e2e")
		srv.JSON(t, "POST", p.api("/variables"), srv.RootToken, url.Values{
			"key": {"SECRET_VAR"}, "value": {secretValue}, "masked": {"true"}}, 201, nil)
		startRunner(t, srv.URL, 2)

		sha := p.push(map[string]string{".gitlab-ci.yml": pipelineYML, "README.md": "hello\n"})
		pid := p.pipelineOf("main", sha)
		jobs := p.waitJobs(pid, 20*time.Second, map[string]string{
			"build": "success", "unit": "success", "lint": "failed", "deploy": "manual"}, "success")
		checkCommitStatus(t, p, sha, "success")

		build, unit, lint := jobs["build"], jobs["unit"], jobs["lint"]
		tr := p.trace(build.ID)
		for _, want := range []string{"global=global-value job=job-value", "secret=[MASKED]", "token=[MASKED]", "Job succeeded"} {
			if !strings.Contains(tr, want) {
				t.Errorf("trace of build lacks %q:\n%s", want, tr)
			}
		}
		for _, j := range jobs {
			if j.Status == "manual" {
				continue
			}
			if tr := p.trace(j.ID); strings.Contains(tr, secretValue) {
				t.Errorf("trace of %s shows the masked value:\n%s", j.Name, tr)
			}
		}
		tr = p.trace(unit.ID)
		for _, want := range []string{"built " + sha, "job var in unit is ''", "Coverage 87.5%"} {
			if !strings.Contains(tr, want) {
				t.Errorf("trace of unit lacks %q:\n%s", want, tr)
			}
		}
		if unit.Coverage == nil || *unit.Coverage != 87.5 {
			t.Errorf("coverage of unit %v, want 87.5", unit.Coverage)
		}
		if tr := p.trace(lint.ID); !strings.Contains(tr, "lint runs") || lint.FailureReason != "script_failure" || !lint.AllowFailure {
			t.Errorf("lint: failure_reason %q, allow_failure %v, trace:\n%s", lint.FailureReason, lint.AllowFailure, tr)
		}

		// Artifacts: the archive by job id and by ref and job name, with
		// an expiry a week out.
		if build.ArtifactsFile == nil || build.ArtifactsExpireAt == nil {
			t.Fatalf("build: artifacts_file %v, artifacts_expire_at %v", build.ArtifactsFile, build.ArtifactsExpireAt)
		}
		if exp, err := time.Parse(time.RFC3339, *build.ArtifactsExpireAt); err != nil || exp.Before(time.Now().Add(6*24*time.Hour)) || exp.After(time.Now().Add(8*24*time.Hour)) {
			t.Errorf("artifacts_expire_at %q (%v), want about a week out", *build.ArtifactsExpireAt, err)
		}
		byID := download(t, srv, p.api("/jobs/%d/artifacts", build.ID))
		byRef := download(t, srv, p.api("/jobs/artifacts/main/download?job=build"))
		if !bytes.Equal(byID, byRef) {
			t.Errorf("artifacts by id (%d bytes) and by ref (%d bytes) differ", len(byID), len(byRef))
		}
		if got := zipFile(t, byID, "out/build.txt"); got != "built "+sha+"\n" {
			t.Errorf("out/build.txt in the archive: %q", got)
		}
		if unit.ArtifactsFile != nil {
			t.Errorf("unit uploaded artifacts it has none of: %+v", unit.ArtifactsFile)
		}

		// Playing the manual job runs it with build's artifacts.
		resp, body := srv.Do(t, "POST", p.api("/jobs/%d/play", jobs["deploy"].ID), srv.RootToken, nil)
		if resp.StatusCode != 200 && resp.StatusCode != 201 {
			t.Fatalf("play deploy: %d %s", resp.StatusCode, body)
		}
		jobs = p.waitJobs(pid, 15*time.Second, map[string]string{"deploy": "success"}, "success")
		if tr := p.trace(jobs["deploy"].ID); !strings.Contains(tr, "deployed built "+sha) {
			t.Errorf("trace of deploy:\n%s", tr)
		}
		checkCommitStatus(t, p, sha, "success")
		if strings.Contains(srv.Logs(), secretValue) {
			t.Error("the server logged the masked value")
		}
	})
}

func checkCommitStatus(t *testing.T, p *project, sha, want string) {
	t.Helper()
	var c struct{ Status *string }
	p.srv.JSON(t, "GET", p.api("/repository/commits/%s", sha), p.srv.RootToken, nil, 200, &c)
	if c.Status == nil || *c.Status != want {
		t.Errorf("commit %s: status %v, want %q", sha[:8], c.Status, want)
	}
	var statuses []struct{ Name, Status string }
	p.srv.JSON(t, "GET", p.api("/repository/commits/%s/statuses?all=true&per_page=100", sha), p.srv.RootToken, nil, 200, &statuses)
	if len(statuses) < 4 {
		t.Errorf("commit statuses %+v, want one per job", statuses)
	}
}

func download(t *testing.T, srv *apptest.Server, path string) []byte {
	t.Helper()
	resp, body := srv.Do(t, "GET", path, srv.RootToken, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	return body
}

func zipFile(t *testing.T, archive []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatalf("artifacts are not a zip: %v", err)
	}
	for _, f := range zr.File {
		if f.Name == name {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	t.Fatalf("no %s in the archive: %v", name, names)
	return ""
}
