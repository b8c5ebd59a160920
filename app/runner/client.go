package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Version is what the runner reports as its version.
const Version = "17.11.0-hearth"

// ErrForbidden is a 403: an unknown runner or job token, or a job that is
// not running any more.
var ErrForbidden = errors.New("forbidden")

// StatusError is an answer the runner did not expect.
type StatusError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: unexpected status %d: %.200s", e.Method, e.Path, e.Status, e.Body)
}

// Client speaks the runner protocol over HTTP, as gitlab-runner's
// network/gitlab.go does: the same paths, bodies and token headers.
type Client struct {
	// URL is the server's base URL; /api/v4/ is appended (a trailing /ci
	// is stripped, as gitlab-runner does).
	URL  string
	HTTP *http.Client
	// SystemID identifies this runner manager (gitlab-runner's system_id).
	SystemID string
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) endpoint(path string) string {
	base := strings.TrimRight(c.URL, "/")
	base = strings.TrimSuffix(base, "/ci")
	return base + "/api/v4/" + strings.TrimPrefix(path, "/")
}

// info is the runner description every runner-scoped call carries.
func info() map[string]any {
	return map[string]any{
		"name": "hearth-runner", "version": Version, "revision": "hearth",
		"platform": runtime.GOOS, "architecture": runtime.GOARCH, "executor": "shell", "shell": "bash",
		"features": map[string]bool{
			"variables": true, "artifacts": true, "cache": true, "upload_multiple_artifacts": true,
			"refspecs": true, "masking": true, "artifacts_exclude": true, "multi_build_steps": true,
			"trace_checksum": true, "trace_size": true, "cancelable": true, "return_exit_code": true,
			"shared": true,
		},
	}
}

// reply is an answer read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (c *Client) do(ctx context.Context, method, path string, header http.Header, body io.Reader) (reply, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint(path), body)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", "hearth-runner "+Version+" ("+runtime.GOOS+"/"+runtime.GOARCH+")")
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// doJSON sends body as JSON, with token in tokenHeader when both are set.
func (c *Client) doJSON(ctx context.Context, method, path, tokenHeader, token string, body any) (reply, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return reply{}, fmt.Errorf("encode %s %s: %w", method, path, err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	if tokenHeader != "" && token != "" {
		h.Set(tokenHeader, token)
	}
	ctx, cancel := callContext(ctx)
	defer cancel()
	return c.do(ctx, method, path, h, bytes.NewReader(raw))
}

// callTimeout bounds a protocol call whose context has no deadline: a
// server that hangs must not stop heartbeats for good.
const callTimeout = 2 * time.Minute

func callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, callTimeout)
}

// decode parses a JSON success body; like gitlab-runner, it refuses a
// body that is not application/json.
func (r reply) decode(method, path string, out any) error {
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	if mt != "application/json" {
		return fmt.Errorf("%s %s: answer is %q, not application/json", method, path, r.header.Get("Content-Type"))
	}
	if err := json.Unmarshal(r.body, out); err != nil {
		return fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
	}
	return nil
}

func (r reply) fail(method, path string) error {
	if r.status == http.StatusForbidden {
		return fmt.Errorf("%s %s: %w", method, path, ErrForbidden)
	}
	return &StatusError{Method: method, Path: path, Status: r.status, Body: string(r.body)}
}

// RegisterOptions are the runner's properties sent at registration.
type RegisterOptions struct {
	Description string
	Tags        []string
	RunUntagged bool
	Locked      bool
}

// Register calls POST /runners with a registration token and returns the
// new runner's id and authentication token.
func (c *Client) Register(ctx context.Context, registrationToken string, o RegisterOptions) (int64, string, error) {
	body := map[string]any{
		"token": registrationToken, "description": o.Description, "tag_list": strings.Join(o.Tags, ","),
		"run_untagged": o.RunUntagged, "locked": o.Locked, "paused": false, "info": info(),
	}
	r, err := c.doJSON(ctx, "POST", "runners", "", "", body)
	if err != nil {
		return 0, "", err
	}
	if r.status != http.StatusCreated {
		return 0, "", r.fail("POST", "runners")
	}
	var out struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}
	if err := r.decode("POST", "runners", &out); err != nil {
		return 0, "", err
	}
	if out.Token == "" {
		return 0, "", errors.New("POST runners: the answer holds no token")
	}
	return out.ID, out.Token, nil
}

// Verify calls POST /runners/verify and returns the runner's id.
func (c *Client) Verify(ctx context.Context, token string) (int64, error) {
	r, err := c.doJSON(ctx, "POST", "runners/verify", "", "", map[string]any{"token": token, "system_id": c.SystemID, "info": info()})
	if err != nil {
		return 0, err
	}
	if r.status != http.StatusOK && r.status != http.StatusCreated {
		return 0, r.fail("POST", "runners/verify")
	}
	var out struct {
		ID int64 `json:"id"`
	}
	// Old servers answer an empty body; the status is what counts.
	if len(bytes.TrimSpace(r.body)) > 0 {
		if err := r.decode("POST", "runners/verify", &out); err != nil {
			return 0, err
		}
	}
	return out.ID, nil
}

// Unregister calls DELETE /runners: the token stops working.
func (c *Client) Unregister(ctx context.Context, token string) error {
	r, err := c.doJSON(ctx, "DELETE", "runners", "", "", map[string]any{"token": token})
	if err != nil {
		return err
	}
	if r.status != http.StatusNoContent && r.status != http.StatusOK {
		return r.fail("DELETE", "runners")
	}
	return nil
}

