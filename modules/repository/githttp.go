package repository

import (
	"bytes"
	"compress/gzip"
	"context"
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
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Git smart HTTP: GET <project>.git/info/refs?service=..., POST
// <project>.git/git-upload-pack and POST <project>.git/git-receive-pack,
// where <project> is the project's full path (namespace levels, then the
// project path).
//
// Routing: chi cannot match "any number of segments ending in .git", so the
// three endpoints are registered once per depth, from a namespace and a
// project (2 segments) to maxGitNamespaceDepth namespace levels plus the
// project. Every segment is a parameter, so these patterns never shadow an
// /api/v4 route (chi prefers the static "api" branch and only falls back to
// them when no API route matches, which then answers like any unknown
// project), and a deeper path falls through to the router's JSON 404. A
// catch-all ("/*") would have taken over the router's NotFound for every
// path instead.
const maxGitNamespaceDepth = 8

// maxPushBytes caps one git request body (compressed and decompressed):
// pushes carry whole packs.
const maxPushBytes int64 = 1 << 30

// maxCommandBytes caps the command list at the start of a push.
const maxCommandBytes = 16 << 20

const (
	uploadPack  = "git-upload-pack"
	receivePack = "git-receive-pack"
)

// GitLab's messages (lib/gitlab/git_access.rb, lib/gitlab/checks/change_access.rb).
const (
	msgProjectNotFound     = "The project you were looking for could not be found."
	msgDownload            = "You are not allowed to download code from this project."
	msgPushCode            = "You are not allowed to push code to this project."
	msgDeleteDefault       = "The default branch of a project cannot be deleted."
	msgForcePushProtected  = "You are not allowed to force push code to a protected branch on this project."
	msgNonMasterDelete     = "You are not allowed to delete protected branches from this project. Only a project master or owner can delete a protected branch."
	msgNonWebDelete        = "You can only delete protected branches using the web interface."
	msgPushProtected       = "You are not allowed to push code to protected branches on this project."
	msgChangeExistingTags  = "You are not allowed to change existing tags on this project."
	msgReservedRef         = "You are not allowed to push to this ref."
	msgUnverifiedProtected = "This push to a protected branch cannot be checked by the git backend in use."
)

// gitHTTPRoutes lists the smart HTTP endpoints at every supported depth.
func (h handlers) gitHTTPRoutes() []httpx.Route {
	var out []httpx.Route
	var prefix strings.Builder
	prefix.WriteString("/{g0}")
	for depth := 1; depth <= maxGitNamespaceDepth; depth++ {
		fmt.Fprintf(&prefix, "/{g%d}", depth)
		p := prefix.String()
		out = append(out,
			httpx.Route{Method: http.MethodGet, Pattern: p + "/info/refs", Handle: h.gitInfoRefs, RawBody: true},
			httpx.Route{Method: http.MethodPost, Pattern: p + "/" + uploadPack, Handle: h.gitUploadPack, RawBody: true, MaxBodyBytes: maxPushBytes},
			httpx.Route{Method: http.MethodPost, Pattern: p + "/" + receivePack, Handle: h.gitReceivePack, RawBody: true, MaxBodyBytes: maxPushBytes},
		)
	}
	return out
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

// gitCaller is the caller of a git request: the router's (PRIVATE-TOKEN,
// Bearer...) or HTTP Basic credentials, where the password is the user's
// password or a personal or impersonation token (any username). ok is
// false when the credentials were refused (the 401 is written).
func (h handlers) gitCaller(w http.ResponseWriter, r *http.Request) (*domain.Caller, bool) {
	caller := httpx.CallerOf(r)
	login, password, basic := r.BasicAuth()
	if !basic || caller != nil {
		return caller, true
	}
	if password == "" {
		_ = gitText(w, http.StatusUnauthorized, "HTTP Basic: Access denied")
		return nil, false
	}
	auth := h.s.p.Auth
	c, err := auth.Token(r.Context(), password)
	if err == nil && c.Token != nil && !c.Token.HasScope(domain.ScopeAPI) {
		// read_user tokens do not reach repositories.
		c, err = nil, core.Unauthenticated()
	}
	if errors.Is(err, core.ErrUnauthenticated) && login != "" {
		c, err = auth.Password(r.Context(), login, password)
	}
	if err != nil {
		if !errors.Is(err, core.ErrUnauthenticated) {
			httpx.Logger(r).Error("git http: authenticate", zap.Error(err))
		}
		_ = gitText(w, http.StatusUnauthorized, "HTTP Basic: Access denied")
		return nil, false
	}
	httpx.SignedIn(r, c)
	return c, true
}

// gitProject resolves the project of a git request for service and checks
// the caller may use it; when ok is false the answer is written. The
// rules follow GitLab's git HTTP controller: anonymous callers who may not
// do what they ask get 401 with a Basic challenge (so git asks for
// credentials); signed-in callers get 404 for projects they cannot see and
// 403 for what their level does not allow.
func (h handlers) gitProject(w http.ResponseWriter, r *http.Request, service string) (*domain.Project, *domain.Caller, access.Rights, bool) {
	full, _, ok := gitPath(r)
	if !ok {
		_ = gitText(w, http.StatusNotFound, msgProjectNotFound)
		return nil, nil, access.Rights{}, false
	}
	caller, ok := h.gitCaller(w, r)
	if !ok {
		return nil, nil, access.Rights{}, false
	}
	anonymous := caller == nil || caller.User == nil
	p, rights, err := h.s.p.Policy.ProjectByRef(r.Context(), caller, domain.IDOrPath{ID: 0, Path: full})
	switch {
	case errors.Is(err, core.ErrNotFound) && anonymous:
		_ = gitText(w, http.StatusUnauthorized, "HTTP Basic: Access denied")
		return nil, nil, rights, false
	case errors.Is(err, core.ErrNotFound):
		_ = gitText(w, http.StatusNotFound, msgProjectNotFound)
		return nil, nil, rights, false
	case err != nil:
		httpx.Logger(r).Error("git http: resolve project", zap.Error(err))
		_ = gitText(w, http.StatusInternalServerError, "500 Internal Server Error")
		return nil, nil, rights, false
	}
	allowed, msg := canDownloadCode(p, rights), msgDownload
	if service == receivePack {
		allowed, msg = rights.AtLeast(domain.Developer) && !p.Archived, msgPushCode
	}
	if !allowed {
		if anonymous {
			_ = gitText(w, http.StatusUnauthorized, "HTTP Basic: Access denied")
		} else {
			_ = gitText(w, http.StatusForbidden, msg)
		}
		return nil, nil, rights, false
	}
	return p, caller, rights, true
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

// transportFailed answers a backend failure: a status when nothing was
// written yet, else only a log line (the client sees a broken stream).
func transportFailed(w http.ResponseWriter, r *http.Request, lw *lazyWriter, what string, err error) error {
	if lw.started {
		if r.Context().Err() == nil {
			httpx.Logger(r).Warn("git http: "+what+" failed mid-stream", zap.Error(err))
		}
		return nil
	}
	switch {
	case errors.Is(err, core.ErrNotFound):
		return gitText(w, http.StatusNotFound, msgProjectNotFound)
	case errors.Is(err, core.ErrNotAllowed), errors.Is(err, core.ErrInvalid):
		return gitText(w, http.StatusForbidden, rejectText(err))
	case errors.Is(err, core.ErrTooLarge):
		return gitText(w, http.StatusRequestEntityTooLarge, "413 Request Entity Too Large")
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
	p, _, _, ok := h.gitProject(w, r, service)
	if !ok {
		return nil
	}
	liftDeadlines(w)
	var pre bytes.Buffer
	writePkt(&pre, "# service="+service+"\n")
	pre.WriteString("0000")
	lw := &lazyWriter{w: w, ctype: "application/x-" + service + "-advertisement", preamble: pre.Bytes()}
	if err := h.s.p.Repos.AdvertiseRefs(r.Context(), repoOf(p), service, gitProtocol(r), lw); err != nil {
		return transportFailed(w, r, lw, "advertise refs", err)
	}
	return lw.start()
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

// gitUploadPack serves POST git-upload-pack (clone and fetch).
func (h handlers) gitUploadPack(w http.ResponseWriter, r *http.Request) error {
	if _, dotGit, ok := gitPath(r); !ok || !dotGit {
		return gitText(w, http.StatusNotFound, msgProjectNotFound)
	}
	p, _, _, ok := h.gitProject(w, r, uploadPack)
	if !ok {
		return nil
	}
	liftDeadlines(w)
	body, err := requestBody(r)
	if err != nil {
		return gitText(w, http.StatusBadRequest, rejectText(err))
	}
	defer body.Close()
	lw := &lazyWriter{w: w, ctype: "application/x-git-upload-pack-result"}
	if err := h.s.p.Repos.ServeRPC(r.Context(), repoOf(p), uploadPack, gitProtocol(r), body, lw); err != nil {
		return transportFailed(w, r, lw, "upload-pack", err)
	}
	return lw.start()
}

// gitReceivePack serves POST git-receive-pack (push). The command list at
// the start of the body is read first and every update is checked against
// the project's rules before git runs; the rules that need the pushed
// objects (no force-push to a protected branch) are checked again by the
// backend between the arrival of the objects and the moving of the refs
// (ports.CheckedReceiver). A refused push is answered in git's protocol,
// so `git push` prints GitLab's message as "remote: GitLab: ...".
func (h handlers) gitReceivePack(w http.ResponseWriter, r *http.Request) error {
	if _, dotGit, ok := gitPath(r); !ok || !dotGit {
		return gitText(w, http.StatusNotFound, msgProjectNotFound)
	}
	p, caller, rights, ok := h.gitProject(w, r, receivePack)
	if !ok {
		return nil
	}
	liftDeadlines(w)
	body, err := requestBody(r)
	if err != nil {
		return gitText(w, http.StatusBadRequest, rejectText(err))
	}
	defer body.Close()
	push, err := readPushCommands(body)
	if err != nil {
		return gitText(w, pushErrStatus(err), rejectText(err))
	}
	ctx := r.Context()
	repo := repoOf(p)
	rules, err := h.s.p.Protected.List(ctx, p.ID)
	if err != nil {
		return fmt.Errorf("protected branches of project %d: %w", p.ID, err)
	}
	pol := pushPolicy{rights: rights, rules: rules, defaultBranch: p.DefaultBranch}

	// Rules that need no pushed object, before git runs.
	for _, c := range push.commands {
		if err := pol.check(c, false); err != nil {
			return refusePush(w, body, push, err)
		}
	}

	in := io.MultiReader(bytes.NewReader(push.raw), body)
	lw := &lazyWriter{w: w, ctype: "application/x-git-receive-pack-result"}
	if cr, ok := h.s.p.Repos.(ports.CheckedReceiver); ok {
		check := func(ctx context.Context, updates []domain.RefUpdate) error {
			for _, u := range updates {
				if err := pol.check(u, true); err != nil {
					return err
				}
			}
			return nil
		}
		err = cr.ReceivePack(ctx, repo, gitProtocol(r), in, lw, check)
	} else {
		// Without a checked receiver the pushed objects are not visible
		// before refs move: a protected branch update is allowed only when
		// the repository already proves it a fast-forward.
		for _, c := range push.commands {
			if err := h.s.fallbackForcePushCheck(ctx, repo, pol, c); err != nil {
				return refusePush(w, body, push, err)
			}
		}
		err = h.s.p.Repos.ServeRPC(ctx, repo, receivePack, gitProtocol(r), in, lw)
	}
	// Events follow what the refs hold now, whether or not the client
	// stayed to read the answer.
	defer h.s.publishPushes(context.WithoutCancel(ctx), p, caller, push.commands)
	if err != nil {
		return transportFailed(w, r, lw, "receive-pack", err)
	}
	h.s.adoptDefaultBranch(context.WithoutCancel(ctx), p, push.commands)
	_ = lw.start()
	return nil
}

// pushErrStatus is the status of a push parsing error.
func pushErrStatus(err error) int {
	if errors.Is(err, core.ErrTooLarge) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// pushDenied is a push refused by a rule; git shows it as "remote: GitLab: ...".
type pushDenied string

func (e pushDenied) Error() string { return "GitLab: " + string(e) }

// pushPolicy is GitLab's change access check for one project and caller
// (lib/gitlab/checks/change_access.rb). Pushing at all (developer, project
// not archived) is checked before.
type pushPolicy struct {
	rights        access.Rights
	rules         []domain.ProtectedBranch
	defaultBranch string
}

// reservedRefs are the refs the server keeps for itself.
var reservedRefs = []string{"refs/merge-requests/", "refs/keep-around/", "refs/environments/", "refs/pipelines/"}

// check decides one update; ffKnown tells whether u.FastForward is known
// (only once the pushed objects arrived).
func (pp pushPolicy) check(u domain.RefUpdate, ffKnown bool) error {
	for _, prefix := range reservedRefs {
		if strings.HasPrefix(u.Ref, prefix) {
			return pushDenied(msgReservedRef)
		}
	}
	deletion := u.NewID == domain.ZeroID
	switch {
	case strings.HasPrefix(u.Ref, domain.BranchPrefix):
		branch := strings.TrimPrefix(u.Ref, domain.BranchPrefix)
		if deletion && branch == pp.defaultBranch {
			return pushDenied(msgDeleteDefault)
		}
		if _, protected := protection(pp.rules, branch); !protected {
			return nil
		}
		if ffKnown && !deletion && u.OldID != domain.ZeroID && !u.FastForward {
			return pushDenied(msgForcePushProtected)
		}
		if deletion {
			if !pp.rights.AtLeast(domain.Master) {
				return pushDenied(msgNonMasterDelete)
			}
			return pushDenied(msgNonWebDelete)
		}
		if allowed, _ := canPush(pp.rights, pp.rules, branch); !allowed {
			return pushDenied(msgPushProtected)
		}
	case strings.HasPrefix(u.Ref, domain.TagPrefix):
		if u.OldID != domain.ZeroID && !pp.rights.AtLeast(domain.Master) {
			return pushDenied(msgChangeExistingTags)
		}
	}
	return nil
}

// protectedUpdate reports whether u moves an existing protected branch to
// another commit (the case the force-push rule is about).
func (pp pushPolicy) protectedUpdate(u domain.RefUpdate) bool {
	if !strings.HasPrefix(u.Ref, domain.BranchPrefix) || u.OldID == domain.ZeroID || u.NewID == domain.ZeroID {
		return false
	}
	_, protected := protection(pp.rules, strings.TrimPrefix(u.Ref, domain.BranchPrefix))
	return protected
}

// fallbackForcePushCheck decides the force-push rule for backends that
// cannot hold a push between its objects and its refs: an update of a
// protected branch passes only when the repository already holds the new
// commit as a descendant of the old one; when it cannot tell (the new
// objects are still in the push) the push is refused rather than let a
// force-push through.
func (s *Service) fallbackForcePushCheck(ctx context.Context, repo string, pp pushPolicy, u domain.RefUpdate) error {
	if !pp.protectedUpdate(u) {
		return nil
	}
	ff, err := s.p.Repos.IsAncestor(ctx, repo, u.OldID, u.NewID)
	switch {
	case errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid):
		return pushDenied(msgUnverifiedProtected)
	case err != nil:
		return fmt.Errorf("force-push check of %s: %w", u.Ref, err)
	case !ff:
		return pushDenied(msgForcePushProtected)
	}
	return nil
}

// refusePush answers a refused push in git's protocol: the message on the
// side band (printed as "remote: ...") and a report-status rejecting every
// command, after reading the rest of the request so the client is not cut
// off while it still sends its pack.
func refusePush(w http.ResponseWriter, body io.Reader, push pushRequest, reason error) error {
	var denied pushDenied
	if !errors.As(reason, &denied) {
		return fmt.Errorf("push check: %w", reason)
	}
	_, _ = io.Copy(io.Discard, body)
	h := w.Header()
	h.Set("Content-Type", "application/x-git-receive-pack-result")
	h.Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(rejection(push, reason.Error()))
	return err
}

// rejection builds the receive-pack answer refusing every command of push.
func rejection(push pushRequest, msg string) []byte {
	var report bytes.Buffer
	if push.caps["report-status"] || push.caps["report-status-v2"] {
		writePkt(&report, "unpack ok\n")
		for _, c := range push.commands {
			writePkt(&report, "ng "+c.Ref+" pre-receive hook declined\n")
		}
		report.WriteString("0000")
	}
	band := 0 // payload bytes per side-band packet
	switch {
	case push.caps["side-band-64k"]:
		band = 65515
	case push.caps["side-band"]:
		band = 995
	}
	if band == 0 {
		return report.Bytes()
	}
	var out bytes.Buffer
	text := []byte(msg + "\n")
	for len(text) > 0 {
		n := min(len(text), band)
		writePkt(&out, "\x02"+string(text[:n]))
		text = text[n:]
	}
	rep := report.Bytes()
	for len(rep) > 0 {
		n := min(len(rep), band)
		writePkt(&out, "\x01"+string(rep[:n]))
		rep = rep[n:]
	}
	out.WriteString("0000")
	return out.Bytes()
}

func writePkt(b *bytes.Buffer, payload string) {
	fmt.Fprintf(b, "%04x", len(payload)+4)
	b.WriteString(payload)
}

// pushRequest is the start of a receive-pack request: the commands, the
// client's capabilities, and the raw bytes read (replayed to git).
type pushRequest struct {
	commands []domain.RefUpdate
	caps     map[string]bool
	raw      []byte
}

// readPushCommands reads the pkt-lines up to the first flush: optional
// "shallow <id>" lines, then "<old> <new> <ref>" commands, the first with
// the capabilities after a NUL.
func readPushCommands(rd io.Reader) (pushRequest, error) {
	out := pushRequest{caps: map[string]bool{}}
	var raw bytes.Buffer
	first := true
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(rd, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) && raw.Len() == 0 {
				return out, core.BadRequest("empty push request")
			}
			return out, wrapBodyErr(err, "push request: truncated command list")
		}
		raw.Write(hdr[:])
		n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
		if err != nil {
			return out, core.BadRequest("push request: bad pkt-line length")
		}
		if n == 0 {
			break
		}
		if n < 4 {
			return out, core.BadRequest("push request: unexpected special packet")
		}
		if raw.Len()+int(n) > maxCommandBytes {
			return out, &core.Error{Kind: core.ErrTooLarge, Msg: "413 push command list too large"}
		}
		line := make([]byte, n-4)
		if _, err := io.ReadFull(rd, line); err != nil {
			return out, wrapBodyErr(err, "push request: truncated command list")
		}
		raw.Write(line)
		text := strings.TrimSuffix(string(line), "\n")
		if first {
			if cmd, caps, ok := strings.Cut(text, "\x00"); ok {
				text = cmd
				for _, c := range strings.Fields(caps) {
					out.caps[c] = true
				}
			}
		}
		if strings.HasPrefix(text, "shallow ") {
			continue
		}
		first = false
		f := strings.Split(text, " ")
		if len(f) != 3 || !isObjectID(f[0]) || !isObjectID(f[1]) || f[2] == "" {
			return out, core.BadRequest("push request: malformed command")
		}
		u := domain.RefUpdate{Ref: f[2], OldID: f[0], NewID: f[1]}
		u.FastForward = u.OldID == domain.ZeroID && u.NewID != domain.ZeroID
		out.commands = append(out.commands, u)
	}
	out.raw = raw.Bytes()
	return out, nil
}

func wrapBodyErr(err error, msg string) error {
	var ce *core.Error
	if errors.As(err, &ce) {
		return err
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &core.Error{Kind: core.ErrTooLarge, Msg: "413 Request Entity Too Large"}
	}
	return &core.Error{Kind: core.ErrInvalid, Msg: msg, Err: err}
}

func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// pushCommitLimit is GitLab's cap on the commits carried by push data.
const pushCommitLimit = 20

// publishPushes publishes a PushEvent for every branch or tag command of
// a finished receive-pack whose ref now holds the pushed value (refused or
// failed commands moved nothing). Failures are logged: the push itself
// succeeded.
func (s *Service) publishPushes(ctx context.Context, p *domain.Project, caller *domain.Caller, cmds []domain.RefUpdate) {
	repo := repoOf(p)
	for _, c := range cmds {
		ev, ok, err := s.pushEvent(ctx, p, repo, caller, c)
		if err == nil && ok {
			err = s.p.Bus.Publish(ctx, ev)
		}
		if err != nil {
			s.log.Error("git http: push event", zap.Int64("project_id", p.ID), zap.String("ref", c.Ref), zap.Error(err))
		}
	}
}

// pushEvent builds the event of one command, ok false when the ref does not
// hold the command's new value (the update was refused, or another push
// moved it since).
func (s *Service) pushEvent(ctx context.Context, p *domain.Project, repo string, caller *domain.Caller, c domain.RefUpdate) (domain.PushEvent, bool, error) {
	ev := domain.PushEvent{ProjectID: p.ID, Actor: caller.UserID(), Ref: c.Ref, Before: c.OldID, After: c.NewID, At: s.now()}
	var head string
	switch {
	case strings.HasPrefix(c.Ref, domain.BranchPrefix):
		b, err := s.p.Repos.Branch(ctx, repo, strings.TrimPrefix(c.Ref, domain.BranchPrefix))
		if err == nil {
			head = b.Commit.ID
		} else if !errors.Is(err, core.ErrNotFound) && !errors.Is(err, core.ErrInvalid) {
			return ev, false, fmt.Errorf("read %s: %w", c.Ref, err)
		}
	case strings.HasPrefix(c.Ref, domain.TagPrefix):
		t, err := s.p.Repos.Tag(ctx, repo, strings.TrimPrefix(c.Ref, domain.TagPrefix))
		if err == nil {
			head = t.TargetID
		} else if !errors.Is(err, core.ErrNotFound) && !errors.Is(err, core.ErrInvalid) {
			return ev, false, fmt.Errorf("read %s: %w", c.Ref, err)
		}
	default:
		return ev, false, nil
	}
	if c.NewID == domain.ZeroID {
		return ev, head == "", nil
	}
	if head != c.NewID {
		return ev, false, nil
	}
	if strings.HasPrefix(c.Ref, domain.TagPrefix) {
		// GitLab's tag push data carries the tagged commit.
		commit, err := s.p.Repos.Commit(ctx, repo, c.NewID)
		if err != nil {
			return ev, false, fmt.Errorf("tagged commit of %s: %w", c.Ref, err)
		}
		ev.Commits, ev.TotalCommits = []domain.PushCommit{pushCommit(commit)}, 1
		return ev, true, nil
	}
	q := domain.LogQuery{Ref: c.NewID}
	if c.OldID != domain.ZeroID {
		q.Exclude = []string{c.OldID}
	} else if def := p.DefaultBranch; def != "" && domain.BranchPrefix+def != c.Ref {
		// A new branch lists the commits that are not on the default branch.
		if b, err := s.p.Repos.Branch(ctx, repo, def); err == nil {
			q.Exclude = []string{b.Commit.ID}
		}
	}
	total, err := s.p.Repos.CountCommits(ctx, repo, q)
	if err != nil {
		return ev, false, fmt.Errorf("count pushed commits of %s: %w", c.Ref, err)
	}
	q.Limit = pushCommitLimit
	commits, err := s.p.Repos.Log(ctx, repo, q)
	if err != nil {
		return ev, false, fmt.Errorf("pushed commits of %s: %w", c.Ref, err)
	}
	ev.TotalCommits = total
	for _, cm := range commits {
		ev.Commits = append(ev.Commits, pushCommit(cm))
	}
	return ev, true, nil
}

func pushCommit(c domain.Commit) domain.PushCommit {
	return domain.PushCommit{ID: c.ID, Message: c.Message, Timestamp: c.Committer.When, Author: c.Author}
}
