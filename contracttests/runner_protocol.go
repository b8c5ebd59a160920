package contracttests

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RunnerServer is a running Hearth the runner-protocol suite drives.
type RunnerServer struct {
	URL       string // server root, without /api/v4
	RootToken string // an api-scoped token of the root administrator
	// RegistrationToken is the instance registration token
	// (config ci.registration_token), which registers shared runners.
	RegistrationToken string
	// MaxArtifactsBytes is the server's ci.max_artifacts_bytes; the suite
	// uploads 50 MB, so it must be at least 64 MiB.
	MaxArtifactsBytes int64
	// Memory, when set, reports the server process's resident memory in
	// bytes; the large-upload case then checks that a 50 MB upload grows
	// it by less than 20 MB. The suite calls it once for the baseline and
	// then every few milliseconds during the upload, from one goroutine.
	// Leave it nil when other tests share the process, since their
	// allocations would count as the server's.
	Memory func() int64
}

// RunnerServerFactory starts a fresh server for one subtest; it is called
// from parallel subtests.
type RunnerServerFactory func(t *testing.T) RunnerServer

// RunRunnerProtocolSuite plays gitlab-runner's side of the runner protocol
// (../shared/RUNNER-PROTOCOL.md) byte for byte over real HTTP: the paths,
// bodies and headers gitlab-runner 17.11 sends, and the statuses, headers
// and keys it reads back. It sets up projects and pipelines through the
// public API only (a commit of .gitlab-ci.yml, then POST
// /projects/:id/pipeline when the push made none), so any server speaking
// the protocol can run it. Every subtest gets a fresh server and runs in
// parallel.
func RunRunnerProtocolSuite(t *testing.T, newServer RunnerServerFactory) {
	cases := []struct {
		name string
		fn   func(t *testing.T, e *ciEnv)
	}{
		{"Register", runnerRegister},
		{"VerifyAndUnregister", runnerVerify},
		{"RequestNothing", runnerRequestNothing},
		{"RequestJobPayload", runnerRequestPayload},
		{"UpdateJob", runnerUpdateJob},
		{"TraceRanges", runnerTrace},
		{"CancelThroughJobStatus", runnerCancel},
		{"ArtifactsAndDependencies", runnerDependencies},
		{"LargeArtifactStreams", runnerLargeArtifact},
		{"ArtifactOverLimit", runnerArtifactTooLarge},
		{"JobTokenGitFetch", runnerJobTokenGit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newCIEnv(t, newServer(t)))
		})
	}
}

// RunRunnerArtifactMemory is the large-upload case alone, for a caller
// that runs it with nothing else in the process (a test that does not
// call t.Parallel) and a Memory probe, so RSS growth is the server's.
func RunRunnerArtifactMemory(t *testing.T, newServer RunnerServerFactory) {
	srv := newServer(t)
	if srv.Memory == nil {
		t.Fatal("RunRunnerArtifactMemory needs a Memory probe")
	}
	runnerLargeArtifact(t, newCIEnv(t, srv))
}

// ciEnv is one server seen from the public API and from a runner.
type ciEnv struct {
	t      *testing.T
	srv    RunnerServer
	api    apiClient
	runner RunnerClient
	ctx    context.Context
}

func newCIEnv(t *testing.T, srv RunnerServer) *ciEnv {
	return &ciEnv{
		t: t, srv: srv,
		api:    apiClient{t: t, srv: APIServer{URL: srv.URL, RootToken: srv.RootToken}},
		runner: RunnerClient{URL: srv.URL, HTTP: &http.Client{Timeout: 2 * time.Minute}},
		ctx:    t.Context(),
	}
}

// ciProject is a project with a pipeline on main.
type ciProject struct {
	ID         int64
	Path       string // path_with_namespace
	SHA        string // head of main
	PipelineID int64
	// RunnersToken registers runners of this project only.
	RunnersToken string
}

// newCIProject creates a private project of root's whose main holds
// .gitlab-ci.yml (and files), waits for the pipeline of that commit and
// creates it through the API if the push made none.
func (e *ciEnv) newCIProject(name, yml string, files ...string) ciProject {
	e.t.Helper()
	p := e.api.expect(201, "POST", "/projects", e.srv.RootToken, form("name", name, "visibility", "private")).object(e.t)
	pr := ciProject{ID: int64(p["id"].(float64)), Path: p["path_with_namespace"].(string)}
	actions := []map[string]string{{"action": "create", "file_path": ".gitlab-ci.yml", "content": yml}}
	for i := 0; i+1 < len(files); i += 2 {
		actions = append(actions, map[string]string{"action": "create", "file_path": files[i], "content": files[i+1]})
	}
	c := e.api.expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", pr.ID), e.srv.RootToken,
		map[string]any{"branch": "main", "commit_message": "Add CI", "actions": actions}).object(e.t)
	pr.SHA = c["id"].(string)
	pr.PipelineID = e.pipelineFor(pr.ID, pr.SHA)
	tok := e.api.expect(201, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", pr.ID), e.srv.RootToken, nil).object(e.t)
	pr.RunnersToken, _ = tok["token"].(string)
	if pr.RunnersToken == "" {
		e.t.Fatalf("reset_registration_token gave no token: %v", tok)
	}
	return pr
}

