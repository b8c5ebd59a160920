package compare_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core/ports"
)

// smartHTTP serves one backend's repositories over git's smart HTTP
// protocol as the repository module does (the "# service=" preamble
// before the backend's advertisement; pushes through the checked
// receiver when the backend has one, with a check that lets all pass).
type smartHTTP struct{ b ports.RepoBackend }

func (s smartHTTP) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ctx, protocol := req.Context(), req.Header.Get("Git-Protocol")
	p := strings.TrimPrefix(req.URL.Path, "/")
	fail := func(err error) { http.Error(w, err.Error(), http.StatusInternalServerError) }
	if repo, ok := strings.CutSuffix(p, "/info/refs"); ok {
		service := req.URL.Query().Get("service")
		var body bytes.Buffer
		if err := s.b.AdvertiseRefs(ctx, repo, service, protocol, &body); err != nil {
			fail(err)
			return
		}
		w.Header().Set("Content-Type", "application/x-"+service+"-advertisement")
		fmt.Fprintf(w, "%04x# service=%s\n0000", len(service)+15, service)
		_, _ = w.Write(body.Bytes())
		return
	}
	i := strings.LastIndex(p, "/")
	repo, service := p[:i], p[i+1:]
	var in io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			fail(err)
			return
		}
		in = zr
	}
	var out bytes.Buffer
	var err error
	if cr, ok := s.b.(ports.CheckedReceiver); ok && service == "git-receive-pack" {
		err = cr.ReceivePack(ctx, repo, protocol, in, &out, nil)
	} else {
		err = s.b.ServeRPC(ctx, repo, service, protocol, in, &out)
	}
	if err != nil {
		fail(err)
		return
	}
	w.Header().Set("Content-Type", "application/x-"+service+"-result")
	_, _ = w.Write(out.Bytes())
}

// gitRun runs git in dir with a fixed, isolated environment (dates
// included, so the same script makes the same objects).
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	const when = "2024-03-01T12:00:00Z"
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		"GIT_AUTHOR_NAME=Hearth Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_AUTHOR_DATE=" + when,
		"GIT_COMMITTER_NAME=Hearth Test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_COMMITTER_DATE=" + when,
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// TestBackendsAgreeOnTransport replays the same pushes (new branches,
// tags, a force-push, a deletion, a merge) over smart HTTP into both
// backends, then clones and fetches from each: the repositories and the
// clones hold the same refs and the same reachable objects, and git
// fsck --strict finds nothing wrong in any of them.
func TestBackendsAgreeOnTransport(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	const repo = "projects/wire.git"
	var urls [2]string
	for i, b := range p.backends {
		if err := b.Create(t.Context(), repo, "main"); err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(smartHTTP{b})
		t.Cleanup(ts.Close)
		urls[i] = ts.URL + "/" + repo
	}
	work := t.TempDir()
	gitRun(t, work, "init", "-q", "-b", "main")
	write := func(name, content string) {
		t.Helper()
		path := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		gitRun(t, work, "add", name)
	}
	commit := func(msg string) string {
		t.Helper()
		gitRun(t, work, "commit", "-q", "-m", msg)
		return gitRun(t, work, "rev-parse", "HEAD")
	}
	push := func(args ...string) {
		t.Helper()
		for _, u := range urls {
			gitRun(t, work, append([]string{"push", "-q", u}, args...)...)
		}
	}
	var big strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&big, "line %d of a file big enough for deltas\n", i)
	}
	write("README", "hello\n")
	write("src/big.txt", big.String())
	commit("first")
	push("main")
	write("src/big.txt", big.String()+"one more line\n")
	write("docs/a.md", "# a\n")
	base := commit("second")
	gitRun(t, work, "tag", "-a", "v1", "-m", "release one")
	gitRun(t, work, "tag", "light")
	push("main", "v1", "light")
	gitRun(t, work, "checkout", "-q", "-b", "topic")
	write("topic.txt", "topic\n")
	commit("topic")
	push("topic", "main:refs/heads/doomed")
	gitRun(t, work, "checkout", "-q", "main")
	write("main.txt", "main\n")
	commit("main moves")
	gitRun(t, work, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
	push("main")
	gitRun(t, work, "reset", "-q", "--hard", base)
	write("rewritten.txt", "rewritten\n")
	commit("rewritten")
	push("--force", "HEAD:topic")
	push("--delete", "doomed")
	p.sameRepos(repo)

	// Clones, then a fetch of what arrived meanwhile.
	var clones [2]string
	for i, u := range urls {
		clones[i] = filepath.Join(t.TempDir(), "clone")
		gitRun(t, filepath.Dir(clones[i]), "clone", "-q", "--mirror", u, clones[i])
	}
	gitRun(t, work, "checkout", "-q", "-b", "later", "main")
	write("later.txt", "later\n")
	commit("later")
	push("later")
	for _, c := range clones {
		gitRun(t, c, "fetch", "-q", "origin")
		gitRun(t, c, "fsck", "--strict", "--no-progress")
	}
	if a, b := inventory(t, clones[0]), inventory(t, clones[1]); !cmp.Equal(a, b) {
		t.Errorf("clones differ (gitcli, gogit):\n%s", cmp.Diff(a, b))
	}
	p.sameRepos(repo)

	// What gogit does not serve it refuses in words git prints.
	cmd := exec.CommandContext(t.Context(), "git", "clone", "--depth", "1", urls[1], filepath.Join(t.TempDir(), "shallow"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "does not support shallow") {
		t.Errorf("shallow clone from gogit: %v\n%s", err, out)
	}
}

// sameRepos requires the backends' copies of repo to hold the same refs
// and reachable objects, and to pass git fsck --strict.
func (p *pair) sameRepos(repo string) {
	p.t.Helper()
	var inv [2]string
	for i, root := range p.roots {
		path := filepath.Join(root, filepath.FromSlash(repo))
		gitRun(p.t, path, "fsck", "--strict", "--no-progress")
		inv[i] = inventory(p.t, path)
	}
	if !cmp.Equal(inv[0], inv[1]) {
		p.t.Errorf("repositories differ (gitcli, gogit):\n%s", cmp.Diff(inv[0], inv[1]))
	}
}

// inventory is a repository's refs and reachable objects.
func inventory(t *testing.T, gitDir string) string {
	t.Helper()
	refs := gitRun(t, gitDir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads", "refs/tags")
	objs := strings.Split(gitRun(t, gitDir, "rev-list", "--objects", "--all"), "\n")
	return refs + "\n" + strings.Join(sortedUnique(objs), "\n")
}

func sortedUnique(s []string) []string {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	out := make([]string, 0, len(m))
	for x := range m {
		out = append(out, x)
	}
	sort.Strings(out)
	return out
}
