package gitcli_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/core"
)

// smartHTTP is a minimal git smart-HTTP server over the backend.
func smartHTTP(t *testing.T, b *gitcli.Backend, repo string) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /r.git/info/refs", func(w http.ResponseWriter, r *http.Request) {
		svc := r.URL.Query().Get("service")
		w.Header().Set("Content-Type", "application/x-"+svc+"-advertisement")
		proto := r.Header.Get("Git-Protocol")
		if proto == "" {
			line := "# service=" + svc + "\n"
			fmt.Fprintf(w, "%04x%s0000", len(line)+4, line)
		}
		if err := b.AdvertiseRefs(r.Context(), repo, svc, proto, w); err != nil {
			t.Errorf("AdvertiseRefs: %v", err)
		}
	})
	for _, svc := range []string{"git-upload-pack", "git-receive-pack"} {
		mux.HandleFunc("POST /r.git/"+svc, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-"+svc+"-result")
			if err := b.ServeRPC(r.Context(), repo, svc, r.Header.Get("Git-Protocol"), r.Body, w); err != nil {
				t.Errorf("ServeRPC: %v", err)
			}
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestTransportCloneAndPush(t *testing.T) {
	t.Parallel()
	b, bare, ids := seeded(t)
	srv := smartHTTP(t, b, "projects/1.git")
	for _, proto := range []string{"0", "2"} {
		work := filepath.Join(t.TempDir(), "clone")
		gitcli.CleanGit(t, filepath.Dir(work), "-c", "protocol.version="+proto, "clone", "--quiet", srv.URL+"/r.git", work)
		if got := gitcli.CleanGit(t, work, "rev-parse", "HEAD"); got != ids["c3"] {
			t.Errorf("protocol %s: cloned HEAD = %s, want %s", proto, got, ids["c3"])
		}
		writeFile(t, filepath.Join(work, "pushed.txt"), "p"+proto, 0o644)
		gitcli.CleanGit(t, work, "add", "pushed.txt")
		gitcli.CleanGit(t, work, "commit", "--quiet", "-m", "push "+proto)
		gitcli.CleanGit(t, work, "-c", "protocol.version="+proto, "push", "--quiet", "origin", "HEAD:refs/heads/pushed"+proto)
		want := gitcli.CleanGit(t, work, "rev-parse", "HEAD")
		if got := gitcli.CleanGit(t, bare, "--git-dir="+bare, "rev-parse", "refs/heads/pushed"+proto); got != want {
			t.Errorf("pushed ref = %s, want %s", got, want)
		}
		// The backend's pooled readers see the pushed objects.
		if c, err := b.Commit(t.Context(), "projects/1.git", "pushed"+proto); err != nil || c.ID != want {
			t.Errorf("Commit after push = %v, %v", c.ID, err)
		}
	}
	if err := b.AdvertiseRefs(t.Context(), "projects/1.git", "git-upload-archive", "", io.Discard); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("unknown service: %v", err)
	}
	if err := b.ServeRPC(t.Context(), "projects/1.git", "git-upload-pack", "version=2\n-x", strings.NewReader(""), io.Discard); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("hostile protocol: %v", err)
	}
	if err := b.AdvertiseRefs(t.Context(), "projects/404.git", "git-upload-pack", "", io.Discard); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("missing repository: %v", err)
	}
}
