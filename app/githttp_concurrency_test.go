package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestConcurrentPushesAndAPICommits: goroutines push fast-forward commits
// over git smart HTTP to their own branches and to one shared branch while
// others write commits through the API (to their own branches and the
// shared one). Every accepted push and commit must be reachable from the
// final heads, and the repository must pass git fsck --strict.
func TestConcurrentPushesAndAPICommits(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	var proj struct {
		ID                int64
		PathWithNamespace string `json:"path_with_namespace"`
	}
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"busy"}, "visibility": {"private"}}, 201, &proj)
	u, err := url.Parse(srv.URL + "/" + proj.PathWithNamespace + ".git")
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("root", apptest.RootPassword)
	remote := u.String()
	repo := fmt.Sprintf("projects/%d.git", proj.ID)
	home := t.TempDir()

	seed := filepath.Join(t.TempDir(), "seed")
	runGit(t, home, "", "clone", "-q", remote, seed)
	writeAndCommit(t, home, seed, "seed.txt", "seed")
	runGit(t, home, seed, "push", "-q", "origin", "HEAD:refs/heads/master", "HEAD:refs/heads/shared")

	const (
		ownPushers    = 3
		sharedPushers = 3
		apiWriters    = 2
		rounds        = 4
	)
	var mu sync.Mutex
	accepted := map[string][]string{} // branch -> accepted commit SHAs
	accept := func(branch, sha string) {
		mu.Lock()
		defer mu.Unlock()
		accepted[branch] = append(accepted[branch], sha)
	}
	errs := make(chan error, ownPushers+sharedPushers+2*apiWriters)
	var wg sync.WaitGroup

	// pusher commits rounds times on branch and pushes each commit,
	// rebuilding on the remote head when another writer got there first.
	pusher := func(name, branch string) {
		defer wg.Done()
		dir := filepath.Join(t.TempDir(), name)
		if out, err := tryGit(home, "", "clone", "-q", remote, dir); err != nil {
			errs <- fmt.Errorf("%s: clone: %v\n%s", name, err, out)
			return
		}
		for i := 0; i < rounds; i++ {
			ok := false
			for attempt := 0; attempt < 50 && !ok; attempt++ {
				start := "origin/master"
				if out, err := tryGit(home, dir, "fetch", "-q", "origin"); err != nil {
					errs <- fmt.Errorf("%s: fetch: %v\n%s", name, err, out)
					return
				}
				if _, err := tryGit(home, dir, "rev-parse", "--verify", "-q", "origin/"+branch); err == nil {
					start = "origin/" + branch
				}
				if out, err := tryGit(home, dir, "checkout", "-q", "-B", branch, start); err != nil {
					errs <- fmt.Errorf("%s: checkout: %v\n%s", name, err, out)
					return
				}
				sha, err := commitFile(home, dir, fmt.Sprintf("%s-%d.txt", name, i), fmt.Sprintf("%s %d %d", name, i, attempt))
				if err != nil {
					errs <- fmt.Errorf("%s: %v", name, err)
					return
				}
				out, err := tryGit(home, dir, "push", "-q", "origin", branch)
				if err == nil {
					accept(branch, sha)
					ok = true
				} else if !strings.Contains(out, "rejected") && !strings.Contains(out, "failed to update ref") && !strings.Contains(out, "cannot lock ref") {
					errs <- fmt.Errorf("%s: push: %v\n%s", name, err, out)
					return
				}
			}
			if !ok {
				errs <- fmt.Errorf("%s: no push accepted in 50 attempts", name)
				return
			}
		}
	}
	// apiWriter commits rounds times on branch through the API, retrying
	// when the branch moved under it.
	apiWriter := func(name, branch string) {
		defer wg.Done()
		for i := 0; i < rounds; i++ {
			ok := false
			for attempt := 0; attempt < 50 && !ok; attempt++ {
				path := fmt.Sprintf("%s-%d-%d.txt", name, i, attempt)
				body := map[string]any{"branch": branch, "start_branch": "master", "commit_message": "api " + path,
					"actions": []map[string]string{{"action": "create", "file_path": path, "content": path}}}
				resp, data := srv.Do(t, "POST", fmt.Sprintf("/projects/%d/repository/commits", proj.ID), srv.RootToken, body)
				switch {
				case resp.StatusCode == 201:
					var c struct{ ID string }
					if err := json.Unmarshal(data, &c); err != nil {
						errs <- fmt.Errorf("%s: %v", name, err)
						return
					}
					accept(branch, c.ID)
					ok = true
				case resp.StatusCode >= 500:
					errs <- fmt.Errorf("%s: commit: %d %s", name, resp.StatusCode, data)
					return
				}
			}
			if !ok {
				errs <- fmt.Errorf("%s: no commit accepted in 50 attempts", name)
				return
			}
		}
	}

	for i := 0; i < ownPushers; i++ {
		wg.Add(1)
		go pusher(fmt.Sprintf("own%d", i), fmt.Sprintf("push-%d", i))
	}
	for i := 0; i < sharedPushers; i++ {
		wg.Add(1)
		go pusher(fmt.Sprintf("shared%d", i), "shared")
	}
	for i := 0; i < apiWriters; i++ {
		wg.Add(2)
		go apiWriter(fmt.Sprintf("api%d", i), fmt.Sprintf("api-%d", i))
		go apiWriter(fmt.Sprintf("apishared%d", i), "shared")
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	ctx := context.Background()
	total := 0
	for branch, shas := range accepted {
		b, err := srv.Repos.Branch(ctx, repo, branch)
		if err != nil {
			t.Fatalf("branch %s: %v", branch, err)
		}
		for _, sha := range shas {
			ok, err := srv.Repos.IsAncestor(ctx, repo, sha, b.Commit.ID)
			if err != nil || !ok {
				t.Errorf("accepted commit %s is not reachable from %s (%s): %v", sha, branch, b.Commit.ID, err)
			}
		}
		total += len(shas)
	}
	if want := (ownPushers + sharedPushers + 2*apiWriters) * rounds; total != want {
		t.Errorf("accepted %d writes, want %d", total, want)
	}
	if n := len(accepted["shared"]); n != (sharedPushers+apiWriters)*rounds {
		t.Errorf("shared branch took %d writes", n)
	}
	if out, err := tryGit(home, "", "--git-dir="+srv.RepoDir(proj.ID), "fsck", "--strict", "--no-progress"); err != nil || strings.Contains(out, "error") {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}

func concurrencyGitEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		"GIT_AUTHOR_NAME=Pusher", "GIT_AUTHOR_EMAIL=pusher@example.com",
		"GIT_COMMITTER_NAME=Pusher", "GIT_COMMITTER_EMAIL=pusher@example.com"}
}

func tryGit(home, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = concurrencyGitEnv(home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func runGit(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	out, err := tryGit(home, dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

func commitFile(home, dir, file, content string) (string, error) {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		return "", err
	}
	if out, err := tryGit(home, dir, "add", "--", file); err != nil {
		return "", fmt.Errorf("add: %v\n%s", err, out)
	}
	if out, err := tryGit(home, dir, "commit", "-q", "-m", "add "+file); err != nil {
		return "", fmt.Errorf("commit: %v\n%s", err, out)
	}
	out, err := tryGit(home, dir, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

func writeAndCommit(t *testing.T, home, dir, file, content string) string {
	t.Helper()
	sha, err := commitFile(home, dir, file, content)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}
