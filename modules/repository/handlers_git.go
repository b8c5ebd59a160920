package repository

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// Git clients read plain text, not GitLab's JSON: every refusal here is
// answered with gitText, which git prints.

const msgProjectNotFound = "The project you were looking for could not be found."

// gitInfoRefs serves GET info/refs?service=... (the smart protocol's
// first request). Without ".git" it redirects to the ".git" URL, as GitLab
// does, so `git clone https://host/group/project` works.
func (h handlers) gitInfoRefs(w http.ResponseWriter, r *http.Request) error {
	service := r.URL.Query().Get("service")
	if service != uploadPack && service != receivePack {
		return gitText(w, http.StatusForbidden, "Only the smart HTTP protocol is supported.")
	}
	if full, dotGit, ok := gitPath(r); ok && !dotGit {
		target := (&url.URL{Path: "/" + full + ".git/info/refs"}).EscapedPath() + "?service=" + service
		http.Redirect(w, r, target, http.StatusMovedPermanently)
		return nil
	}
	g, ok := h.openGit(w, r, service, false)
	if !ok {
		return nil
	}
	var pre bytes.Buffer
	writePkt(&pre, "# service="+service+"\n")
	pre.WriteString("0000")
	lw := &lazyWriter{w: w, ctype: "application/x-" + service + "-advertisement", preamble: pre.Bytes()}
	if err := g.AdvertiseRefs(r.Context(), gitProtocol(r), lw); err != nil {
		return gitFailure(w, r, lw, "advertise refs", err)
	}
	return lw.start()
}

// gitUploadPack serves POST git-upload-pack (clone and fetch).
func (h handlers) gitUploadPack(w http.ResponseWriter, r *http.Request) error {
	g, body, ok := h.openGitRPC(w, r, uploadPack)
	if !ok {
		return nil
	}
	defer body.Close()
	lw := &lazyWriter{w: w, ctype: "application/x-git-upload-pack-result"}
	if err := g.UploadPack(r.Context(), gitProtocol(r), body, lw); err != nil {
		return gitFailure(w, r, lw, "upload-pack", err)
	}
	return lw.start()
}

// gitReceivePack serves POST git-receive-pack (push): the command list at
// the start of the body is decoded here and checked by the service before
// git runs. A refused push is answered in git's protocol, so `git push`
// prints GitLab's message as "remote: GitLab: ...".
func (h handlers) gitReceivePack(w http.ResponseWriter, r *http.Request) error {
	g, body, ok := h.openGitRPC(w, r, receivePack)
	if !ok {
		return nil
	}
	defer body.Close()
	push, err := readPushCommands(coreBodyErrors{body})
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, core.ErrTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		return gitText(w, status, rejectText(err))
	}
	lw := &lazyWriter{w: w, ctype: "application/x-git-receive-pack-result"}
	err = g.ReceivePack(r.Context(), push, gitProtocol(r), body, lw)
	var denied pushDenied
	switch {
	case errors.As(err, &denied) && !lw.started:
		return refusePush(w, body, push, denied)
	case err != nil:
		return gitFailure(w, r, lw, "receive-pack", err)
	}
	return lw.start()
}

// openGit is where every git request starts: the repository path (404 for
// anything but a project path, and, for the POST endpoints, one without
// ".git"), the caller, and the service's permission, answered in git's
// text when refused. Once the request may go on, the server's deadlines are
// lifted for it: clones and pushes may take long.
func (h handlers) openGit(w http.ResponseWriter, r *http.Request, service string, needDotGit bool) (*GitRepo, bool) {
	full, dotGit, ok := gitPath(r)
	if !ok || (needDotGit && !dotGit) {
		_ = gitText(w, http.StatusNotFound, msgProjectNotFound)
		return nil, false
	}
	caller, ok := h.gitCaller(w, r)
	if !ok {
		return nil, false
	}
	g, err := h.s.OpenGit(r.Context(), caller, full, service)
	if err != nil {
		_ = gitFailure(w, r, nil, "open "+service, err)
		return nil, false
	}
	liftDeadlines(w)
	return g, true
}

