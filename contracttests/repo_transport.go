package contracttests

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/core"
)

// repoSmartHTTP serves r's repositories over git's smart HTTP protocol the
// way the repository module does: "/<repo>/info/refs?service=..." with the
// "# service=" packet and flush before the backend's advertisement, and
// "/<repo>/<service>" for the stateless requests. Errors of the backend
// are recorded and answered with 403 (ErrNotAllowed), 400 or 404.
type repoSmartHTTP struct {
	r    Repo
	mu   sync.Mutex
	errs []error
}

func (s *repoSmartHTTP) fail(w http.ResponseWriter, err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
	switch {
	case errors.Is(err, core.ErrNotAllowed):
		http.Error(w, err.Error(), http.StatusForbidden)
	case errors.Is(err, core.ErrInvalid):
		http.Error(w, err.Error(), http.StatusBadRequest)
	case errors.Is(err, core.ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
	default:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (s *repoSmartHTTP) errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

func pktLine(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

func (s *repoSmartHTTP) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ctx := req.Context()
	protocol := req.Header.Get("Git-Protocol")
	p := strings.TrimPrefix(req.URL.Path, "/")
	if repo, ok := strings.CutSuffix(p, "/info/refs"); ok && req.Method == http.MethodGet {
		service := req.URL.Query().Get("service")
		// The advertisement is buffered so an error can still become a
		// status code.
		var body bytes.Buffer
		if err := s.r.Backend.AdvertiseRefs(ctx, repo, service, protocol, &body); err != nil {
			s.fail(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/x-"+service+"-advertisement")
		w.Header().Set("Cache-Control", "no-cache")
		// Always, as the module does: git takes it before a v2
		// advertisement too, and needs it before a v0 one (which a
		// backend without v2 answers a v2 request with).
		_, _ = io.WriteString(w, pktLine("# service="+service+"\n")+"0000")
		_, _ = w.Write(body.Bytes())
		return
	}
	i := strings.LastIndex(p, "/")
	if i < 0 || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	repo, service := p[:i], p[i+1:]
	var in io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		in = zr
	}
	var out bytes.Buffer
	if err := s.r.Backend.ServeRPC(ctx, repo, service, protocol, in, &out); err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-"+service+"-result")
	_, _ = w.Write(out.Bytes())
}

// client runs the git client against the test server (protocol version
// v: "0" or "2").
func (g repoGit) client(dir, v string, args ...string) (string, error) {
	return g.try(dir, append([]string{"-c", "protocol.version=" + v, "-c", "http.postBuffer=1048576"}, args...)...)
}

// repoRemoteRefs is "<oid> <ref>" of every branch and tag of the bare
// repository at path (peeled tags included), as ls-remote prints them.
func (g repoGit) remoteRefs(path string) string {
	g.t.Helper()
	return g.run(path, "ls-remote", "--heads", "--tags", path)
}

func repoTransportErrors(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	repoRich(t, r, g)
	for _, service := range []string{"git-upload-archive", "upload-pack", "", "git-upload-pack --help", "-x"} {
		err := r.Backend.AdvertiseRefs(ctx, "projects/1.git", service, "", io.Discard)
		repoWantErr(t, "AdvertiseRefs of service "+quote(service), err, core.ErrInvalid)
		err = r.Backend.ServeRPC(ctx, "projects/1.git", service, "", strings.NewReader("0000"), io.Discard)
		repoWantErr(t, "ServeRPC of service "+quote(service), err, core.ErrInvalid)
	}
	for _, service := range []string{"git-upload-pack", "git-receive-pack"} {
		err := r.Backend.AdvertiseRefs(ctx, "projects/404.git", service, "", io.Discard)
		if !errors.Is(err, core.ErrNotAllowed) {
			repoWantErr(t, "AdvertiseRefs of a missing repository", err, core.ErrNotFound)
		}
		err = r.Backend.AdvertiseRefs(ctx, "../x.git", service, "", io.Discard)
		repoWantErr(t, "AdvertiseRefs of a hostile repository name", err, core.ErrInvalid)
		err = r.Backend.AdvertiseRefs(ctx, "projects/1.git", service, "version=2\nx", io.Discard)
		if !errors.Is(err, core.ErrNotAllowed) {
			repoWantErr(t, "AdvertiseRefs with a hostile protocol", err, core.ErrInvalid)
		}
	}
}

// repoCapable reports whether the backend serves service; when it does
// not, it checks that it says so with core.ErrNotAllowed and a message
// naming the service.
func repoCapable(t *testing.T, r Repo, service string) bool {
	t.Helper()
	err := r.Backend.AdvertiseRefs(t.Context(), "projects/1.git", service, "", io.Discard)
	switch {
	case err == nil:
		return true
	case errors.Is(err, core.ErrNotAllowed):
		short := strings.TrimPrefix(service, "git-")
		if !strings.Contains(err.Error(), short) {
			t.Errorf("AdvertiseRefs(%s) refuses with %q, which does not say which service it cannot serve", service, err)
		}
		err = r.Backend.ServeRPC(t.Context(), "projects/1.git", service, "", strings.NewReader("0000"), io.Discard)
		repoWantErr(t, "ServeRPC of a service the backend cannot serve", err, core.ErrNotAllowed)
		return false
	default:
		t.Fatalf("AdvertiseRefs(%s): %v", service, err)
		return false
	}
}

func repoTransportAdvertise(t *testing.T, r Repo) {
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for _, service := range []string{"git-upload-pack", "git-receive-pack"} {
		if !repoCapable(t, r, service) {
			continue
		}
		var buf bytes.Buffer
		if err := r.Backend.AdvertiseRefs(t.Context(), "projects/1.git", service, "", &buf); err != nil {
			t.Fatal(err)
		}
		adv := buf.String()
		if strings.Contains(adv, "# service=") {
			t.Errorf("%s advertisement starts with the service packet, which the caller writes", service)
		}
		if !strings.HasSuffix(adv, "0000") {
			t.Errorf("%s advertisement does not end with a flush packet", service)
		}
		for _, ref := range []string{"refs/heads/main", "refs/heads/feature", "refs/tags/v1.0"} {
			line := g.refOf(h.path, ref) + " " + ref
			if !strings.Contains(adv, line) {
				t.Errorf("%s advertisement lacks %q:\n%s", service, line, adv)
			}
		}
	}
}

func repoTransportClonePushFetch(t *testing.T, r Repo) {
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	canUpload := repoCapable(t, r, "git-upload-pack")
	canReceive := repoCapable(t, r, "git-receive-pack")
	srv := &repoSmartHTTP{r: r}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	url := ts.URL + "/projects/1.git"

	for _, v := range []string{"0", "2"} {
		dir := t.TempDir()
		_, err := g.client(dir, v, "clone", "--quiet", url, "work")
		if !canUpload {
			if err == nil {
				t.Errorf("protocol v%s: clone succeeded from a backend that cannot serve git-upload-pack", v)
			}
			continue
		}
		if err != nil {
			t.Fatalf("protocol v%s: git clone: %v (backend errors %v)", v, err, srv.errors())
		}
		work := filepath.Join(dir, "work")
		g.run(work, "fsck", "--strict", "--no-progress")
		if got, want := g.run(work, "rev-parse", "HEAD"), h.c["c5"]; got != want {
			t.Errorf("protocol v%s: clone HEAD = %s, want %s", v, got, want)
		}
		if b, err := os.ReadFile(filepath.Join(work, "README")); err != nil || string(b) != "hello\nworld\nagain\n" {
			t.Errorf("protocol v%s: cloned README = %q, %v", v, b, err)
		}
		remote, err := g.client(work, v, "ls-remote", "--heads", "--tags", "origin")
		if err != nil {
			t.Fatal(err)
		}
		if want := g.remoteRefs(h.path); remote != want {
			t.Errorf("protocol v%s: ls-remote over HTTP:\n%s\nwant\n%s", v, remote, want)
		}
	}
	if !canUpload {
		return
	}

	// Push a new branch over HTTP.
	dir := t.TempDir()
	if _, err := g.client(dir, "2", "clone", "--quiet", url, "work"); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.WriteFile(filepath.Join(work, "pushed.txt"), []byte("pushed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.run(work, "add", "pushed.txt")
	g.at(30, 0).run(work, "commit", "--quiet", "-m", "pushed over HTTP")
	local := g.run(work, "rev-parse", "HEAD")
	_, err := g.client(work, "2", "push", "--quiet", "origin", "HEAD:refs/heads/pushed")
	if !canReceive {
		if err == nil {
			t.Error("push succeeded to a backend that cannot serve git-receive-pack")
		}
		if got := g.refOf(h.path, "refs/heads/pushed"); got != "" {
			t.Errorf("refused push created refs/heads/pushed = %s", got)
		}
	} else {
		if err != nil {
			t.Fatalf("git push: %v (backend errors %v)", err, srv.errors())
		}
		if got := g.refOf(h.path, "refs/heads/pushed"); got != local {
			t.Errorf("refs/heads/pushed = %q after push, want %s", got, local)
		}
		g.fsck(h.path)
		// A stale push (not a fast-forward) is refused and moves nothing.
		g.run(work, "reset", "--quiet", "--hard", h.c["c1"])
		if _, err := g.client(work, "0", "push", "--quiet", "origin", "HEAD:refs/heads/main"); err == nil {
			t.Error("a non-fast-forward push succeeded")
		}
		if got := g.refOf(h.path, "refs/heads/main"); got != h.c["c5"] {
			t.Errorf("main = %s after a refused push", got)
		}
	}

	// Fetch what arrived meanwhile.
	w := g.work()
	w.git("fetch", "--quiet", h.path, "main")
	w.git("checkout", "--quiet", "-b", "later", "FETCH_HEAD")
	w.write(map[string][]byte{"later.txt": []byte("later\n")})
	later := w.commit(31, "later")
	w.git("push", "--quiet", h.path, "later:refs/heads/later")
	for _, v := range []string{"0", "2"} {
		if _, err := g.client(work, v, "fetch", "--quiet", "origin"); err != nil {
			t.Fatalf("protocol v%s: git fetch: %v (backend errors %v)", v, err, srv.errors())
		}
		if got := g.run(work, "rev-parse", "refs/remotes/origin/later"); got != later {
			t.Errorf("protocol v%s: fetched later = %s, want %s", v, got, later)
		}
	}
	g.run(work, "fsck", "--strict", "--no-progress")
}
