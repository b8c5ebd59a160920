package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/app/apptest"
)

// ciConfig is the pipeline the client test runs: a build job that
// reports coverage, a test job, and a manual deploy.
const ciConfig = `stages: [build, test, deploy]
build:
  stage: build
  script: [make]
  coverage: '/coverage (\d+\.\d+)%/'
test:
  stage: test
  script: [make test]
deploy:
  stage: deploy
  script: [make deploy]
  when: manual
`

// runnerClient plays gitlab-runner's side of the protocol over HTTP, just
// enough for the client test to move jobs along.
type runnerClient struct {
	t     *testing.T
	base  string
	token string
}

// request asks for a job: the job's ID and token, or 0 when none is due.
func (r runnerClient) request() (int64, string) {
	r.t.Helper()
	resp, data := r.call("POST", "/jobs/request", "", map[string]any{"token": r.token, "info": map[string]any{"name": "gitlab-runner", "version": "17.11.0"}})
	switch resp.StatusCode {
	case http.StatusNoContent:
		return 0, ""
	case http.StatusCreated:
		var job struct {
			ID    int64  `json:"id"`
			Token string `json:"token"`
		}
		if err := json.Unmarshal(data, &job); err != nil || job.ID == 0 || job.Token == "" {
			r.t.Fatalf("job payload %s: %v", data, err)
		}
		return job.ID, job.Token
	}
	r.t.Fatalf("jobs/request: %d %s", resp.StatusCode, data)
	return 0, ""
}

// finish appends trace to the job and reports state.
func (r runnerClient) finish(id int64, token, trace, state string) {
	r.t.Helper()
	req, _ := http.NewRequest("PATCH", fmt.Sprintf("%s/api/v4/jobs/%d/trace", r.base, id), strings.NewReader(trace))
	req.Header.Set("JOB-TOKEN", token)
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Content-Range", fmt.Sprintf("0-%d", len(trace)-1))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		r.t.Fatalf("trace of job %d: %d", id, resp.StatusCode)
	}
	body := map[string]any{"token": token, "state": state}
	if state == "failed" {
		body["failure_reason"] = "script_failure"
		body["exit_code"] = 1
	}
	if resp, data := r.call("PUT", fmt.Sprintf("/jobs/%d", id), token, body); resp.StatusCode != http.StatusOK {
		r.t.Fatalf("update job %d to %s: %d %s", id, state, resp.StatusCode, data)
	}
}

