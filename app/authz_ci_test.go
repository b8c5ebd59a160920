package app_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
)

// The CI rows of the authorization table: pipelines, jobs, traces,
// artifacts, commit statuses, variables, runners, and the runner
// protocol's routes, which no user credential opens.

// ciConfigForTable has a job with artifacts and a manual job in the first
// stage, so that every fresh pipeline has a pending job to cancel and a
// manual one to play at once.
const ciConfigForTable = `build:
  stage: build
  script: [make]
  artifacts:
    paths: [out/]
deploy:
  stage: build
  script: [make deploy]
  when: manual
`

// ciState is what the CI rows act on in a fixture's project: the first
// pipeline, whose build job a runner ran to success with a trace and an
// artifact, the runner that ran it, a variable, and a side project whose
// masters (the master and owner actors) own more runners to enable.
type ciState struct {
	pipeline, build, runner, side int64
	sha                           string
}

func (tr *tracker) ci() *ciState {
	if tr.ciState != nil {
		return tr.ciState
	}
	w, f, t, root := tr.w, tr.f, tr.w.t, tr.w.srv.RootToken
	c := &ciState{}
	tr.ciState = c
	commit := tr.post(fmt.Sprintf("/projects/%d/repository/commits", f.projectID), map[string]any{"branch": "master", "commit_message": "Add CI",
		"actions": []map[string]string{{"action": "create", "file_path": ".gitlab-ci.yml", "content": ciConfigForTable}}})
	c.sha = commit["id"].(string)
	var pipes []struct{ ID int64 }
	w.srv.JSON(t, "GET", fmt.Sprintf("/projects/%d/pipelines?sha=%s", f.projectID, c.sha), root, nil, 200, &pipes)
	if len(pipes) != 1 {
		t.Fatalf("pipelines of the CI commit: %+v", pipes)
	}
	c.pipeline = pipes[0].ID

	var runnerToken string
	c.runner, runnerToken = tr.newRunner(f.projectID)
	job := runnerCall(t, w.srv.URL, "POST", "/jobs/request", "", map[string]any{"token": runnerToken}, http.StatusCreated)
	var claimed struct {
		ID    int64
		Token string
	}
	if err := json.Unmarshal(job, &claimed); err != nil {
		t.Fatalf("job payload: %v", err)
	}
	c.build = claimed.ID
	uploadTestArtifact(t, w.srv.URL, c.build, claimed.Token)
	trace(t, w.srv.URL, c.build, claimed.Token, "building\n")
	runnerCall(t, w.srv.URL, "PUT", fmt.Sprintf("/jobs/%d", c.build), claimed.Token, map[string]any{"token": claimed.Token, "state": "success"}, http.StatusOK)
	tr.post(fmt.Sprintf("/projects/%d/variables", f.projectID), vals("key", "FIXTURE", "value", "fixture-value"))

	var side struct{ ID int64 }
	w.srv.JSON(t, "POST", "/projects", root, url.Values{"name": {fmt.Sprintf("side%d", f.projectID)}}, 201, &side)
	c.side = side.ID
	for _, a := range []actor{master, owner} {
		w.srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/members", c.side), root,
			url.Values{"user_id": {fmt.Sprint(w.ids[a])}, "access_level": {"40"}}, 201, nil)
	}
	return c
}

