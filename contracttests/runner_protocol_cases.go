package contracttests

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func runnerRegister(t *testing.T, e *ciEnv) {
	p := e.newCIProject("reg", oneJobYML)
	for _, tc := range []struct{ name, token string }{{"instance", e.srv.RegistrationToken}, {"project", p.RunnersToken}} {
		_, _, r, err := e.runner.Register(e.ctx, tc.token, map[string]any{"description": tc.name + " runner", "tag_list": "linux,shell"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != http.StatusCreated {
			t.Fatalf("register with the %s token: %d %s", tc.name, r.Status, r.Body)
		}
		wantJSON(t, "POST /runners", r)
		var m map[string]any
		if err := r.Decode(&m); err != nil {
			t.Fatal(err)
		}
		wantKeys(t, m, "id", "token", "token_expires_at")
		if id, _ := m["id"].(float64); id <= 0 {
			t.Errorf("runner id %v", m["id"])
		}
		if tok, _ := m["token"].(string); !strings.HasPrefix(tok, "glrt-") || len(tok) < 20 {
			t.Errorf("runner token %q: want a glrt- token", tok)
		}
		if m["token_expires_at"] != nil {
			t.Errorf("token_expires_at %v, want null", m["token_expires_at"])
		}
	}
	// A wrong registration token is a 403, as GitLab's forbidden!.
	_, _, r, err := e.runner.Register(e.ctx, "not-a-registration-token", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusForbidden {
		t.Errorf("register with a bad token: %d %s, want 403", r.Status, r.Body)
	}
	// A reset project token replaces the old one.
	fresh := e.api.expect(201, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", p.ID), e.srv.RootToken, nil).object(t)
	if fresh["token"] == p.RunnersToken || fresh["token"] == "" {
		t.Errorf("reset_registration_token kept the token: %v", fresh)
	}
	_, _, r, _ = e.runner.Register(e.ctx, p.RunnersToken, nil)
	if r.Status != http.StatusForbidden {
		t.Errorf("register with the replaced token: %d, want 403", r.Status)
	}
	e.register(fresh["token"].(string), nil)
}

func runnerVerify(t *testing.T, e *ciEnv) {
	tok := e.register(e.srv.RegistrationToken, nil)
	r, err := e.runner.Verify(e.ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	wantJSON(t, "POST /runners/verify", r)
	var v map[string]any
	if err := r.Decode(&v); err != nil {
		t.Fatal(err)
	}
	// register --token (the new flow) aborts on an id of 0.
	if id, _ := v["id"].(float64); id <= 0 {
		t.Errorf("verify id %v: the runner aborts on 0", v["id"])
	}
	if v["token"] != tok {
		t.Errorf("verify token %v", v["token"])
	}
	if r, _ := e.runner.Verify(e.ctx, "glrt-unknown-runner-token"); r.Status != http.StatusForbidden {
		t.Errorf("verify of an unknown token: %d %s, want 403", r.Status, r.Body)
	}
	r, err = e.runner.SendJSON(e.ctx, "DELETE", "runners/managers", "", "", map[string]any{"token": tok, "system_id": "s_0123456789ab"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusNoContent {
		t.Errorf("DELETE /runners/managers: %d %s, want 204", r.Status, r.Body)
	}
	r, err = e.runner.SendJSON(e.ctx, "DELETE", "runners", "", "", map[string]any{"token": tok})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusNoContent {
		t.Fatalf("DELETE /runners: %d %s, want 204", r.Status, r.Body)
	}
	if r, _ := e.runner.Verify(e.ctx, tok); r.Status != http.StatusForbidden {
		t.Errorf("verify after unregister: %d, want 403", r.Status)
	}
	if _, r, _ := e.runner.RequestJob(e.ctx, tok, ""); r.Status != http.StatusForbidden {
		t.Errorf("jobs/request after unregister: %d, want 403", r.Status)
	}
}

func runnerRequestNothing(t *testing.T, e *ciEnv) {
	tok := e.register(e.srv.RegistrationToken, nil)
	_, r, err := e.runner.RequestJob(e.ctx, tok, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusNoContent {
		t.Fatalf("jobs/request with no job: %d %s, want 204", r.Status, r.Body)
	}
	if len(r.Body) != 0 {
		t.Errorf("204 with a body %q", r.Body)
	}
	lu := r.Header.Get("X-GitLab-Last-Update")
	if lu == "" {
		t.Errorf("204 without X-GitLab-Last-Update: %v", r.Header)
	}
	// The runner sends the version back; still nothing to do.
	if _, r, _ = e.runner.RequestJob(e.ctx, tok, lu); r.Status != http.StatusNoContent || r.Header.Get("X-GitLab-Last-Update") == "" {
		t.Errorf("jobs/request with last_update: %d %v", r.Status, r.Header)
	}
	for _, bad := range []string{"", "glrt-not-a-runner"} {
		if _, r, _ := e.runner.RequestJob(e.ctx, bad, ""); r.Status != http.StatusForbidden && !(bad == "" && r.Status == http.StatusBadRequest) {
			t.Errorf("jobs/request with token %q: %d %s, want 403", bad, r.Status, r.Body)
		}
	}
	// A paused runner gets nothing either (403, as GitLab).
	id, tok2, _, _ := e.runner.Register(e.ctx, e.srv.RegistrationToken, nil)
	e.api.expect(200, "PUT", fmt.Sprintf("/runners/%d", id), e.srv.RootToken, form("active", "false"))
	if _, r, _ := e.runner.RequestJob(e.ctx, tok2, ""); r.Status != http.StatusForbidden {
		t.Errorf("jobs/request of a paused runner: %d %s, want 403", r.Status, r.Body)
	}
}

func runnerRequestPayload(t *testing.T, e *ciEnv) {
	p := e.newCIProject("payload", oneJobYML)
	tok := e.register(p.RunnersToken, nil)
	job := e.take(tok)
	wantKeys(t, job.Raw, "id", "token", "allow_git_fetch", "job_info", "git_info", "runner_info", "variables",
		"steps", "image", "services", "artifacts", "cache", "credentials", "dependencies", "features")
	if job.ID <= 0 || job.Token == "" || job.JobInfo.ID != job.ID {
		t.Errorf("id %d token %q job_info.id %d", job.ID, job.Token, job.JobInfo.ID)
	}
	if job.JobInfo.Name != "job1" || job.JobInfo.Stage != "test" || job.JobInfo.ProjectID != p.ID || job.JobInfo.ProjectName != "payload" {
		t.Errorf("job_info %+v", job.JobInfo)
	}
	g := job.GitInfo
	u := mustURL(t, g.RepoURL)
	if pw, _ := u.User.Password(); u.User.Username() != "gitlab-ci-token" || pw != job.Token {
		t.Errorf("repo_url %q must carry gitlab-ci-token:<job token>", g.RepoURL)
	}
	if !strings.HasSuffix(u.Path, "/"+p.Path+".git") {
		t.Errorf("repo_url path %q, want .../%s.git", u.Path, p.Path)
	}
	if g.Ref != "main" || g.Sha != p.SHA || !hexSHA.MatchString(g.BeforeSha) || g.RefType != "branch" {
		t.Errorf("git_info %+v (sha %s)", g, p.SHA)
	}
	if len(g.Refspecs) == 0 || !strings.Contains(strings.Join(g.Refspecs, " "), "refs/heads/main") {
		t.Errorf("refspecs %v", g.Refspecs)
	}
	if job.RunnerInfo.Timeout <= 0 {
		t.Errorf("runner_info.timeout %d", job.RunnerInfo.Timeout)
	}
	want := map[string]string{
		"CI": "true", "GITLAB_CI": "true", "CI_JOB_ID": strconv.FormatInt(job.ID, 10), "CI_JOB_TOKEN": job.Token,
		"CI_JOB_NAME": "job1", "CI_JOB_STAGE": "test", "CI_COMMIT_SHA": p.SHA, "CI_COMMIT_SHORT_SHA": p.SHA[:8],
		"CI_COMMIT_REF_NAME": "main", "CI_PROJECT_ID": strconv.FormatInt(p.ID, 10), "CI_PROJECT_PATH": p.Path,
		"CI_PROJECT_NAME": "payload", "CI_PIPELINE_ID": strconv.FormatInt(p.PipelineID, 10),
		"CI_SERVER_URL": e.srv.URL, "GLOBAL_VAR": "global-value", "JOB_VAR": "job-value",
	}
	for k, v := range want {
		if got, ok := job.Variable(k); !ok || got != v {
			t.Errorf("variable %s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"CI_SERVER_HOST", "CI_SERVER_NAME", "CI_COMMIT_BEFORE_SHA", "CI_PROJECT_NAMESPACE",
		"CI_PROJECT_URL", "CI_REPOSITORY_URL", "CI_PIPELINE_SOURCE", "GITLAB_USER_ID", "GITLAB_USER_LOGIN"} {
		if _, ok := job.Variable(k); !ok {
			t.Errorf("variable %s missing", k)
		}
	}
	for _, v := range job.Variables {
		if v.Key == "CI_JOB_TOKEN" && v.Public {
			t.Errorf("CI_JOB_TOKEN must not be public")
		}
	}
	var script, after []string
	for _, s := range job.Steps {
		switch s.Name {
		case "script":
			script = s.Script
			if s.When != "on_success" || s.AllowFailure || s.Timeout <= 0 {
				t.Errorf("script step %+v", s)
			}
		case "after_script":
			after = s.Script
			if s.When != "always" || !s.AllowFailure {
				t.Errorf("after_script step %+v", s)
			}
		}
	}
	if strings.Join(script, "|") != "echo before|echo hello|make test" {
		t.Errorf("script step %q: before_script joins in front of script", script)
	}
	if strings.Join(after, "|") != "echo after" {
		t.Errorf("after_script step %q", after)
	}
	if len(job.Artifacts) != 1 || strings.Join(job.Artifacts[0].Paths, ",") != "out/" || job.Artifacts[0].When != "on_success" ||
		job.Artifacts[0].Type != "archive" || job.Artifacts[0].Format != "zip" || job.Artifacts[0].ExpireIn != "1 week" {
		t.Errorf("artifacts %+v", job.Artifacts)
	}
	if len(job.Dependencies) != 0 {
		t.Errorf("dependencies %+v", job.Dependencies)
	}
	// The job is running, bound to this runner, and nobody else gets it.
	if s := e.jobStatus(p.ID, job.ID); s != "running" {
		t.Errorf("job status after hand-out %q, want running", s)
	}
	jb := e.api.expect(200, "GET", fmt.Sprintf("/projects/%d/jobs/%d", p.ID, job.ID), e.srv.RootToken, nil).object(t)
	if rn, _ := jb["runner"].(map[string]any); rn == nil || rn["id"] == nil {
		t.Errorf("job runner %v", jb["runner"])
	}
	other := e.register(e.srv.RegistrationToken, nil)
	if _, r, _ := e.runner.RequestJob(e.ctx, other, ""); r.Status != http.StatusNoContent {
		t.Errorf("second runner: %d %s, want 204", r.Status, r.Body)
	}
	if _, r, _ := e.runner.RequestJob(e.ctx, tok, ""); r.Status != http.StatusNoContent {
		t.Errorf("same runner again: %d %s, want 204", r.Status, r.Body)
	}
}

func runnerUpdateJob(t *testing.T, e *ciEnv) {
	p := e.newCIProject("updates", oneJobYML)
	tok := e.register(p.RunnersToken, nil)
	job := e.take(tok)
	trace := []byte("hello\n")
	e.patch(job, 0, string(trace), http.StatusAccepted)
	r := e.update(job, "running", "", trace, http.StatusOK)
	wantJobHeaders(t, r, "running")
	if r.Header.Get("Content-Type") != "" {
		wantJSON(t, "PUT /jobs/:id", r)
	}
	// Wrong token: 403, and the job is untouched.
	if r, _ := e.runner.UpdateJob(e.ctx, job.ID, "glcbt-wrong", "success", "", 0, trace); r.Status != http.StatusForbidden {
		t.Errorf("update with a wrong job token: %d %s, want 403", r.Status, r.Body)
	}
	if r, _ := e.runner.UpdateJob(e.ctx, job.ID+100000, job.Token, "success", "", 0, trace); r.Status != http.StatusNotFound && r.Status != http.StatusForbidden {
		t.Errorf("update of an unknown job: %d %s, want 404 or 403", r.Status, r.Body)
	}
	r = e.update(job, "success", "", trace, http.StatusOK)
	if s := r.Header.Get("Job-Status"); s != "success" && s != "" {
		t.Errorf("final update Job-Status %q", s)
	}
	e.waitJobStatus(p.ID, job.ID, "success")
	// The trace is kept (archived) once the job ended.
	if got := e.trace(p.ID, job.ID); got != string(trace) {
		t.Errorf("trace after the end %q, want %q", got, trace)
	}
	// The job is over: its token no longer updates it.
	r, _ = e.runner.UpdateJob(e.ctx, job.ID, job.Token, "running", "", 0, trace)
	if r.Status != http.StatusForbidden {
		t.Errorf("update of a finished job: %d %s, want 403", r.Status, r.Body)
	}
	// A failed job, with its reason and exit code.
	p2 := e.newCIProject("updates-fail", oneJobYML)
	job2 := e.take(e.register(p2.RunnersToken, nil))
	r, err := e.runner.UpdateJob(e.ctx, job2.ID, job2.Token, "failed", "script_failure", 2, nil)
	if err != nil || r.Status != http.StatusOK {
		t.Fatalf("failed update: %d %s %v", r.Status, r.Body, err)
	}
	e.waitJobStatus(p2.ID, job2.ID, "failed")
	j := e.api.expect(200, "GET", fmt.Sprintf("/projects/%d/jobs/%d", p2.ID, job2.ID), e.srv.RootToken, nil).object(t)
	if fr, ok := j["failure_reason"]; ok && fr != "script_failure" {
		t.Errorf("failure_reason %v", fr)
	}
}

func runnerTrace(t *testing.T, e *ciEnv) {
	p := e.newCIProject("trace", oneJobYML)
	job := e.take(e.register(p.RunnersToken, nil))
	r := e.patch(job, 0, "0123456789", http.StatusAccepted)
	wantRange(t, r, 10)
	wantJobHeaders(t, r, "running")
	r = e.patch(job, 10, "abc", http.StatusAccepted)
	wantRange(t, r, 13)
	// A duplicate (a retried patch the server already has) and a gap are
	// both 416 with the server's length, from which the runner resumes.
	r = e.patch(job, 10, "abc", http.StatusRequestedRangeNotSatisfiable)
	wantRange(t, r, 13)
	r = e.patch(job, 0, "0123456789abc", http.StatusRequestedRangeNotSatisfiable)
	wantRange(t, r, 13)
	r = e.patch(job, 20, "gap", http.StatusRequestedRangeNotSatisfiable)
	wantRange(t, r, 13)
	// Missing Content-Range: 400 with GitLab's message.
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	h.Set("JOB-TOKEN", job.Token)
	r, err := e.runner.Send(e.ctx, "PATCH", fmt.Sprintf("jobs/%d/trace", job.ID), h, strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusBadRequest || !bytes.Contains(r.Body, []byte("400 Missing header Content-Range")) {
		t.Errorf("patch without Content-Range: %d %s, want 400 Missing header Content-Range", r.Status, r.Body)
	}
	// A wrong token, an unknown job.
	if r, _ := e.runner.PatchTrace(e.ctx, job.ID, "glcbt-wrong", 13, []byte("x")); r.Status != http.StatusForbidden {
		t.Errorf("patch with a wrong token: %d, want 403", r.Status)
	}
	if r, _ := e.runner.PatchTrace(e.ctx, job.ID+100000, job.Token, 0, []byte("x")); r.Status != http.StatusNotFound && r.Status != http.StatusForbidden {
		t.Errorf("patch of an unknown job: %d, want 404 or 403", r.Status)
	}
	r = e.patch(job, 13, "\nend\n", http.StatusAccepted)
	wantRange(t, r, 18)
	// The public API shows the trace while the job runs.
	if got := e.trace(p.ID, job.ID); got != "0123456789abc\nend\n" {
		t.Errorf("running trace %q", got)
	}
	full := []byte("0123456789abc\nend\n")
	e.update(job, "success", "", full, http.StatusOK)
	e.waitJobStatus(p.ID, job.ID, "success")
	r, _ = e.runner.PatchTrace(e.ctx, job.ID, job.Token, 18, []byte("late"))
	if r.Status != http.StatusForbidden {
		t.Errorf("patch after the end: %d %s, want 403", r.Status, r.Body)
	}
	if got := e.trace(p.ID, job.ID); got != string(full) {
		t.Errorf("archived trace %q", got)
	}
}

func runnerCancel(t *testing.T, e *ciEnv) {
	p := e.newCIProject("cancel", oneJobYML)
	job := e.take(e.register(p.RunnersToken, nil))
	e.patch(job, 0, "working\n", http.StatusAccepted)
	e.api.expect(201, "POST", fmt.Sprintf("/projects/%d/jobs/%d/cancel", p.ID, job.ID), e.srv.RootToken, nil)
	// The runner learns it from its next call: Job-Status: canceling.
	r := e.patch(job, 8, "after_script\n", http.StatusAccepted)
	wantJobHeaders(t, r, "canceling")
	r = e.update(job, "running", "", []byte("working\nafter_script\n"), http.StatusOK)
	wantJobHeaders(t, r, "canceling")
	// It runs after_script, then reports failed with job_canceled.
	e.update(job, "failed", "job_canceled", []byte("working\nafter_script\n"), http.StatusOK)
	e.waitJobStatus(p.ID, job.ID, "canceled")
	if got := e.trace(p.ID, job.ID); got != "working\nafter_script\n" {
		t.Errorf("trace of the canceled job %q", got)
	}
	if r, _ := e.runner.UpdateJob(e.ctx, job.ID, job.Token, "running", "", 0, nil); r.Status != http.StatusForbidden {
		t.Errorf("update after the runner finished a canceled job: %d, want 403", r.Status)
	}
	pl := e.api.expect(200, "GET", fmt.Sprintf("/projects/%d/pipelines/%d", p.ID, p.PipelineID), e.srv.RootToken, nil).object(t)
	if pl["status"] != "canceled" {
		t.Errorf("pipeline status %v, want canceled", pl["status"])
	}
}

// depsYML: build leaves artifacts that test depends on; lint depends on
// nothing.
const depsYML = `
stages: [build, test]
build:
  stage: build
  script: [make]
  artifacts:
    paths: [out/]
test:
  stage: test
  script: [make test]
  dependencies: [build]
`

func runnerDependencies(t *testing.T, e *ciEnv) {
	p := e.newCIProject("deps", depsYML)
	tok := e.register(p.RunnersToken, nil)
	build := e.take(tok)
	if build.JobInfo.Name != "build" {
		t.Fatalf("first job %q, want build", build.JobInfo.Name)
	}
	// Not running yet: test waits for build.
	if _, r, _ := e.runner.RequestJob(e.ctx, tok, ""); r.Status != http.StatusNoContent {
		t.Fatalf("test was handed out before build finished: %d %s", r.Status, r.Body)
	}
	var zipBody bytes.Buffer
	if err := ZipArtifact(map[string]string{"out/app": "binary"})(&zipBody); err != nil {
		t.Fatal(err)
	}
	r := e.upload(build, zipBody.Bytes())
	if r.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s, want 201", r.Status, r.Body)
	}
	e.update(build, "success", "", nil, http.StatusOK)
	test := e.take(tok)
	if test.JobInfo.Name != "test" || len(test.Dependencies) != 1 {
		t.Fatalf("second job %q with dependencies %+v", test.JobInfo.Name, test.Dependencies)
	}
	dep := test.Dependencies[0]
	if dep.ID != build.ID || dep.Name != "build" || dep.Token == "" || dep.ArtifactsFile == nil ||
		dep.ArtifactsFile.Filename != "artifacts.zip" || dep.ArtifactsFile.Size != int64(zipBody.Len()) {
		t.Errorf("dependency %+v (artifacts_file %+v), want build with artifacts.zip of %d bytes", dep, dep.ArtifactsFile, zipBody.Len())
	}
	// The runner downloads with the dependency's token.
	var got bytes.Buffer
	r, _, err := e.runner.DownloadArtifact(e.ctx, dep.ID, dep.Token, &got)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusOK || !bytes.Equal(got.Bytes(), zipBody.Bytes()) {
		t.Errorf("download of build's artifacts: %d, %d bytes, want 200 and the %d uploaded", r.Status, got.Len(), zipBody.Len())
	}
	if r, _, _ := e.runner.DownloadArtifact(e.ctx, dep.ID, "glcbt-wrong", &bytes.Buffer{}); r.Status != http.StatusForbidden && r.Status != http.StatusUnauthorized && r.Status != http.StatusNotFound {
		t.Errorf("download with a wrong token: %d", r.Status)
	}
	// test has no artifacts: 404.
	if r, _, _ := e.runner.DownloadArtifact(e.ctx, test.ID, test.Token, &bytes.Buffer{}); r.Status != http.StatusNotFound {
		t.Errorf("download of a job without artifacts: %d %s, want 404", r.Status, r.Body)
	}
	// The public API shows and serves them too.
	j := e.api.expect(200, "GET", fmt.Sprintf("/projects/%d/jobs/%d", p.ID, build.ID), e.srv.RootToken, nil).object(t)
	if af, _ := j["artifacts_file"].(map[string]any); af == nil || af["filename"] != "artifacts.zip" || af["size"] != float64(zipBody.Len()) {
		t.Errorf("artifacts_file %v", j["artifacts_file"])
	}
	resp, data, err := SendAPI(e.srv.URL, "GET", fmt.Sprintf("/projects/%d/jobs/%d/artifacts", p.ID, build.ID), e.srv.RootToken, nil)
	if err != nil || resp.StatusCode != 200 || !bytes.Equal(data, zipBody.Bytes()) {
		t.Errorf("public artifacts download: %v %v, %d bytes", err, resp.Status, len(data))
	}
	// Uploads need a running job.
	if r := e.upload(build, zipBody.Bytes()); r.Status != http.StatusForbidden {
		t.Errorf("upload to a finished job: %d %s, want 403", r.Status, r.Body)
	}
	e.update(test, "success", "", nil, http.StatusOK)
	e.waitJobStatus(p.ID, test.ID, "success")
}

// upload sends content as the job's archive artifact.
func (e *ciEnv) upload(job *RunnerJob, content []byte) RunnerReply {
	e.t.Helper()
	q := url.Values{"artifact_format": {"zip"}, "artifact_type": {"archive"}, "expire_in": {"1 week"}}
	r, err := e.runner.UploadArtifact(e.ctx, job.ID, job.Token, q, "artifacts.zip", func(w io.Writer) error {
		_, err := w.Write(content)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}