// openGitRPC is openGit for the POST endpoints, which also need the
// request body (400 when its encoding is not one git sends).
func (h handlers) openGitRPC(w http.ResponseWriter, r *http.Request, service string) (*GitRepo, io.ReadCloser, bool) {
	g, ok := h.openGit(w, r, service, true)
	if !ok {
		return nil, nil, false
	}
	body, err := requestBody(r)
	if err != nil {
		_ = gitText(w, http.StatusBadRequest, rejectText(err))
		return nil, nil, false
	}
	return g, body, true
}

// gitCaller is the caller of a git request: the router's (PRIVATE-TOKEN,
// Bearer...) or the HTTP Basic credentials' (recorded for the access log).
// ok is false when the credentials were refused (the 401 is written).
func (h handlers) gitCaller(w http.ResponseWriter, r *http.Request) (*domain.Caller, bool) {
	caller := httpx.CallerOf(r)
	login, password, basic := r.BasicAuth()
	if !basic || caller != nil {
		return caller, true
	}
	c, err := h.s.AuthenticateGit(r.Context(), login, password)
	if err != nil {
		if errors.Is(err, core.ErrUnauthenticated) {
			httpx.CredentialsRefused(r)
		} else {
			httpx.Logger(r).Error("git http: authenticate", zap.Error(err))
		}
		_ = gitText(w, http.StatusUnauthorized, "HTTP Basic: Access denied")
		return nil, false
	}
	httpx.CredentialsAccepted(r)
	httpx.SignedIn(r, c)
	return c, true
}

// gitPath reads the repository path of the request: the segments before
// the endpoint, unescaped, and whether the last one ended in ".git".
func gitPath(r *http.Request) (full string, dotGit bool, ok bool) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return "", false, false
	}
	var segs []string
	for i := 0; i <= maxGitNamespaceDepth; i++ {
		raw := rctx.URLParam(fmt.Sprintf("g%d", i))
		if raw == "" {
			break
		}
		s, err := url.PathUnescape(raw)
		if err != nil || s == "" || strings.ContainsAny(s, "/\\\x00") || s == "." || s == ".." {
			return "", false, false
		}
		segs = append(segs, s)
	}
	if len(segs) < 2 {
		return "", false, false
	}
	last := segs[len(segs)-1]
	if strings.HasSuffix(last, ".git") {
		dotGit = true
		segs[len(segs)-1] = strings.TrimSuffix(last, ".git")
		if segs[len(segs)-1] == "" {
			return "", false, false
		}
	}
	return strings.Join(segs, "/"), dotGit, true
}

// gitProtocol is the client's Git-Protocol header when well formed.
func gitProtocol(r *http.Request) string {
	v := r.Header.Get("Git-Protocol")
	for _, c := range v {
		if c < 0x20 || c > 0x7e {
			return ""
		}
	}
	if len(v) > 256 {
		return ""
	}
	return v
}