// pipelineFor finds the pipeline of sha on main, creating it with POST
// /projects/:id/pipeline?ref=main when the push made none.
func (e *ciEnv) pipelineFor(pid int64, sha string) int64 {
	e.t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		for _, p := range e.api.expect(200, "GET", fmt.Sprintf("/projects/%d/pipelines?ref=main", pid), e.srv.RootToken, nil).list(e.t) {
			if p["sha"] == sha {
				return int64(p["id"].(float64))
			}
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	p := e.api.expect(201, "POST", fmt.Sprintf("/projects/%d/pipeline?ref=main", pid), e.srv.RootToken, nil).object(e.t)
	return int64(p["id"].(float64))
}

// register registers a runner with a registration token and returns its
// token.
func (e *ciEnv) register(regToken string, params map[string]any) string {
	e.t.Helper()
	_, tok, r, err := e.runner.Register(e.ctx, regToken, params)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.Status != http.StatusCreated {
		e.t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	return tok
}

// take asks for a job until one comes (the pipeline may still be
// enqueueing), failing after a few seconds of 204s.
func (e *ciEnv) take(runnerToken string) *RunnerJob {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		job, r, err := e.runner.RequestJob(e.ctx, runnerToken, "")
		if err != nil {
			e.t.Fatal(err)
		}
		switch {
		case r.Status == http.StatusCreated:
			if r.MediaType() != "application/json" {
				e.t.Fatalf("jobs/request 201 Content-Type %q: the runner refuses it", r.Header.Get("Content-Type"))
			}
			return job
		case r.Status != http.StatusNoContent:
			e.t.Fatalf("jobs/request: %d %s", r.Status, r.Body)
		case time.Now().After(deadline):
			e.t.Fatal("jobs/request: no job came within 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// update sends PUT /jobs/:id and checks the status.
func (e *ciEnv) update(job *RunnerJob, state, reason string, trace []byte, want int) RunnerReply {
	e.t.Helper()
	r, err := e.runner.UpdateJob(e.ctx, job.ID, job.Token, state, reason, 0, trace)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.Status != want {
		e.t.Fatalf("PUT /jobs/%d state=%s: %d %s, want %d", job.ID, state, r.Status, r.Body, want)
	}
	return r
}

// patch sends a trace patch and checks the status.
func (e *ciEnv) patch(job *RunnerJob, start int, data string, want int) RunnerReply {
	e.t.Helper()
	r, err := e.runner.PatchTrace(e.ctx, job.ID, job.Token, start, []byte(data))
	if err != nil {
		e.t.Fatal(err)
	}
	if r.Status != want {
		e.t.Fatalf("PATCH /jobs/%d/trace %d-%d: %d %s, want %d", job.ID, start, start+len(data)-1, r.Status, r.Body, want)
	}
	return r
}

// jobStatus reads a job's status through the public API.
func (e *ciEnv) jobStatus(pid, jobID int64) string {
	e.t.Helper()
	j := e.api.expect(200, "GET", fmt.Sprintf("/projects/%d/jobs/%d", pid, jobID), e.srv.RootToken, nil).object(e.t)
	s, _ := j["status"].(string)
	return s
}

// waitJobStatus polls the public API until the job has status want.
func (e *ciEnv) waitJobStatus(pid, jobID int64, want string) {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := e.jobStatus(pid, jobID)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("job %d: status %q, want %q", jobID, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// trace reads the job log through the public API.
func (e *ciEnv) trace(pid, jobID int64) string {
	e.t.Helper()
	resp, data, err := SendAPI(e.srv.URL, "GET", fmt.Sprintf("/projects/%d/jobs/%d/trace", pid, jobID), e.srv.RootToken, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		e.t.Fatalf("GET trace of job %d: %d %s", jobID, resp.StatusCode, data)
	}
	return string(data)
}

var traceInterval = regexp.MustCompile(`^-?\d+$`)

// wantJobHeaders checks the headers the runner reads from an update or a
// trace patch: Job-Status and X-GitLab-Trace-Update-Interval.
func wantJobHeaders(t *testing.T, r RunnerReply, status string) {
	t.Helper()
	if got := r.Header.Get("Job-Status"); got != status {
		t.Errorf("Job-Status %q, want %q (headers %v)", got, status, r.Header)
	}
	if iv := r.Header.Get("X-GitLab-Trace-Update-Interval"); !traceInterval.MatchString(iv) {
		t.Errorf("X-GitLab-Trace-Update-Interval %q is not a number of seconds", iv)
	}
}

// wantRange checks the Range header of a trace answer: 0-<length>.
func wantRange(t *testing.T, r RunnerReply, length int) {
	t.Helper()
	if got, want := r.Header.Get("Range"), "0-"+strconv.Itoa(length); got != want {
		t.Errorf("Range %q, want %q", got, want)
	}
}

// wantJSON checks the Content-Type the runner requires of a JSON answer.
func wantJSON(t *testing.T, what string, r RunnerReply) {
	t.Helper()
	if r.MediaType() != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", what, r.Header.Get("Content-Type"))
	}
}

// oneJobYML is a pipeline with a single job.
const oneJobYML = `
variables:
  GLOBAL_VAR: global-value
before_script:
  - echo before
job1:
  stage: test
  variables:
    JOB_VAR: job-value
  script:
    - echo hello
    - make test
  after_script:
    - echo after
  artifacts:
    paths: [out/]
    expire_in: 1 week
`

// hexSHA is a full commit SHA.
var hexSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !strings.HasPrefix(u.Scheme, "http") {
		t.Fatalf("%q is not an absolute http URL: %v", raw, err)
	}
	return u
}