func (r runnerClient) call(method, path, jobToken string, body any) (*http.Response, []byte) {
	r.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, r.base+"/api/v4"+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if jobToken != "" {
		req.Header.Set("JOB-TOKEN", jobToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

// TestGitLabClientCI drives the Pipelines, Jobs, Commit statuses, Runners
// and project Variables services of the official Go client against the
// running app, with a protocol-speaking runner moving the jobs: every call
// must parse, and the values it returns are checked.
func TestGitLabClientCI(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	gl, err := gitlab.NewClient(srv.RootToken, gitlab.WithBaseURL(srv.API()))
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := gl.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.Ptr("ci-client")})
	if err != nil {
		t.Fatalf("create project: %v", err)
	}
	commit, _, err := gl.Commits.CreateCommit(p.ID, &gitlab.CreateCommitOptions{
		Branch: gitlab.Ptr("main"), CommitMessage: gitlab.Ptr("add CI"),
		Actions: []*gitlab.CommitActionOptions{{Action: gitlab.Ptr(gitlab.FileCreate), FilePath: gitlab.Ptr(".gitlab-ci.yml"), Content: gitlab.Ptr(ciConfig)}},
	})
	if err != nil {
		t.Fatalf("create commit: %v", err)
	}

	// The commit created a pipeline whose first stage waits for a runner.
	pipes, _, err := gl.Pipelines.ListProjectPipelines(p.ID, &gitlab.ListProjectPipelinesOptions{Ref: gitlab.Ptr("main")})
	if err != nil || len(pipes) != 1 || pipes[0].SHA != commit.ID || pipes[0].Status != "pending" {
		t.Fatalf("pipelines: %v %+v", err, pipes)
	}
	pipeID := pipes[0].ID

	// Variables.
	v, _, err := gl.ProjectVariables.CreateVariable(p.ID, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.Ptr("DEPLOY_KEY"), Value: gitlab.Ptr("s3cr3t-value-1"), Protected: gitlab.Ptr(true), Masked: gitlab.Ptr(true)})
	if err != nil || v.Key != "DEPLOY_KEY" || !v.Protected || !v.Masked {
		t.Fatalf("create variable: %v %+v", err, v)
	}
	if _, _, err := gl.ProjectVariables.UpdateVariable(p.ID, "DEPLOY_KEY", &gitlab.UpdateProjectVariableOptions{Value: gitlab.Ptr("other-secret-2")}); err != nil {
		t.Fatalf("update variable: %v", err)
	}
	if got, _, err := gl.ProjectVariables.GetVariable(p.ID, "DEPLOY_KEY", nil); err != nil || got.Value != "other-secret-2" {
		t.Fatalf("get variable: %v %+v", err, got)
	}
	if vars, _, err := gl.ProjectVariables.ListVariables(p.ID, nil); err != nil || len(vars) != 1 {
		t.Fatalf("list variables: %v %+v", err, vars)
	}
	if _, err := gl.ProjectVariables.RemoveVariable(p.ID, "DEPLOY_KEY", nil); err != nil {
		t.Fatalf("remove variable: %v", err)
	}
	if _, resp, err := gl.ProjectVariables.GetVariable(p.ID, "DEPLOY_KEY", nil); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("removed variable: %v", err)
	}

	// A runner registers with the project's token and takes the build job.
	reg, _, err := gl.Runners.ResetProjectRunnerRegistrationToken(p.ID)
	if err != nil || reg.Token == nil || *reg.Token == "" {
		t.Fatalf("registration token: %v %+v", err, reg)
	}
	runner, _, err := gl.Runners.RegisterNewRunner(&gitlab.RegisterNewRunnerOptions{
		Token: reg.Token, Description: gitlab.Ptr("client-runner"), TagList: &[]string{"linux"}, RunUntagged: gitlab.Ptr(true)})
	if err != nil || runner.ID == 0 || runner.Token == "" {
		t.Fatalf("register runner: %v %+v", err, runner)
	}
	if _, err := gl.Runners.VerifyRegisteredRunner(&gitlab.VerifyRegisteredRunnerOptions{Token: gitlab.Ptr(runner.Token)}); err != nil {
		t.Fatalf("verify runner: %v", err)
	}
	rc := runnerClient{t: t, base: srv.URL, token: runner.Token}
	buildID, buildToken := rc.request()
	if buildID == 0 {
		t.Fatal("no job for the runner")
	}
	if j, _, err := gl.Jobs.GetJob(p.ID, buildID); err != nil || j.Status != "running" || j.Name != "build" || j.Runner.ID != runner.ID || j.Pipeline.ID != pipeID {
		t.Fatalf("running job: %v %+v", err, j)
	}
	rc.finish(buildID, buildToken, "compiling\ncoverage 87.50%\n", "success")

	build, _, err := gl.Jobs.GetJob(p.ID, buildID)
	if err != nil || build.Status != "success" || build.Coverage != 87.5 || build.FinishedAt == nil || build.Commit == nil || build.Commit.ID != commit.ID || build.User == nil || build.User.Username != "root" {
		t.Fatalf("finished job: %v %+v", err, build)
	}
	trace, _, err := gl.Jobs.GetTraceFile(p.ID, buildID)
	if err != nil {
		t.Fatalf("trace: %v", err)
	}
	if b, _ := io.ReadAll(trace); !strings.Contains(string(b), "coverage 87.50%") {
		t.Fatalf("trace: %q", b)
	}

	// The test job fails; retrying it makes a new job that succeeds.
	testID, testToken := rc.request()
	rc.finish(testID, testToken, "FAIL\n", "failed")
	if pl, _, err := gl.Pipelines.GetPipeline(p.ID, pipeID); err != nil || pl.Status != "failed" {
		t.Fatalf("failed pipeline: %v %+v", err, pl)
	}
	failed, _, err := gl.Jobs.ListProjectJobs(p.ID, &gitlab.ListJobsOptions{Scope: &[]gitlab.BuildStateValue{gitlab.Failed}})
	if err != nil || len(failed) != 1 || failed[0].ID != testID || failed[0].FailureReason != "script_failure" {
		t.Fatalf("failed jobs: %v %+v", err, failed)
	}
	retried, _, err := gl.Jobs.RetryJob(p.ID, testID)
	if err != nil || retried.ID == testID || retried.Name != "test" || retried.Status != "pending" || retried.FinishedAt != nil {
		t.Fatalf("retry job: %v %+v", err, retried)
	}
	id, tok := rc.request()
	if id != retried.ID {
		t.Fatalf("runner got job %d, want the retry %d", id, retried.ID)
	}
	rc.finish(id, tok, "ok\n", "success")

	// The deploy job waits to be played; the pipeline reads as GitLab's.
	jobs, _, err := gl.Jobs.ListPipelineJobs(p.ID, pipeID, nil)
	if err != nil || len(jobs) != 4 {
		t.Fatalf("pipeline jobs (GitLab 9.x lists the retried one too): %v %+v", err, jobs)
	}
	if jobs[0].ID != retried.ID || jobs[1].Name != "deploy" || jobs[1].Status != "manual" || jobs[2].ID != testID || jobs[3].ID != buildID {
		t.Fatalf("pipeline jobs, newest first: %+v %+v %+v %+v", jobs[0], jobs[1], jobs[2], jobs[3])
	}
	pl, _, err := gl.Pipelines.GetPipeline(p.ID, pipeID)
	if err != nil || pl.Status != "success" || pl.SHA != commit.ID || pl.Ref != "main" || pl.User == nil || pl.StartedAt == nil {
		t.Fatalf("pipeline with a manual job left: %v %+v", err, pl)
	}
	played, _, err := gl.Jobs.PlayJob(p.ID, jobs[1].ID, nil)
	if err != nil || played.Status != "started" || played.FinishedAt != nil { // the spec: play answers "started"
		t.Fatalf("play: %v %+v", err, played)
	}
	canceled, _, err := gl.Jobs.CancelJob(p.ID, played.ID)
	if err != nil || canceled.Status != "canceled" {
		t.Fatalf("cancel: %v %+v", err, canceled)
	}
	erased, _, err := gl.Jobs.EraseJob(p.ID, buildID)
	if err != nil || erased.ID != buildID || erased.Status != "success" {
		t.Fatalf("erase: %v %+v", err, erased)
	}
	if _, resp, err := gl.Jobs.GetTraceFile(p.ID, buildID); err == nil && resp.StatusCode == http.StatusOK {
		if b, _ := io.ReadAll(resp.Body); strings.Contains(string(b), "coverage") {
			t.Fatal("the erased job still has its trace")
		}
	}
	if _, resp, err := gl.Jobs.GetJobArtifacts(p.ID, buildID); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("artifacts of a job without any: %v", err)
	}

	// Commit statuses share the commit with the CI jobs.
	st, _, err := gl.Commits.SetCommitStatus(p.ID, commit.ID, &gitlab.SetCommitStatusOptions{
		State: gitlab.Running, Name: gitlab.Ptr("lint"), TargetURL: gitlab.Ptr("https://ci.example.com/1"), Description: gitlab.Ptr("linting")})
	if err != nil || st.Status != "running" || st.Name != "lint" || st.SHA != commit.ID || st.TargetURL != "https://ci.example.com/1" {
		t.Fatalf("set status: %v %+v", err, st)
	}
	if st, _, err = gl.Commits.SetCommitStatus(p.ID, commit.ID, &gitlab.SetCommitStatusOptions{State: gitlab.Success, Name: gitlab.Ptr("lint")}); err != nil || st.Status != "success" {
		t.Fatalf("update status: %v %+v", err, st)
	}
	statuses, _, err := gl.Commits.GetCommitStatuses(p.ID, commit.ID, &gitlab.GetCommitStatusesOptions{All: gitlab.Ptr(true)})
	if err != nil {
		t.Fatalf("statuses: %v", err)
	}
	names := map[string]string{}
	for _, s := range statuses {
		names[s.Name] = s.Status
	}
	if names["lint"] != "success" || names["build"] != "success" {
		t.Fatalf("statuses: %+v", names)
	}
	if c, _, err := gl.Commits.GetCommit(p.ID, commit.ID, nil); err != nil || c.Status == nil || *c.Status == "" {
		t.Fatalf("commit status field: %v %+v", err, c)
	}

	// Pipelines: create on a ref, cancel, retry, delete.
	np, _, err := gl.Pipelines.CreatePipeline(p.ID, &gitlab.CreatePipelineOptions{Ref: gitlab.Ptr("main")})
	if err != nil || np.ID == pipeID || np.Status != "pending" || np.SHA != commit.ID {
		t.Fatalf("create pipeline: %v %+v", err, np)
	}
	if c, _, err := gl.Pipelines.CancelPipelineBuild(p.ID, np.ID); err != nil || c.Status != "canceled" {
		t.Fatalf("cancel pipeline: %v %+v", err, c)
	}
	// A finished pipeline that gets pending jobs again is running
	// (GitLab's enqueue event: success/failed/canceled -> running).
	if r, _, err := gl.Pipelines.RetryPipelineBuild(p.ID, np.ID); err != nil || r.Status != "running" {
		t.Fatalf("retry pipeline: %v %+v", err, r)
	}
	if _, err := gl.Pipelines.DeletePipeline(p.ID, np.ID); err != nil {
		t.Fatalf("delete pipeline: %v", err)
	}
	if _, resp, err := gl.Pipelines.GetPipeline(p.ID, np.ID); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted pipeline: %v", err)
	}

	// Runners.
	mine, _, err := gl.Runners.ListRunners(nil)
	if err != nil || len(mine) != 1 || mine[0].ID != runner.ID || mine[0].Description != "client-runner" {
		t.Fatalf("list runners: %v %+v", err, mine)
	}
	if all, _, err := gl.Runners.ListAllRunners(nil); err != nil || len(all) != 1 {
		t.Fatalf("all runners: %v %+v", err, all)
	}
	det, _, err := gl.Runners.UpdateRunnerDetails(runner.ID, &gitlab.UpdateRunnerDetailsOptions{Description: gitlab.Ptr("renamed"), TagList: &[]string{"linux", "go"}})
	if err != nil || det.Description != "renamed" || len(det.TagList) != 2 {
		t.Fatalf("update runner: %v %+v", err, det)
	}
	if det, _, err = gl.Runners.GetRunnerDetails(runner.ID); err != nil || len(det.Projects) != 1 || det.Projects[0].ID != p.ID || det.ContactedAt == nil {
		t.Fatalf("runner details: %v %+v", err, det)
	}
	if rj, _, err := gl.Runners.ListRunnerJobs(runner.ID, nil); err != nil || len(rj) != 3 {
		t.Fatalf("runner jobs: %v %+v", err, rj)
	}
	if pr, _, err := gl.Runners.ListProjectRunners(p.ID, nil); err != nil || len(pr) != 1 {
		t.Fatalf("project runners: %v %+v", err, pr)
	}
	if resp, err := gl.Runners.DisableProjectRunner(p.ID, runner.ID); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("disabling the runner's only project: %v", err)
	}
	if _, err := gl.Runners.RemoveRunner(runner.ID); err != nil {
		t.Fatalf("remove runner: %v", err)
	}
	if _, resp, err := gl.Runners.GetRunnerDetails(runner.ID); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("removed runner: %v", err)
	}
}
