package runners

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/httpx"
)

// multipartSlack is room for the multipart envelope around an artifact.
const multipartSlack = 1 << 20

type handlers struct{ s *Service }

// runnerToken is the runner token of a request: the body's token, or the
// RUNNER-TOKEN header.
func runnerToken(r *http.Request, body string) string {
	if body != "" {
		return body
	}
	return r.Header.Get("Runner-Token")
}

// jobToken is the job token of a request: the token parameter, or the
// JOB-TOKEN header.
func jobToken(r *http.Request, param string) string {
	if param != "" {
		return param
	}
	if t := r.Header.Get("Job-Token"); t != "" {
		return t
	}
	return r.URL.Query().Get("job_token")
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func jobID(r *http.Request) int64 {
	id, err := httpx.IDParam(r, "job_id", "Job")
	if err != nil {
		return 0
	}
	return id
}

// jobError answers a job-scoped failure: a job that stopped running is a
// 403 carrying its Job-Status, so that the runner stops.
func jobError(w http.ResponseWriter, err error) error {
	var refused *JobRefused
	if errors.As(err, &refused) {
		w.Header().Set("Job-Status", refused.Status)
		return core.Forbidden("Job is not running")
	}
	return err
}

// register is POST /runners.
func (h handlers) register(w http.ResponseWriter, r *http.Request) error {
	var in RegisterInput
	var p httpx.Problems
	if err := p.Decode(r, &in); err != nil {
		return err
	}
	p.OneOf("access_level", in.AccessLevel, accessLevels...)
	in.Token = runnerToken(r, in.Token)
	if in.Token == "" {
		p.Add("token is missing")
	}
	if err := p.Err(); err != nil {
		return err
	}
	in.IP = clientIP(r)
	reg, err := h.s.Register(r.Context(), in)
	if err != nil {
		return err
	}
	return httpx.Created(w, registered{ID: reg.Runner.ID, Token: reg.Token})
}

// runnerInput decodes a runner-scoped call's body.
func runnerInput(r *http.Request) (RunnerTokenInput, error) {
	var in RunnerTokenInput
	if err := httpx.Decode(r, &in); err != nil {
		return in, err
	}
	in.Token = runnerToken(r, in.Token)
	if in.Token == "" {
		return in, core.MissingParam("token")
	}
	return in, nil
}

// verify is POST /runners/verify.
func (h handlers) verify(w http.ResponseWriter, r *http.Request) error {
	in, err := runnerInput(r)
	if err != nil {
		return err
	}
	rn, err := h.s.Verify(r.Context(), in.Token)
	if err != nil {
		return err
	}
	return httpx.OK(w, registered{ID: rn.ID, Token: in.Token})
}

// unregister is DELETE /runners.
func (h handlers) unregister(w http.ResponseWriter, r *http.Request) error {
	in, err := runnerInput(r)
	if err != nil {
		return err
	}
	if err := h.s.Unregister(r.Context(), in.Token); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// unregisterManager is DELETE /runners/managers: Hearth keeps no runner
// managers, so it only checks the token.
func (h handlers) unregisterManager(w http.ResponseWriter, r *http.Request) error {
	in, err := runnerInput(r)
	if err != nil {
		return err
	}
	if _, err := h.s.Verify(r.Context(), in.Token); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// requestJob is POST /jobs/request.
func (h handlers) requestJob(w http.ResponseWriter, r *http.Request) error {
	in, err := runnerInput(r)
	if err != nil {
		return err
	}
	res, err := h.s.RequestJob(r.Context(), in, clientIP(r))
	if err != nil {
		return err
	}
	if res.Job == nil {
		w.Header().Set("X-GitLab-Last-Update", res.QueueVersion)
		return httpx.NoContent(w)
	}
	return httpx.Created(w, res.Job)
}

// updateJob is PUT /jobs/:id.
func (h handlers) updateJob(w http.ResponseWriter, r *http.Request) error {
	var in UpdateJobInput
	var p httpx.Problems
	if err := p.Decode(r, &in); err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		return err
	}
	in.Token = jobToken(r, in.Token)
	status, err := h.s.UpdateJob(r.Context(), jobID(r), in)
	if err != nil {
		return jobError(w, err)
	}
	w.Header().Set("Job-Status", status)
	w.Header().Set("X-GitLab-Trace-Update-Interval", traceUpdateInterval)
	return httpx.OK(w, map[string]any{})
}

// patchTrace is PATCH /jobs/:id/trace.
func (h handlers) patchTrace(w http.ResponseWriter, r *http.Request) error {
	var contentRange *string
	if v, ok := r.Header["Content-Range"]; ok && len(v) > 0 {
		contentRange = &v[0]
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &core.Error{Kind: core.ErrTooLarge, Msg: "413 Request Entity Too Large"}
		}
		return core.BadRequest("400 Bad request - unreadable body")
	}
	size, status, err := h.s.AppendTrace(r.Context(), jobID(r), jobToken(r, r.URL.Query().Get("token")), contentRange, data)
	var refused *RangeRefused
	if errors.As(err, &refused) {
		w.Header().Set("Range", fmt.Sprintf("0-%d", refused.Size))
		return httpx.JSON(w, http.StatusRequestedRangeNotSatisfiable, map[string]string{"message": "416 Range Not Satisfiable"})
	}
	if err != nil {
		return jobError(w, err)
	}
	w.Header().Set("Job-Status", status)
	w.Header().Set("Range", fmt.Sprintf("0-%d", size))
	w.Header().Set("X-GitLab-Trace-Update-Interval", traceUpdateInterval)
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// uploadArtifacts is POST /jobs/:id/artifacts: the multipart body is read
// as a stream, and its "file" part goes straight to the blob store.
func (h handlers) uploadArtifacts(w http.ResponseWriter, r *http.Request) error {
	liftDeadlines(w)
	q := r.URL.Query()
	in := ArtifactInput{Token: q.Get("token")}
	for name, dst := range map[string]**string{"artifact_type": &in.Type, "artifact_format": &in.Format, "expire_in": &in.ExpireIn} {
		if v, ok := q[name]; ok && len(v) > 0 {
			s := v[0]
			*dst = &s
		}
	}
	in.Token = jobToken(r, in.Token)
	open := func() (string, io.Reader, error) {
		ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || ct != "multipart/form-data" || params["boundary"] == "" {
			return "", nil, missingFile()
		}
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return "", nil, missingFile()
			}
			if err != nil {
				return "", nil, bodyError(err)
			}
			if part.FormName() == "file" {
				return part.FileName(), bodyReader{part}, nil
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(part, 1<<20))
		}
	}
	a, err := h.s.UploadArtifact(r.Context(), jobID(r), in.Token, in, open)
	if err != nil {
		return jobError(w, err)
	}
	return httpx.Created(w, map[string]any{
		"id": a.JobID, "artifact_type": a.Type, "artifact_format": a.Format,
		"artifacts_file":      map[string]any{"filename": a.Filename, "size": a.Size},
		"artifacts_expire_at": httpx.TimePtr(a.ExpireAt),
	})
}

