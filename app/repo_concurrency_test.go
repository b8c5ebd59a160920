package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestConcurrentMultiFileCommits: 64 clients POST multi-file commits of
// distinct files to one branch at once. Every answer is a 201 or a 4xx;
// every accepted commit is reachable from the final head; exactly the
// accepted commits' files are in the final tree; git fsck --strict is
// clean. On SQLite, and on Postgres when a server answers.
//
// Not parallel, and one database after the other: the writers retry
// against each other, so anything running beside them makes each attempt
// slower and the attempts more (side by side the two runs took 2,400
// attempts for 128 commits and half again the time; one after the other
// 1,580).
func TestConcurrentMultiFileCommits(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { concurrentMultiFileCommits(t) })
	t.Run("postgres", func(t *testing.T) { concurrentMultiFileCommits(t, apptest.Postgres()) })
}

func concurrentMultiFileCommits(t *testing.T, opts ...apptest.Option) {
	srv := apptest.New(t, opts...)
	var proj struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"crowd"}, "visibility": {"private"}}, 201, &proj)
	path := fmt.Sprintf("/projects/%d/repository/commits", proj.ID)
	srv.JSON(t, "POST", path, srv.RootToken, map[string]any{"branch": "master", "commit_message": "seed",
		"actions": []map[string]string{{"action": "create", "file_path": "seed.txt", "content": "seed"}}}, 201, nil)

	const writers, filesEach = 64, 3
	type result struct {
		status int
		id     string
		files  []string
		body   string
	}
	results := make([]result, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			var actions []map[string]string
			var files []string
			for j := 0; j < filesEach; j++ {
				f := fmt.Sprintf("w%02d/file-%d.txt", i, j)
				files = append(files, f)
				actions = append(actions, map[string]string{"action": "create", "file_path": f, "content": fmt.Sprintf("writer %d file %d\n", i, j)})
			}
			resp, data := srv.Do(t, "POST", path, srv.RootToken, map[string]any{
				"branch": "master", "commit_message": fmt.Sprintf("writer %d", i), "actions": actions})
			r := result{status: resp.StatusCode, files: files, body: string(data)}
			if resp.StatusCode == 201 {
				var c struct{ ID string }
				if err := json.Unmarshal(data, &c); err == nil {
					r.id = c.ID
				}
			}
			results[i] = r
		}(i)
	}
	close(start)
	wg.Wait()

	ctx := context.Background()
	repo := fmt.Sprintf("projects/%d.git", proj.ID)
	head, err := srv.Repos.Branch(ctx, repo, "master")
	if err != nil {
		t.Fatalf("master: %v", err)
	}
	want := map[string]bool{"seed.txt": true}
	accepted := 0
	for i, r := range results {
		switch {
		case r.status == 201 && r.id != "":
			accepted++
			ok, err := srv.Repos.IsAncestor(ctx, repo, r.id, head.Commit.ID)
			if err != nil || !ok {
				t.Errorf("writer %d: accepted commit %s is not reachable from master %s (%v)", i, r.id, head.Commit.ID, err)
			}
			for _, f := range r.files {
				want[f] = true
			}
		case r.status >= 400 && r.status < 500:
		default:
			t.Errorf("writer %d: status %d: %s", i, r.status, r.body)
		}
	}
	tree, err := srv.Repos.Tree(ctx, repo, "master", "", true)
	if err != nil {
		t.Fatalf("tree: %v", err)
	}
	have := map[string]bool{}
	for _, e := range tree {
		if e.Type == "blob" {
			have[e.Path] = true
		}
	}
	if len(have) != len(want) {
		t.Errorf("master holds %d files, the %d accepted commits wrote %d (+ seed)", len(have), accepted, len(want)-1)
	}
	for f := range want {
		if !have[f] {
			t.Errorf("accepted file %s is missing from master", f)
		}
	}
	commits, err := srv.Repos.CountCommits(ctx, repo, domain.LogQuery{Ref: "master"})
	if err != nil || commits != accepted+1 {
		t.Errorf("master has %d commits, want %d accepted + seed (%v)", commits, accepted, err)
	}
	if accepted < writers/2 {
		t.Errorf("only %d of %d commits were accepted", accepted, writers)
	}
	cmd := exec.Command("git", "--git-dir="+srv.RepoDir(proj.ID), "fsck", "--strict", "--no-progress")
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent", "LC_ALL=C"}
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "error") {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	t.Logf("%d of %d concurrent commits accepted", accepted, writers)
}
