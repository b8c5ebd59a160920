package contracttests

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
)

// RunnerClient plays gitlab-runner's side of the runner protocol over real
// HTTP, sending what network/gitlab.go of gitlab-runner 17.11 sends: the
// same paths, methods, JSON bodies, token headers (RUNNER-TOKEN, JOB-TOKEN)
// and content types. Its methods return errors instead of failing a test,
// so that many goroutines can drive it at once.
type RunnerClient struct {
	URL  string // server root, without /api/v4
	HTTP *http.Client
}

// RunnerReply is one answer, its body read whole (empty for downloads,
// which stream into a writer).
type RunnerReply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode parses the body as JSON into out.
func (r RunnerReply) Decode(out any) error {
	if err := json.Unmarshal(r.Body, out); err != nil {
		return fmt.Errorf("decode %d %q: %w", r.Status, r.Body, err)
	}
	return nil
}

// MediaType is the Content-Type without its parameters.
func (r RunnerReply) MediaType() string {
	mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.TrimSpace(mt)
}

// RunnerJob is the job payload of a 201 to POST /jobs/request, as far as
// the runner reads it.
type RunnerJob struct {
	ID            int64  `json:"id"`
	Token         string `json:"token"`
	AllowGitFetch bool   `json:"allow_git_fetch"`
	JobInfo       struct {
		ID          int64  `json:"id"`
		Name        string `json:"name"`
		Stage       string `json:"stage"`
		ProjectID   int64  `json:"project_id"`
		ProjectName string `json:"project_name"`
	} `json:"job_info"`
	GitInfo struct {
		RepoURL   string   `json:"repo_url"`
		Ref       string   `json:"ref"`
		Sha       string   `json:"sha"`
		BeforeSha string   `json:"before_sha"`
		RefType   string   `json:"ref_type"`
		Refspecs  []string `json:"refspecs"`
		Depth     int      `json:"depth"`
	} `json:"git_info"`
	RunnerInfo struct {
		Timeout int `json:"timeout"`
	} `json:"runner_info"`
	Variables []struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Public bool   `json:"public"`
		Masked bool   `json:"masked"`
	} `json:"variables"`
	Steps []struct {
		Name         string   `json:"name"`
		Script       []string `json:"script"`
		Timeout      int      `json:"timeout"`
		When         string   `json:"when"`
		AllowFailure bool     `json:"allow_failure"`
	} `json:"steps"`
	Image     *struct{ Name string } `json:"image"`
	Artifacts []struct {
		Name      string   `json:"name"`
		Untracked bool     `json:"untracked"`
		Paths     []string `json:"paths"`
		When      string   `json:"when"`
		Type      string   `json:"artifact_type"`
		Format    string   `json:"artifact_format"`
		ExpireIn  string   `json:"expire_in"`
	} `json:"artifacts"`
	Dependencies []struct {
		ID            int64  `json:"id"`
		Token         string `json:"token"`
		Name          string `json:"name"`
		ArtifactsFile *struct {
			Filename string `json:"filename"`
			Size     int64  `json:"size"`
		} `json:"artifacts_file"`
	} `json:"dependencies"`
	// Raw is the whole payload, to check which keys are present.
	Raw map[string]any `json:"-"`
}

// Variable is the value of the payload variable key, ok false when absent.
func (j *RunnerJob) Variable(key string) (string, bool) {
	for _, v := range j.Variables {
		if v.Key == key {
			return v.Value, true
		}
	}
	return "", false
}

// runnerInfo is the info object every runner-scoped call carries.
func runnerInfo() map[string]any {
	return map[string]any{
		"name": "gitlab-runner", "version": "17.11.0", "revision": "b1c6f3f2",
		"platform": "linux", "architecture": "amd64", "executor": "shell", "shell": "bash",
		"features": map[string]bool{
			"variables": true, "image": false, "services": false, "artifacts": true, "cache": true,
			"fallback_cache_keys": true, "shared": true, "upload_multiple_artifacts": true,
			"upload_raw_artifacts": true, "session": true, "terminal": true, "refspecs": true,
			"masking": true, "proxy": false, "raw_variables": true, "artifacts_exclude": true,
			"multi_build_steps": true, "trace_reset": true, "trace_checksum": true, "trace_size": true,
			"vault_secrets": true, "cancelable": true, "return_exit_code": true,
		},
		"config": map[string]any{"gpus": ""},
	}
}