// missingFile is GitLab's bad_request!('Missing artifacts file!').
func missingFile() error {
	return core.BadRequest(`400 (Bad request) "Missing artifacts file!" not given`)
}

func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &core.Error{Kind: core.ErrTooLarge, Msg: "413 Request Entity Too Large", Err: err}
	}
	return &core.Error{Kind: core.ErrInvalid, Msg: "400 Bad request - malformed multipart body", Err: err}
}

// bodyReader turns the body cap's error into core.ErrTooLarge, so that a
// stream over the route's limit is a 413 like one over the blob limit.
type bodyReader struct{ r io.Reader }

func (b bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, bodyError(err)
	}
	return n, err
}

// downloadArtifacts is GET /jobs/:id/artifacts.
func (h handlers) downloadArtifacts(w http.ResponseWriter, r *http.Request) error {
	d, err := h.s.DownloadArtifacts(r.Context(), jobID(r), jobToken(r, r.URL.Query().Get("token")))
	if err != nil {
		return err
	}
	defer d.Body.Close()
	liftDeadlines(w)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(d.Size, 10))
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.Artifact.Filename}))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, d.Body); err != nil && r.Context().Err() == nil {
		httpx.Logger(r).Warn("artifact download cut off")
	}
	return nil
}

// authorizeArtifacts is POST /jobs/:id/artifacts/authorize, which GitLab
// serves only to Workhorse.
func (h handlers) authorizeArtifacts(w http.ResponseWriter, r *http.Request) error {
	return core.Forbidden("Request should be executed via GitLab Workhorse")
}

// liftDeadlines removes the server's read and write timeouts for one
// request: artifacts may be large and runners slow.
func liftDeadlines(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}