// gitText answers a git client with a plain-text error, which git prints.
func gitText(w http.ResponseWriter, status int, msg string) error {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="Hearth"`)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	_, err := io.WriteString(w, msg+"\n")
	return err
}

// gitFailure answers a failed git request: a status and message when
// nothing was written yet (lw nil or not started), else only a log line
// (the client sees a broken stream). Refused credentials and anonymous
// callers who may not do what they ask get 401 with a Basic challenge, so
// git asks for credentials; projects the caller cannot see 404; what the
// caller may not do, or the backend refuses, 403 with the reason; a
// backend at capacity 503 with Retry-After.
func gitFailure(w http.ResponseWriter, r *http.Request, lw *lazyWriter, what string, err error) error {
	if lw != nil && lw.started {
		if r.Context().Err() == nil {
			httpx.Logger(r).Warn("git http: "+what+" failed mid-stream", zap.Error(err))
		}
		return nil
	}
	switch {
	case errors.Is(err, core.ErrUnauthenticated):
		return gitText(w, http.StatusUnauthorized, "HTTP Basic: Access denied")
	case errors.Is(err, core.ErrNotFound):
		return gitText(w, http.StatusNotFound, msgProjectNotFound)
	case errors.Is(err, core.ErrForbidden), errors.Is(err, core.ErrNotAllowed), errors.Is(err, core.ErrInvalid):
		return gitText(w, http.StatusForbidden, rejectText(err))
	case errors.Is(err, core.ErrTooLarge):
		return gitText(w, http.StatusRequestEntityTooLarge, "413 Request Entity Too Large")
	case errors.Is(err, core.ErrUnavailable):
		// The backend is at capacity: the client may retry shortly.
		w.Header().Set("Retry-After", httpx.RetryAfter)
		return gitText(w, http.StatusServiceUnavailable, "503 Service Unavailable")
	}
	httpx.Logger(r).Error("git http: "+what, zap.Error(err))
	return gitText(w, http.StatusInternalServerError, "500 Internal Server Error")
}

func rejectText(err error) string {
	var ce *core.Error
	if errors.As(err, &ce) && ce.Msg != "" {
		return ce.Msg
	}
	return err.Error()
}

// refusePush answers a refused push in git's protocol (see rejection),
// after reading the rest of the request so the client is not cut off
// while it still sends its pack.
func refusePush(w http.ResponseWriter, body io.Reader, push PushRequest, reason pushDenied) error {
	_, _ = io.Copy(io.Discard, body)
	h := w.Header()
	h.Set("Content-Type", "application/x-git-receive-pack-result")
	h.Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(rejection(push, reason.Error()))
	return err
}

// liftDeadlines removes the server's read and write timeouts for this
// request (clones and pushes may take long) and lets the handler read the
// body while writing the answer.
func liftDeadlines(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	_ = rc.EnableFullDuplex()
}

// lazyWriter writes the response header, and an optional preamble, before
// the first byte of the body, so that a failure before any output can
// still get a proper status.
type lazyWriter struct {
	w        http.ResponseWriter
	ctype    string
	preamble []byte
	started  bool
}

func (l *lazyWriter) start() error {
	if l.started {
		return nil
	}
	l.started = true
	h := l.w.Header()
	h.Set("Content-Type", l.ctype)
	h.Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	h.Set("Pragma", "no-cache")
	h.Set("Expires", "Fri, 01 Jan 1980 00:00:00 GMT")
	l.w.WriteHeader(http.StatusOK)
	if len(l.preamble) > 0 {
		if _, err := l.w.Write(l.preamble); err != nil {
			return err
		}
	}
	return nil
}

func (l *lazyWriter) Write(b []byte) (int, error) {
	if err := l.start(); err != nil {
		return 0, err
	}
	n, err := l.w.Write(b)
	if err == nil {
		_ = http.NewResponseController(l.w).Flush()
	}
	return n, err
}

// requestBody is the request body, gunzipped when the client compressed it
// and capped at maxPushBytes either way.
func requestBody(r *http.Request) (io.ReadCloser, error) {
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return r.Body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, core.BadRequest("request body is not gzip")
		}
		return struct {
			io.Reader
			io.Closer
		}{&cappedReader{r: zr, left: maxPushBytes}, zr}, nil
	default:
		return nil, core.BadRequest("unsupported Content-Encoding " + strconv.Quote(enc))
	}
}

// cappedReader fails once more than left bytes were read.
type cappedReader struct {
	r    io.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, &core.Error{Kind: core.ErrTooLarge, Msg: "413 Request Entity Too Large"}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// coreBodyErrors reads a body, turning the router's body cap
// (*http.MaxBytesError) into core.ErrTooLarge for code outside the HTTP
// layer.
type coreBodyErrors struct{ r io.Reader }

func (c coreBodyErrors) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = &core.Error{Kind: core.ErrTooLarge, Msg: "413 Request Entity Too Large"}
	}
	return n, err
}