const runnerUserAgent = "gitlab-runner 17.11.0 (17-11-stable; go1.23.6; linux/amd64)"

func (c RunnerClient) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// Send makes one request under /api/v4 and reads the whole answer.
func (c RunnerClient) Send(ctx context.Context, method, path string, header http.Header, body io.Reader) (RunnerReply, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.URL+"/api/v4/"+strings.TrimPrefix(path, "/"), body)
	if err != nil {
		return RunnerReply{}, fmt.Errorf("request %s %s: %w", method, path, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", runnerUserAgent)
	resp, err := c.client().Do(req)
	if err != nil {
		return RunnerReply{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return RunnerReply{}, fmt.Errorf("read the answer to %s %s: %w", method, path, err)
	}
	return RunnerReply{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// SendJSON sends body as JSON with the token in header tokenHeader
// (RUNNER-TOKEN or JOB-TOKEN; none when empty), as the runner's doJSON.
func (c RunnerClient) SendJSON(ctx context.Context, method, path, tokenHeader, token string, body any) (RunnerReply, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return RunnerReply{}, fmt.Errorf("encode %s %s: %w", method, path, err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	if tokenHeader != "" {
		h.Set(tokenHeader, token)
	}
	return c.Send(ctx, method, path, h, bytes.NewReader(raw))
}

// Register calls POST /runners (the legacy registration) with a
// registration token and extra parameters (description, tag_list,
// run_untagged, locked...). It returns the runner's id and token on a 201.
func (c RunnerClient) Register(ctx context.Context, registrationToken string, params map[string]any) (int64, string, RunnerReply, error) {
	body := map[string]any{"token": registrationToken, "info": runnerInfo(), "run_untagged": true, "locked": false, "paused": false, "description": "contract runner"}
	for k, v := range params {
		body[k] = v
	}
	r, err := c.SendJSON(ctx, "POST", "runners", "", "", body)
	if err != nil || r.Status != http.StatusCreated {
		return 0, "", r, err
	}
	var out struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}
	if err := r.Decode(&out); err != nil {
		return 0, "", r, err
	}
	return out.ID, out.Token, r, nil
}

// Verify calls POST /runners/verify.
func (c RunnerClient) Verify(ctx context.Context, runnerToken string) (RunnerReply, error) {
	return c.SendJSON(ctx, "POST", "runners/verify", "", "", map[string]any{"token": runnerToken, "system_id": "s_0123456789ab"})
}

// RequestJob calls POST /jobs/request; job is nil unless the answer is a
// 201 with a decodable payload.
func (c RunnerClient) RequestJob(ctx context.Context, runnerToken, lastUpdate string) (*RunnerJob, RunnerReply, error) {
	body := map[string]any{"info": runnerInfo(), "token": runnerToken, "system_id": "s_0123456789ab"}
	if lastUpdate != "" {
		body["last_update"] = lastUpdate
	}
	r, err := c.SendJSON(ctx, "POST", "jobs/request", "RUNNER-TOKEN", runnerToken, body)
	if err != nil || r.Status != http.StatusCreated {
		return nil, r, err
	}
	var job RunnerJob
	if err := r.Decode(&job); err != nil {
		return nil, r, err
	}
	if err := r.Decode(&job.Raw); err != nil {
		return nil, r, err
	}
	return &job, r, nil
}

// UpdateJob calls PUT /jobs/:id with a state, a failure reason (omitted
// when empty), an exit code (omitted when 0) and the checksum and size of
// the trace sent so far, as the runner does.
func (c RunnerClient) UpdateJob(ctx context.Context, jobID int64, jobToken, state, failureReason string, exitCode int, trace []byte) (RunnerReply, error) {
	body := map[string]any{"info": runnerInfo(), "token": jobToken, "state": state}
	if failureReason != "" {
		body["failure_reason"] = failureReason
	}
	if exitCode != 0 {
		body["exit_code"] = exitCode
	}
	out := map[string]any{"checksum": fmt.Sprintf("crc32:%08x", crc32.ChecksumIEEE(trace))}
	if len(trace) > 0 {
		out["bytesize"] = len(trace)
	}
	body["output"] = out
	return c.SendJSON(ctx, "PUT", fmt.Sprintf("jobs/%d", jobID), "JOB-TOKEN", jobToken, body)
}

// PatchTrace calls PATCH /jobs/:id/trace with Content-Range start-end
// (end inclusive, no "bytes " prefix).
func (c RunnerClient) PatchTrace(ctx context.Context, jobID int64, jobToken string, start int, data []byte) (RunnerReply, error) {
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	h.Set("JOB-TOKEN", jobToken)
	h.Set("Content-Range", fmt.Sprintf("%d-%d", start, start+len(data)-1))
	return c.Send(ctx, "PATCH", fmt.Sprintf("jobs/%d/trace?debug_trace=false", jobID), h, bytes.NewReader(data))
}

// UploadArtifact calls POST /jobs/:id/artifacts with a multipart body
// holding one part "file" named filename, whose content write produces.
// The body streams through a pipe, so it goes out chunked with no
// Content-Length, as the runner sends it. query holds artifact_format,
// artifact_type and expire_in.
func (c RunnerClient) UploadArtifact(ctx context.Context, jobID int64, jobToken string, query url.Values, filename string, write func(io.Writer) error) (RunnerReply, error) {
	pr, pw := io.Pipe()
	mpw := multipart.NewWriter(pw)
	go func() {
		part, err := mpw.CreateFormFile("file", filename)
		if err == nil {
			err = write(part)
		}
		if err == nil {
			err = mpw.Close()
		}
		pw.CloseWithError(err)
	}()
	h := http.Header{}
	h.Set("Content-Type", mpw.FormDataContentType())
	h.Set("JOB-TOKEN", jobToken)
	r, err := c.Send(ctx, "POST", fmt.Sprintf("jobs/%d/artifacts?%s", jobID, query.Encode()), h, io.NopCloser(pr))
	pr.CloseWithError(io.ErrClosedPipe) // stop the writer if the server answered early
	return r, err
}

// DownloadArtifact calls GET /jobs/:id/artifacts with a job token and
// streams a 200's body into w (other answers are read into the reply).
func (c RunnerClient) DownloadArtifact(ctx context.Context, jobID int64, jobToken string, w io.Writer) (RunnerReply, int64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/api/v4/jobs/%d/artifacts?direct_download=true", c.URL, jobID), nil)
	if err != nil {
		return RunnerReply{}, 0, err
	}
	req.Header.Set("User-Agent", runnerUserAgent)
	req.Header.Set("JOB-TOKEN", jobToken)
	resp, err := c.client().Do(req)
	if err != nil {
		return RunnerReply{}, 0, fmt.Errorf("download artifacts of job %d: %w", jobID, err)
	}
	defer resp.Body.Close()
	r := RunnerReply{Status: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode != http.StatusOK {
		r.Body, err = io.ReadAll(resp.Body)
		return r, 0, err
	}
	n, err := io.Copy(w, resp.Body)
	return r, n, err
}

// ZipArtifact writes a zip archive holding files (name -> content), what
// the runner's artifacts uploader produces.
func ZipArtifact(files map[string]string) func(io.Writer) error {
	return func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for name, content := range files {
			f, err := zw.Create(name)
			if err != nil {
				return err
			}
			if _, err := io.WriteString(f, content); err != nil {
				return err
			}
		}
		return zw.Close()
	}
}
