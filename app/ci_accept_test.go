package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
)

// Acceptance tests of CI end to end: pipelines from .gitlab-ci.yml run by
// a small runner that speaks the runner protocol over real HTTP, as
// gitlab-runner does (contracttests.RunnerClient sends its requests).

// eachCIDriver runs fn on a CI-configured server on SQLite and one on
// Postgres, side by side.
func eachCIDriver(t *testing.T, fn func(t *testing.T, srv *apptest.Server)) {
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			srv := apptest.New(t, apptest.Driver(driver), ciServerConfig(nil))
			skipWithoutCI(t, srv)
			fn(t, srv)
		})
	}
}

// ciProject is a project of root's with CI, seen through the API.
type ciProject struct {
	t   testing.TB
	srv *apptest.Server
	id  int64
}

func newCIProject(t testing.TB, srv *apptest.Server, name string) *ciProject {
	t.Helper()
	var p struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {name}, "visibility": {"private"}}, 201, &p)
	return &ciProject{t: t, srv: srv, id: p.ID}
}

func (p *ciProject) path(format string, args ...any) string {
	return fmt.Sprintf("/projects/%d", p.id) + fmt.Sprintf(format, args...)
}

// commit writes files on branch (from start when new) and returns the SHA.
func (p *ciProject) commit(branch, start, message string, files map[string]string) string {
	p.t.Helper()
	var actions []map[string]string
	for path, content := range files {
		actions = append(actions, map[string]string{"action": "create", "file_path": path, "content": content})
	}
	body := map[string]any{"branch": branch, "commit_message": message, "actions": actions}
	if start != "" {
		body["start_branch"] = start
	}
	var c struct{ ID string }
	p.srv.JSON(p.t, "POST", p.path("/repository/commits"), p.srv.RootToken, body, 201, &c)
	return c.ID
}