// newRunner registers a specific runner of project with a registration
// token root resets for it (a row may have reset the previous one).
func (tr *tracker) newRunner(project int64) (int64, string) {
	w := tr.w
	var reg struct{ Token string }
	w.srv.JSON(w.t, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", project), w.srv.RootToken, nil, 201, &reg)
	var r struct {
		ID    int64
		Token string
	}
	data := runnerCall(w.t, w.srv.URL, "POST", "/runners", "", map[string]any{"token": reg.Token, "description": fmt.Sprintf("r%d", tr.next())}, http.StatusCreated)
	if err := json.Unmarshal(data, &r); err != nil || r.ID == 0 {
		w.t.Fatalf("register runner: %s", data)
	}
	return r.ID, r.Token
}

// freshPipeline has root run the pipeline again on master and returns
// the ID of its job named name (pending build, or manual deploy).
func (tr *tracker) freshPipeline(name string) int64 {
	w, pid := tr.w, tr.f.projectID
	pl := tr.post(fmt.Sprintf("/projects/%d/pipeline", pid), vals("ref", "master"))
	var jobs []struct {
		ID   int64
		Name string
	}
	w.srv.JSON(w.t, "GET", fmt.Sprintf("/projects/%d/pipelines/%d/jobs", pid, int64(pl["id"].(float64))), w.srv.RootToken, nil, 200, &jobs)
	for _, j := range jobs {
		if j.Name == name {
			tr.last = fmt.Sprintf("/projects/%d/jobs/%d", pid, j.ID)
			return j.ID
		}
	}
	w.t.Fatalf("fresh pipeline has no job %s: %+v", name, jobs)
	return 0
}

func runnerCall(t interface {
	Helper()
	Fatalf(string, ...any)
}, base, method, path, jobToken string, body any, want int) []byte {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, base+"/api/v4"+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if jobToken != "" {
		req.Header.Set("JOB-TOKEN", jobToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, data, want)
	}
	return data
}

func trace(t interface {
	Helper()
	Fatalf(string, ...any)
}, base string, job int64, token, text string) {
	t.Helper()
	req, _ := http.NewRequest("PATCH", fmt.Sprintf("%s/api/v4/jobs/%d/trace", base, job), strings.NewReader(text))
	req.Header.Set("JOB-TOKEN", token)
	req.Header.Set("Content-Range", fmt.Sprintf("0-%d", len(text)-1))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("trace of job %d: %v %v", job, err, resp)
	}
	resp.Body.Close()
}

func uploadTestArtifact(t interface {
	Helper()
	Fatalf(string, ...any)
}, base string, job int64, token string) {
	t.Helper()
	var archive bytes.Buffer
	zw := zip.NewWriter(&archive)
	f, _ := zw.Create("out/result.txt")
	f.Write([]byte("result\n"))
	zw.Close()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", "artifacts.zip")
	part.Write(archive.Bytes())
	mw.Close()
	req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/v4/jobs/%d/artifacts?artifact_format=zip&artifact_type=archive", base, job), &body)
	req.Header.Set("JOB-TOKEN", token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("upload: %d %s", resp.StatusCode, data)
	}
}

func (c *ciState) expand(path string) string {
	return strings.NewReplacer("{c.pipeline}", fmt.Sprint(c.pipeline), "{c.build}", fmt.Sprint(c.build),
		"{c.runner}", fmt.Sprint(c.runner), "{c.sha}", c.sha).Replace(path)
}

// ciGet is a read of the CI fixture.
func ciGet(path string) cellRequest {
	return func(w *world, f *fixture, a actor) (string, string, any) {
		tr := w.tracker(f)
		return "GET", expand(tr.ci().expand(path), w, f), nil
	}
}

// ciSend is a write to the CI fixture.
func ciSend(method, path string, body func(tr *tracker) any) cellRequest {
	return func(w *world, f *fixture, a actor) (string, string, any) {
		tr := w.tracker(f)
		var b any
		if body != nil {
			b = body(tr)
		}
		return method, expand(tr.ci().expand(path), w, f), b
	}
}

// ciPrepared builds a cell's request after prep made what it needs.
func ciPrepared(method string, prep func(tr *tracker, c *ciState) (path string, body any)) cellRequest {
	return func(w *world, f *fixture, a actor) (string, string, any) {
		tr := w.tracker(f)
		c := tr.ci()
		path, body := prep(tr, c)
		return method, expand(c.expand(path), w, f), body
	}
}