// Request calls POST /jobs/request. It returns nil without an error when
// there is no job, and the X-GitLab-Last-Update to send back next time
// (lastUpdate when the server sent none).
func (c *Client) Request(ctx context.Context, token, lastUpdate string) (*Job, string, error) {
	body := map[string]any{"token": token, "system_id": c.SystemID, "info": info()}
	if lastUpdate != "" {
		body["last_update"] = lastUpdate
	}
	r, err := c.doJSON(ctx, "POST", "jobs/request", "RUNNER-TOKEN", token, body)
	if err != nil {
		return nil, lastUpdate, err
	}
	if v := r.header.Get("X-GitLab-Last-Update"); v != "" {
		lastUpdate = v
	}
	switch r.status {
	case http.StatusNoContent:
		return nil, lastUpdate, nil
	case http.StatusCreated:
		var job Job
		if err := r.decode("POST", "jobs/request", &job); err != nil {
			return nil, lastUpdate, err
		}
		if job.ID == 0 || job.Token == "" {
			return nil, lastUpdate, errors.New("POST jobs/request: a job without id or token")
		}
		return &job, lastUpdate, nil
	}
	return nil, lastUpdate, r.fail("POST", "jobs/request")
}

// UpdateInput is the body of PUT /jobs/:id.
type UpdateInput struct {
	State         string // running, success, failed
	FailureReason string
	ExitCode      int
	Trace         []byte // the whole trace sent so far, for its checksum and size
}

// UpdateResult is what the server said to a job update or a trace patch.
type UpdateResult struct {
	Status    int
	JobStatus string // the Job-Status header: running, canceling, canceled, failed...
	// End is the trace length the server holds (the Range header), for
	// trace patches; -1 when absent.
	End int
}

// UpdateJob calls PUT /jobs/:id. A 403 is a result (the Job-Status tells
// why), not an error; only transport failures are errors.
func (c *Client) UpdateJob(ctx context.Context, id int64, jobToken string, in UpdateInput) (UpdateResult, error) {
	body := map[string]any{"token": jobToken, "state": in.State, "info": info()}
	if in.FailureReason != "" {
		body["failure_reason"] = in.FailureReason
	}
	if in.ExitCode != 0 {
		body["exit_code"] = in.ExitCode
	}
	out := map[string]any{"checksum": fmt.Sprintf("crc32:%08x", crc32.ChecksumIEEE(in.Trace))}
	if len(in.Trace) > 0 {
		out["bytesize"] = len(in.Trace)
	}
	body["output"] = out
	path := "jobs/" + strconv.FormatInt(id, 10)
	r, err := c.doJSON(ctx, "PUT", path, "JOB-TOKEN", jobToken, body)
	if err != nil {
		return UpdateResult{End: -1}, err
	}
	return UpdateResult{Status: r.status, JobStatus: r.header.Get("Job-Status"), End: -1}, nil
}

// PatchTrace calls PATCH /jobs/:id/trace with the bytes at offset start.
// The answer's Range end is in End (the resume point of a 416).
func (c *Client) PatchTrace(ctx context.Context, id int64, jobToken string, start int, data []byte) (UpdateResult, error) {
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	h.Set("JOB-TOKEN", jobToken)
	h.Set("Content-Range", fmt.Sprintf("%d-%d", start, start+len(data)-1))
	path := "jobs/" + strconv.FormatInt(id, 10) + "/trace"
	ctx, cancel := callContext(ctx)
	defer cancel()
	r, err := c.do(ctx, "PATCH", path, h, bytes.NewReader(data))
	if err != nil {
		return UpdateResult{End: -1}, err
	}
	return UpdateResult{Status: r.status, JobStatus: r.header.Get("Job-Status"), End: rangeEnd(r.header.Get("Range"))}, nil
}

// rangeEnd parses a Range header "0-N" into N, -1 when malformed.
func rangeEnd(v string) int {
	_, end, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(v), "bytes="), "-")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(end))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// UploadArtifact calls POST /jobs/:id/artifacts with a multipart body
// holding one part "file" named filename, written by write. The body
// streams through a pipe: it is sent chunked and never held whole.
func (c *Client) UploadArtifact(ctx context.Context, id int64, jobToken string, query url.Values, filename string, write func(io.Writer) error) error {
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
	path := "jobs/" + strconv.FormatInt(id, 10) + "/artifacts?" + query.Encode()
	r, err := c.do(ctx, "POST", path, h, io.NopCloser(pr))
	pr.CloseWithError(io.ErrClosedPipe) // stop the writer if the server answered early
	if err != nil {
		return err
	}
	if r.status != http.StatusCreated && r.status != http.StatusOK {
		return r.fail("POST", "jobs/"+strconv.FormatInt(id, 10)+"/artifacts")
	}
	return nil
}

// ErrNotFound is a 404 on an artifacts download.
var ErrNotFound = errors.New("not found")

// DownloadArtifact calls GET /jobs/:id/artifacts with the job's token and
// streams the archive into w.
func (c *Client) DownloadArtifact(ctx context.Context, id int64, jobToken string, w io.Writer) (int64, error) {
	path := "jobs/" + strconv.FormatInt(id, 10) + "/artifacts"
	req, err := http.NewRequestWithContext(ctx, "GET", c.endpoint(path+"?direct_download=true"), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("User-Agent", "hearth-runner "+Version)
	req.Header.Set("JOB-TOKEN", jobToken)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		n, err := io.Copy(w, resp.Body)
		if err != nil {
			return n, fmt.Errorf("GET %s: %w", path, err)
		}
		return n, nil
	case http.StatusNotFound:
		return 0, fmt.Errorf("GET %s: %w", path, ErrNotFound)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return 0, reply{status: resp.StatusCode, header: resp.Header, body: body}.fail("GET", path)
}
