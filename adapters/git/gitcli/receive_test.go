package gitcli_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestReceivePackCheck(t *testing.T) {
	t.Parallel()
	b, bare, ids := seeded(t)
	var mu sync.Mutex
	var seen [][]domain.RefUpdate
	check := func(ctx context.Context, updates []domain.RefUpdate) error {
		mu.Lock()
		seen = append(seen, updates)
		mu.Unlock()
		for _, u := range updates {
			if u.Ref == "refs/heads/main" && !u.FastForward {
				return core.Forbidden("You are not allowed to force push code to a protected branch on this project.")
			}
		}
		return nil
	}
	srv := checkedHTTP(t, b, check)
	work := filepath.Join(t.TempDir(), "clone")
	gitcli.CleanGit(t, filepath.Dir(work), "clone", "--quiet", srv.URL+"/r.git", work)
	gitcli.CleanGit(t, work, "commit", "--quiet", "--allow-empty", "-m", "ff")
	gitcli.CleanGit(t, work, "push", "--quiet", "origin", "main")
	ff := gitcli.CleanGit(t, work, "rev-parse", "HEAD")
	if got := gitcli.CleanGit(t, bare, "--git-dir="+bare, "rev-parse", "main"); got != ff {
		t.Fatalf("fast-forward push: main = %s, want %s", got, ff)
	}
	// A force push is rejected with the check's message, and nothing moves.
	gitcli.CleanGit(t, work, "reset", "--quiet", "--hard", ids["c1"])
	gitcli.CleanGit(t, work, "commit", "--quiet", "--allow-empty", "-m", "rewrite")
	cmd := exec.Command("git", "push", "--force", "origin", "main", "HEAD:refs/heads/other")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("force push succeeded")
	}
	if !strings.Contains(stderr.String(), "You are not allowed to force push code to a protected branch") {
		t.Errorf("push output lacks the message:\n%s", stderr.String())
	}
	if got := gitcli.CleanGit(t, bare, "--git-dir="+bare, "rev-parse", "main"); got != ff {
		t.Errorf("rejected push moved main to %s", got)
	}
	if out, err := exec.Command("git", "--git-dir="+bare, "rev-parse", "--verify", "--quiet", "refs/heads/other").Output(); err == nil {
		t.Errorf("rejected push created other: %s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || len(seen[0]) != 1 || !seen[0][0].FastForward || seen[0][0].OldID != ids["c3"] ||
		len(seen[1]) != 2 || seen[1][0].FastForward || !seen[1][1].FastForward || seen[1][1].OldID != domain.ZeroID {
		t.Errorf("checked updates = %+v", seen)
	}
}

func checkedHTTP(t *testing.T, b *gitcli.Backend, check func(context.Context, []domain.RefUpdate) error) *httptest.Server {
	base := smartHTTP(t, b, "projects/1.git")
	mux := http.NewServeMux()
	mux.HandleFunc("POST /r.git/git-receive-pack", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-git-receive-pack-result")
		if err := b.ReceivePack(r.Context(), "projects/1.git", r.Header.Get("Git-Protocol"), r.Body, w, check); err != nil {
			t.Errorf("ReceivePack: %v", err)
		}
	})
	mux.Handle("/", base.Config.Handler)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}