func ciRoutes() map[string]routeCase {
	const api = "/api/v4/projects/{id}"
	const p = "/projects/{project}"
	rows := map[string]routeCase{
		// Pipelines. The project's jobs are public (the default), so
		// whoever reads the project reads its pipelines and jobs.
		"GET " + api + "/pipelines":                      {rule: readTarget, req: ciGet(p + "/pipelines")},
		"POST " + api + "/pipeline":                      {rule: ciDeveloper, req: ciSend("POST", p+"/pipeline", func(*tracker) any { return vals("ref", "master") })},
		"GET " + api + "/pipelines/{pipeline_id}":        {rule: readTarget, req: ciGet(p + "/pipelines/{c.pipeline}")},
		"POST " + api + "/pipelines/{pipeline_id}/retry": {rule: ciDeveloper, req: ciSend("POST", p+"/pipelines/{c.pipeline}/retry", nil)},
		"GET " + api + "/pipelines/{pipeline_id}/jobs":   {rule: readTarget, req: ciGet(p + "/pipelines/{c.pipeline}/jobs")},
		"POST " + api + "/pipelines/{pipeline_id}/cancel": {rule: ciDeveloper, kept: true, req: ciPrepared("POST", func(tr *tracker, _ *ciState) (string, any) {
			tr.freshPipeline("build")
			var last []struct{ ID int64 }
			tr.w.srv.JSON(tr.w.t, "GET", fmt.Sprintf("/projects/%d/pipelines?per_page=1", tr.f.projectID), tr.w.srv.RootToken, nil, 200, &last)
			tr.last = fmt.Sprintf("/projects/%d/pipelines/%d", tr.f.projectID, last[0].ID)
			return tr.last + "/cancel", nil
		})},
		"DELETE " + api + "/pipelines/{pipeline_id}": {rule: ownerLevel, kept: true, req: ciPrepared("DELETE", func(tr *tracker, _ *ciState) (string, any) {
			pl := tr.post(fmt.Sprintf("/projects/%d/pipeline", tr.f.projectID), vals("ref", "master"))
			tr.last = fmt.Sprintf("/projects/%d/pipelines/%d", tr.f.projectID, int64(pl["id"].(float64)))
			return tr.last, nil
		})},
		// Jobs, traces, artifacts.
		"GET " + api + "/jobs":                               {rule: readTarget, req: ciGet(p + "/jobs")},
		"GET " + api + "/jobs/{job_id}":                      {rule: readTarget, req: ciGet(p + "/jobs/{c.build}")},
		"GET " + api + "/jobs/{job_id}/trace":                {rule: readTarget, req: ciGet(p + "/jobs/{c.build}/trace")},
		"GET " + api + "/jobs/{job_id}/artifacts":            {rule: readTarget, req: ciGet(p + "/jobs/{c.build}/artifacts")},
		"GET " + api + "/jobs/artifacts/{ref_name}/download": {rule: readTarget, req: ciGet(p + "/jobs/artifacts/master/download?job=build")},
		"POST " + api + "/jobs/{job_id}/retry":               {rule: ciDeveloper, req: ciSend("POST", p+"/jobs/{c.build}/retry", nil)},
		"POST " + api + "/jobs/{job_id}/artifacts/keep":      {rule: ciDeveloper, req: ciSend("POST", p+"/jobs/{c.build}/artifacts/keep", nil)},
		"GET " + api + "/repository/commits/{sha}/statuses":  {rule: readTarget, req: ciGet(p + "/repository/commits/{c.sha}/statuses")},
		"POST " + api + "/jobs/{job_id}/cancel": {rule: ciDeveloper, kept: true, req: ciPrepared("POST", func(tr *tracker, _ *ciState) (string, any) {
			return fmt.Sprintf("%s/jobs/%d/cancel", p, tr.freshPipeline("build")), nil
		})},
		"POST " + api + "/jobs/{job_id}/play": {rule: ciDeveloper, kept: true, req: ciPrepared("POST", func(tr *tracker, _ *ciState) (string, any) {
			return fmt.Sprintf("%s/jobs/%d/play", p, tr.freshPipeline("deploy")), nil
		})},
		"POST " + api + "/jobs/{job_id}/erase": {rule: ciDeveloper, kept: true, req: ciPrepared("POST", func(tr *tracker, _ *ciState) (string, any) {
			id := tr.freshPipeline("build")
			tr.post(fmt.Sprintf("/projects/%d/jobs/%d/cancel", tr.f.projectID, id), nil)
			return fmt.Sprintf("%s/jobs/%d/erase", p, id), nil
		})},
		"POST " + api + "/statuses/{sha}": {rule: ciDeveloper, req: ciPrepared("POST", func(tr *tracker, _ *ciState) (string, any) {
			return p + "/statuses/{c.sha}", vals("state", "success", "name", fmt.Sprintf("ext-%d", tr.next()))
		})},
		// Variables: masters.
		"GET " + api + "/variables":       {rule: masterLevel, req: ciGet(p + "/variables")},
		"GET " + api + "/variables/{key}": {rule: masterLevel, req: ciGet(p + "/variables/FIXTURE")},
		"PUT " + api + "/variables/{key}": {rule: masterLevel, req: ciSend("PUT", p+"/variables/FIXTURE", func(*tracker) any { return vals("value", "changed-value") })},
		"POST " + api + "/variables": {rule: masterLevel, req: ciPrepared("POST", func(tr *tracker, _ *ciState) (string, any) {
			return p + "/variables", vals("key", fmt.Sprintf("NEW_%d", tr.next()), "value", "v")
		})},
		"DELETE " + api + "/variables/{key}": {rule: masterLevel, kept: true, req: ciPrepared("DELETE", func(tr *tracker, _ *ciState) (string, any) {
			key := fmt.Sprintf("DOOMED_%d", tr.next())
			tr.post(fmt.Sprintf("/projects/%d/variables", tr.f.projectID), vals("key", key, "value", "v"))
			tr.last = fmt.Sprintf("/projects/%d/variables/%s", tr.f.projectID, key)
			return p + "/variables/" + key, nil
		})},
		// Runners: a runner is administered by administrators and by the
		// masters of a project it serves, whatever the visibility.
		"GET /api/v4/runners":                               {rule: signedIn, req: ciGet("/runners")},
		"GET /api/v4/runners/all":                           {rule: adminOnly, req: ciGet("/runners/all")},
		"GET /api/v4/runners/{runner_id}":                   {rule: runnerMaster, req: ciGet("/runners/{c.runner}")},
		"GET /api/v4/runners/{runner_id}/jobs":              {rule: runnerMaster, req: ciGet("/runners/{c.runner}/jobs")},
		"PUT /api/v4/runners/{runner_id}":                   {rule: runnerMaster, req: ciSend("PUT", "/runners/{c.runner}", func(*tracker) any { return vals("description", "edited") })},
		"GET " + api + "/runners":                           {rule: masterLevel, req: ciGet(p + "/runners")},
		"POST " + api + "/runners/reset_registration_token": {rule: masterLevel, req: ciSend("POST", p+"/runners/reset_registration_token", nil)},
		"DELETE /api/v4/runners/{runner_id}": {rule: runnerMaster, kept: true, req: ciPrepared("DELETE", func(tr *tracker, _ *ciState) (string, any) {
			id, _ := tr.newRunner(tr.f.projectID)
			tr.last = fmt.Sprintf("/runners/%d", id)
			return tr.last, nil
		})},
		// Enabling a runner of the side project, whose masters are the
		// master and owner actors: masters of both projects may.
		"POST " + api + "/runners": {rule: masterLevel, req: ciPrepared("POST", func(tr *tracker, c *ciState) (string, any) {
			id, _ := tr.newRunner(c.side)
			return p + "/runners", vals("runner_id", fmt.Sprint(id))
		})},
		"DELETE " + api + "/runners/{runner_id}": {rule: masterLevel, req: ciPrepared("DELETE", func(tr *tracker, c *ciState) (string, any) {
			id, _ := tr.newRunner(c.side)
			tr.post(fmt.Sprintf("/projects/%d/runners", tr.f.projectID), vals("runner_id", fmt.Sprint(id)))
			return fmt.Sprintf("%s/runners/%d", p, id), nil
		})},
	}
	for k, v := range triggerRoutes() {
		rows[k] = v
	}
	// The runner protocol answers runner and job tokens only: a user's
	// token, an administrator's included, opens none of it.
	for _, r := range []struct{ method, pattern, path string }{
		{"POST", "/runners", "/runners"},
		{"DELETE", "/runners", "/runners"},
		{"POST", "/runners/verify", "/runners/verify"},
		{"DELETE", "/runners/managers", "/runners/managers"},
		{"POST", "/jobs/request", "/jobs/request"},
		{"PUT", "/jobs/{job_id}", "/jobs/{c.build}"},
		{"PATCH", "/jobs/{job_id}/trace", "/jobs/{c.build}/trace"},
		{"POST", "/jobs/{job_id}/artifacts", "/jobs/{c.build}/artifacts"},
		{"GET", "/jobs/{job_id}/artifacts", "/jobs/{c.build}/artifacts"},
		{"POST", "/jobs/{job_id}/artifacts/authorize", "/jobs/{c.build}/artifacts/authorize"},
	} {
		rows[r.method+" /api/v4"+r.pattern] = routeCase{rule: runnerOnly, req: ciSend(r.method, r.path, func(*tracker) any { return map[string]any{} })}
	}
	return rows
}
