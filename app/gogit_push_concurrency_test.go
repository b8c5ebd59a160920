package app_test

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// TestGogitConcurrentPushes: on the gogit backend, 32 git clients push new
// branches and 16 push different commits onto one branch, all at once,
// over smart HTTP. Every branch push is accepted; of the shared branch's
// pushes the accepted ones are reachable from its head and the others are
// refused as git refuses a lost race (stale old value, or non-fast-forward
// once the client saw the winner); git fsck --strict is clean.
func TestGogitConcurrentPushes(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t, apptest.Configure(func(c *config.Config) { c.Git.Backend = "gogit" }))
	var proj struct {
		ID                int64
		PathWithNamespace string `json:"path_with_namespace"`
	}
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"race"}, "visibility": {"private"}}, 201, &proj)
	u, err := url.Parse(srv.URL + "/" + proj.PathWithNamespace + ".git")
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("root", srv.RootToken)
	remote := u.String()
	home := t.TempDir()
	work := filepath.Join(t.TempDir(), "work")
	runGit(t, home, "", "init", "-q", "-b", "master", work)
	base := writeAndCommit(t, home, work, "base.txt", "base\n")
	runGit(t, home, work, "push", "-q", remote, "master", "master:shared")

	// Every contender's commit, made by one fast-import: b00..b31 for the
	// new branches, s00..s15 for the shared one, each on top of base.
	const branches, shared = 32, 16
	var stream strings.Builder
	mark := func(prefix string, i int) {
		fmt.Fprintf(&stream, "commit refs/heads/%s%02d\ncommitter Pusher <pusher@example.com> 1700000000 +0000\ndata 3\n%s%02d\nfrom %s\n", prefix, i, prefix[:1], i, base)
		content := fmt.Sprintf("%s %d\n", prefix, i)
		fmt.Fprintf(&stream, "M 100644 inline %s%02d.txt\ndata %d\n%s\n", prefix, i, len(content), content)
	}
	for i := range branches {
		mark("b", i)
	}
	for i := range shared {
		mark("s", i)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = work, concurrencyGitEnv(home), strings.NewReader(stream.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}

	type result struct {
		ref, sha, out string
		err           error
	}
	results := make([]result, branches+shared)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range results {
		src, dst := fmt.Sprintf("b%02d", i), fmt.Sprintf("refs/heads/b%02d", i)
		if i >= branches {
			src, dst = fmt.Sprintf("s%02d", i-branches), "refs/heads/shared"
		}
		results[i] = result{ref: dst, sha: runGit(t, home, work, "rev-parse", src)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// The URL, not a remote: no local tracking ref for the
			// pushers to contend for.
			results[i].out, results[i].err = tryGit(home, work, "push", "--porcelain", remote, src+":"+dst)
		}()
	}
	close(start)
	wg.Wait()

	ctx := context.Background()
	repo := fmt.Sprintf("projects/%d.git", proj.ID)
	sharedHead, err := srv.Repos.Branch(ctx, repo, "shared")
	if err != nil {
		t.Fatal(err)
	}
	won := 0
	for i, r := range results {
		if r.err != nil {
			if i < branches {
				t.Errorf("push of %s refused: %v\n%s", r.ref, r.err, r.out)
				continue
			}
			if !strings.Contains(r.out, "[rejected]") && !strings.Contains(r.out, "[remote rejected]") &&
				!strings.Contains(r.out, "failed to update ref") {
				t.Errorf("shared push %d failed unlike a lost race: %v\n%s", i-branches, r.err, r.out)
			}
			if sharedHead.Commit.ID == r.sha {
				t.Errorf("refused push %s is the head of shared", r.sha)
			}
			continue
		}
		b, err := srv.Repos.Branch(ctx, repo, strings.TrimPrefix(r.ref, "refs/heads/"))
		if err != nil {
			t.Fatalf("%s: %v", r.ref, err)
		}
		if ok, err := srv.Repos.IsAncestor(ctx, repo, r.sha, b.Commit.ID); err != nil || !ok {
			t.Errorf("accepted push %s to %s is not reachable from %s: %v", r.sha, r.ref, b.Commit.ID, err)
		}
		if i >= branches {
			won++
		}
	}
	if won != 1 {
		t.Errorf("%d pushes to the shared branch won, want 1 (all were made on the same base)", won)
	}
	if out, err := tryGit(home, "", "--git-dir="+srv.RepoDir(proj.ID), "fsck", "--strict", "--no-progress"); err != nil || strings.Contains(out, "error") {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}
