package sshaccept_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// git runs the git CLI as the tests' client (GIT_SSH_COMMAND picks the
// login's test key), bounded in time.
func git(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_SSH_COMMAND="+apptest.GitSSHCommand(),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func mustGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := git(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TestConcurrentSSHPushesAndClones: 32 clients push new branches while 32
// others clone, all at once over SSH. Every push is accepted and
// reachable, every clone complete, the repository passes git fsck
// --strict, and the server's goroutines come back to where they were.
func TestConcurrentSSHPushesAndClones(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("OpenSSH client not installed (.ci/run installs openssh-client)")
	}
	const pushers, cloners = 32, 32
	srv := apptest.New(t, apptest.SSH(), apptest.Configure(func(c *config.Config) {
		c.Log.Level = "warn"
		c.SSH.MaxSessionsPerIP = pushers + cloners + 8
		c.Git.QueueTimeout = time.Minute // 64 sessions share a few git process slots
	}))
	var proj struct {
		ID   int64
		Path string `json:"path_with_namespace"`
	}
	srv.JSON(t, "POST", "/projects", srv.RootToken, map[string]any{"name": "busy", "visibility": "private"}, 201, &proj)
	remote := srv.SSHRemote(t, proj.Path, "root")

	seed := filepath.Join(t.TempDir(), "seed")
	mustGit(t, "", "clone", "-q", remote, seed)
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(seed, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat("x", 1000*i)), 0o644); err != nil {
			t.Fatal(err)
		}
		mustGit(t, seed, "add", ".")
		mustGit(t, seed, "commit", "-q", "-m", fmt.Sprintf("seed %d", i))
	}
	mustGit(t, seed, "push", "-q", "origin", "master")
	head := mustGit(t, seed, "rev-parse", "HEAD")

	// Each pusher works in its own clone, made before the storm.
	dirs := make([]string, pushers)
	for i := range dirs {
		dirs[i] = filepath.Join(t.TempDir(), fmt.Sprintf("p%d", i))
		if err := os.CopyFS(dirs[i], os.DirFS(seed)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	baseline := runtime.NumGoroutine()

	pushed := make([]string, pushers)
	errs := make(chan error, pushers+cloners)
	var wg sync.WaitGroup
	for i := range pushers {
		wg.Go(func() {
			dir := dirs[i]
			if err := os.WriteFile(filepath.Join(dir, "mine.txt"), []byte(fmt.Sprint(i)), 0o644); err != nil {
				errs <- err
				return
			}
			if out, err := git(dir, "add", "mine.txt"); err != nil {
				errs <- fmt.Errorf("pusher %d: add: %v %s", i, err, out)
				return
			}
			if out, err := git(dir, "commit", "-q", "-m", fmt.Sprintf("pusher %d", i)); err != nil {
				errs <- fmt.Errorf("pusher %d: commit: %v %s", i, err, out)
				return
			}
			sha, _ := git(dir, "rev-parse", "HEAD")
			if out, err := git(dir, "push", "-q", "origin", fmt.Sprintf("HEAD:refs/heads/b%d", i)); err != nil {
				errs <- fmt.Errorf("pusher %d: push: %v\n%s", i, err, out)
				return
			}
			pushed[i] = sha
		})
	}
	for i := range cloners {
		wg.Go(func() {
			dir := filepath.Join(t.TempDir(), fmt.Sprintf("c%d", i))
			if out, err := git("", "clone", "-q", remote, dir); err != nil {
				errs <- fmt.Errorf("cloner %d: %v\n%s", i, err, out)
				return
			}
			if got, _ := git(dir, "rev-parse", "origin/master"); got != head {
				errs <- fmt.Errorf("cloner %d: master %s, want %s", i, got, head)
				return
			}
			if out, err := git(dir, "fsck", "--strict", "--no-progress"); err != nil {
				errs <- fmt.Errorf("cloner %d: fsck: %v\n%s", i, err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	repo := srv.RepoDir(proj.ID)
	if out, err := git("", "--git-dir="+repo, "fsck", "--strict", "--no-progress"); err != nil {
		t.Fatalf("server repository fsck: %v\n%s", err, out)
	}
	for i, sha := range pushed {
		got, err := git("", "--git-dir="+repo, "rev-parse", fmt.Sprintf("refs/heads/b%d", i))
		if err != nil || got != sha {
			t.Errorf("branch b%d = %s (%v), want %s", i, got, err, sha)
		}
	}

	// Sessions end with their clients: the server's goroutines come back
	// to the baseline (a little slack for the runtime's own).
	deadline := time.Now().Add(30 * time.Second)
	for {
		runtime.GC()
		n := runtime.NumGoroutine()
		if n <= baseline+2 {
			t.Logf("goroutines: %d before, %d after", baseline, n)
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines: %d before, %d after\n%s", baseline, n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