// pipeline finds the pipeline of sha on ref, creating it with POST
// /projects/:id/pipeline?ref= when the push made none.
func (p *ciProject) pipeline(ref, sha string) int64 {
	p.t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		var list []struct {
			ID  int64
			SHA string
		}
		p.srv.JSON(p.t, "GET", p.path("/pipelines?ref=%s", ref), p.srv.RootToken, nil, 200, &list)
		for _, pl := range list {
			if pl.SHA == sha {
				return pl.ID
			}
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var pl struct{ ID int64 }
	p.srv.JSON(p.t, "POST", p.path("/pipeline?ref=%s", ref), p.srv.RootToken, nil, 201, &pl)
	return pl.ID
}

// registrationToken resets and returns the project's runners token.
func (p *ciProject) registrationToken() string {
	p.t.Helper()
	var tok struct{ Token string }
	p.srv.JSON(p.t, "POST", p.path("/runners/reset_registration_token"), p.srv.RootToken, nil, 201, &tok)
	return tok.Token
}

// pipelineStatus reads a pipeline's status.
func (p *ciProject) pipelineStatus(id int64) string {
	p.t.Helper()
	var pl struct{ Status string }
	p.srv.JSON(p.t, "GET", p.path("/pipelines/%d", id), p.srv.RootToken, nil, 200, &pl)
	return pl.Status
}

// commitStatus is the status field of GET .../repository/commits/:sha.
func (p *ciProject) commitStatus(sha string) string {
	p.t.Helper()
	var c struct{ Status *string }
	p.srv.JSON(p.t, "GET", p.path("/repository/commits/%s", sha), p.srv.RootToken, nil, 200, &c)
	if c.Status == nil {
		return "null"
	}
	return *c.Status
}

// ciJob is the part of the job entity these tests read.
type ciJob struct {
	ID           int64
	Name         string
	Stage        string
	Status       string
	AllowFailure bool `json:"allow_failure"`
	Runner       *struct{ ID int64 }
}

// jobs lists a pipeline's jobs by name.
func (p *ciProject) jobs(pipelineID int64) map[string]ciJob {
	p.t.Helper()
	var list []ciJob
	p.srv.JSON(p.t, "GET", p.path("/pipelines/%d/jobs?per_page=100", pipelineID), p.srv.RootToken, nil, 200, &list)
	out := map[string]ciJob{}
	for _, j := range list {
		out[j.Name] = j
	}
	return out
}

// wantStatuses waits until the pipeline's jobs and the pipeline have the
// statuses wanted (polling a little: the pipeline follows its jobs), then
// checks the commit's status field.
func (p *ciProject) wantStatuses(pipelineID int64, sha string, jobs map[string]string, pipeline string) {
	p.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var bad []string
		got := p.jobs(pipelineID)
		for name, want := range jobs {
			if got[name].Status != want {
				bad = append(bad, fmt.Sprintf("job %s is %q, want %q", name, got[name].Status, want))
			}
		}
		if s := p.pipelineStatus(pipelineID); s != pipeline {
			bad = append(bad, fmt.Sprintf("pipeline is %q, want %q", s, pipeline))
		}
		if len(bad) == 0 {
			// The commit shows its latest pipeline's status.
			if s := p.commitStatus(sha); s != pipeline {
				p.t.Errorf("commit %s: status %q, want %q (its pipeline's)", sha[:8], s, pipeline)
			}
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("pipeline %d: %s", pipelineID, strings.Join(bad, "; "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testRunner runs jobs the way gitlab-runner's shell executor reports
// them: it streams a trace, downloads its dependencies' artifacts with
// their tokens, uploads its own artifacts, then sends the final state.
// Jobs named in fail exit 1.
type testRunner struct {
	t      testing.TB
	client contracttests.RunnerClient
	token  string
	fail   map[string]bool
	mu     sync.Mutex
	ran    []string
	// artifacts is what each job uploaded, by job id, to check downloads.
	artifacts map[int64][]byte
}

func newTestRunner(t testing.TB, srv *apptest.Server, registrationToken string, fail ...string) *testRunner {
	t.Helper()
	r := &testRunner{t: t, client: contracttests.RunnerClient{URL: srv.URL}, fail: map[string]bool{}, artifacts: map[int64][]byte{}}
	for _, f := range fail {
		r.fail[f] = true
	}
	_, tok, reply, err := r.client.Register(context.Background(), registrationToken, map[string]any{"description": "test runner"})
	if err != nil || reply.Status != http.StatusCreated {
		t.Fatalf("register the test runner: %v %d %s", err, reply.Status, reply.Body)
	}
	r.token = tok
	return r
}

// take asks for one job; nil when the server has none (204).
func (r *testRunner) take() *contracttests.RunnerJob {
	r.t.Helper()
	job, reply, err := r.client.RequestJob(context.Background(), r.token, "")
	if err != nil {
		r.t.Fatal(err)
	}
	switch reply.Status {
	case http.StatusCreated:
		return job
	case http.StatusNoContent:
		return nil
	}
	r.t.Fatalf("jobs/request: %d %s", reply.Status, reply.Body)
	return nil
}

// runJobs takes and runs jobs until want of them ran, and returns their
// names in the order they ran.
func (r *testRunner) runJobs(want int) []string {
	r.t.Helper()
	var names []string
	deadline := time.Now().Add(10 * time.Second)
	for len(names) < want {
		job := r.take()
		if job == nil {
			if time.Now().After(deadline) {
				r.t.Fatalf("ran %v, waited for %d jobs", names, want)
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		r.run(job)
		names = append(names, job.JobInfo.Name)
	}
	return names
}

// run executes one job through the protocol.
func (r *testRunner) run(job *contracttests.RunnerJob) {
	r.t.Helper()
	ctx := context.Background()
	name := job.JobInfo.Name
	var trace bytes.Buffer
	appendTrace := func(s string) {
		start := trace.Len()
		trace.WriteString(s)
		reply, err := r.client.PatchTrace(ctx, job.ID, job.Token, start, []byte(s))
		if err != nil || reply.Status != http.StatusAccepted {
			r.t.Fatalf("job %s trace: %v %d %s", name, err, reply.Status, reply.Body)
		}
	}
	appendTrace(fmt.Sprintf("Running on test runner for %s\n", name))
	if reply, err := r.client.UpdateJob(ctx, job.ID, job.Token, "running", "", 0, trace.Bytes()); err != nil || reply.Status != http.StatusOK {
		r.t.Fatalf("job %s heartbeat: %v %d %s", name, err, reply.Status, reply.Body)
	}
	for _, dep := range job.Dependencies {
		if dep.ArtifactsFile == nil {
			continue
		}
		var got bytes.Buffer
		reply, _, err := r.client.DownloadArtifact(ctx, dep.ID, dep.Token, &got)
		if err != nil || reply.Status != http.StatusOK {
			r.t.Fatalf("job %s: download the artifacts of %s: %v %d %s", name, dep.Name, err, reply.Status, reply.Body)
		}
		r.mu.Lock()
		want := r.artifacts[dep.ID]
		r.mu.Unlock()
		if !bytes.Equal(got.Bytes(), want) {
			r.t.Errorf("job %s: artifacts of %s differ from the upload (%d bytes, want %d)", name, dep.Name, got.Len(), len(want))
		}
		if _, err := zip.NewReader(bytes.NewReader(got.Bytes()), int64(got.Len())); err != nil {
			r.t.Errorf("job %s: artifacts of %s are not a zip: %v", name, dep.Name, err)
		}
		appendTrace(fmt.Sprintf("Downloaded artifacts of %s\n", dep.Name))
	}
	for _, line := range stepScript(job, "script") {
		appendTrace("$ " + line + "\n")
	}
	failed := r.fail[name]
	if len(job.Artifacts) > 0 && !failed {
		var zipped bytes.Buffer
		if err := contracttests.ZipArtifact(map[string]string{"out/" + name + ".txt": "built by " + name + "\n"})(&zipped); err != nil {
			r.t.Fatal(err)
		}
		q := url.Values{"artifact_format": {"zip"}, "artifact_type": {"archive"}}
		reply, err := r.client.UploadArtifact(ctx, job.ID, job.Token, q, "artifacts.zip", func(w io.Writer) error {
			_, err := w.Write(zipped.Bytes())
			return err
		})
		if err != nil || reply.Status != http.StatusCreated {
			r.t.Fatalf("job %s: upload artifacts: %v %d %s", name, err, reply.Status, reply.Body)
		}
		r.mu.Lock()
		r.artifacts[job.ID] = zipped.Bytes()
		r.mu.Unlock()
		appendTrace("Uploading artifacts... ok\n")
	}
	state, reason, code := "success", "", 0
	if failed {
		appendTrace("ERROR: Job failed: exit status 1\n")
		state, reason, code = "failed", "script_failure", 1
	} else {
		appendTrace("Job succeeded\n")
	}
	reply, err := r.client.UpdateJob(ctx, job.ID, job.Token, state, reason, code, trace.Bytes())
	if err != nil || reply.Status != http.StatusOK {
		r.t.Fatalf("job %s final update: %v %d %s", name, err, reply.Status, reply.Body)
	}
	r.mu.Lock()
	r.ran = append(r.ran, name)
	r.mu.Unlock()
}

func stepScript(job *contracttests.RunnerJob, step string) []string {
	for _, s := range job.Steps {
		if s.Name == step {
			return s.Script
		}
	}
	return nil
}

// threeStageYML: build leaves artifacts; unit needs them, lint may fail
// and needs nothing; deploy waits for a person and needs build's.
const threeStageYML = `
stages: [build, test, deploy]
build:
  stage: build
  script: [make]
  artifacts:
    paths: [out/]
unit:
  stage: test
  script: [make test]
  dependencies: [build]
lint:
  stage: test
  script: [make lint]
  allow_failure: true
  dependencies: []
deploy:
  stage: deploy
  script: [make deploy]
  when: manual
  dependencies: [build]
`

// TestCIPipelineEndToEnd runs a three-stage pipeline with a manual job,
// an allow_failure job, artifacts and dependencies through a runner
// speaking the protocol, checks job, pipeline and commit statuses at each
// step, then merges a merge request when its pipeline succeeds.
func TestCIPipelineEndToEnd(t *testing.T) {
	t.Parallel()
	eachCIDriver(t, func(t *testing.T, srv *apptest.Server) {
		p := newCIProject(t, srv, "pipeline-e2e")
		sha := p.commit("main", "", "Add CI", map[string]string{".gitlab-ci.yml": threeStageYML, "README.md": "hello\n"})
		pid := p.pipeline("main", sha)

		// Only the first stage is pending; later stages wait.
		p.wantStatuses(pid, sha, map[string]string{"build": "pending", "unit": "created", "lint": "created", "deploy": "created"}, "pending")

		runner := newTestRunner(t, srv, p.registrationToken(), "lint")
		build := runner.take()
		if build == nil || build.JobInfo.Name != "build" {
			t.Fatalf("first job %+v, want build", build)
		}
		p.wantStatuses(pid, sha, map[string]string{"build": "running", "unit": "created"}, "running")
		runner.run(build)
		p.wantStatuses(pid, sha, map[string]string{"build": "success", "unit": "pending", "lint": "pending", "deploy": "created"}, "running")

		ran := runner.runJobs(2)
		if strings.Join(ran, ",") != "unit,lint" && strings.Join(ran, ",") != "lint,unit" {
			t.Errorf("test stage ran %v", ran)
		}
		// lint failed but may; deploy waits for a person. As GitLab 9.x
		// computes it, a manual action (allow_failure by default) and an
		// allowed failure do not count: the pipeline succeeded.
		p.wantStatuses(pid, sha, map[string]string{"build": "success", "unit": "success", "lint": "failed", "deploy": "manual"}, "success")
		jobs := p.jobs(pid)
		if !jobs["lint"].AllowFailure || !jobs["deploy"].AllowFailure || jobs["unit"].AllowFailure {
			t.Errorf("allow_failure: lint %v, deploy %v, unit %v", jobs["lint"].AllowFailure, jobs["deploy"].AllowFailure, jobs["unit"].AllowFailure)
		}
		if runner.take() != nil {
			t.Fatal("a manual job was handed out before anyone played it")
		}
		resp, body := srv.Do(t, "POST", p.path("/jobs/%d/play", jobs["deploy"].ID), srv.RootToken, nil)
		if resp.StatusCode != 200 && resp.StatusCode != 201 {
			t.Fatalf("play deploy: %d %s", resp.StatusCode, body)
		}
		p.wantStatuses(pid, sha, map[string]string{"deploy": "pending"}, "running")
		if ran := runner.runJobs(1); ran[0] != "deploy" {
			t.Fatalf("ran %v, want deploy", ran)
		}
		p.wantStatuses(pid, sha, map[string]string{"build": "success", "unit": "success", "lint": "failed", "deploy": "success"}, "success")

		// The traces stay readable after the jobs ended.
		resp, body = srv.Do(t, "GET", p.path("/jobs/%d/trace", jobs["unit"].ID), srv.RootToken, nil)
		if resp.StatusCode != 200 || !strings.Contains(string(body), "Downloaded artifacts of build\n$ make test\nJob succeeded\n") {
			t.Errorf("trace of unit: %d %q", resp.StatusCode, body)
		}

		// A merge request set to merge when its pipeline succeeds merges
		// once the runner finished the source branch's pipeline.
		fsha := p.commit("feature", "main", "Feature", map[string]string{"feature.txt": "new\n"})
		fpid := p.pipeline("feature", fsha)
		var mr mrJSON
		srv.JSON(t, "POST", p.path("/merge_requests"), srv.RootToken, url.Values{
			"source_branch": {"feature"}, "target_branch": {"main"}, "title": {"Feature"}}, 201, &mr)
		srv.JSON(t, "PUT", p.path("/merge_requests/%d/merge?merge_when_pipeline_succeeds=true", mr.IID), srv.RootToken, nil, 200, &mr)
		if mr.State != "opened" || !mr.MergeWhenPipelineSucceeds {
			t.Fatalf("after merge_when_pipeline_succeeds: state %q, flag %v", mr.State, mr.MergeWhenPipelineSucceeds)
		}
		runner.runJobs(3) // build, then unit and lint
		p.wantStatuses(fpid, fsha, map[string]string{"build": "success", "unit": "success", "lint": "failed", "deploy": "manual"}, "success")
		deadline := time.Now().Add(10 * time.Second)
		for {
			srv.JSON(t, "GET", p.path("/merge_requests/%d", mr.IID), srv.RootToken, nil, 200, &mr)
			if mr.State == "merged" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("merge request still %q (merge_when_pipeline_succeeds %v) after its pipeline succeeded", mr.State, mr.MergeWhenPipelineSucceeds)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if mr.mergeSHA() == "" {
			t.Errorf("merged without merge_commit_sha")
		}
	})
}
