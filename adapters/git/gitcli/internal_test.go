package gitcli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// plainRepo makes root/projects/1.git with plain git init (not through the
// backend, so without its config) and one commit on main.
func plainRepo(t *testing.T, root string) string {
	t.Helper()
	bare := filepath.Join(root, "projects", "1.git")
	CleanGit(t, root, "init", "--quiet", "--bare", "--template=", "--initial-branch=main", bare)
	work := t.TempDir()
	CleanGit(t, work, "init", "--quiet", "--template=", "--initial-branch=main")
	if err := os.WriteFile(filepath.Join(work, "f"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	CleanGit(t, work, "add", "f")
	CleanGit(t, work, "commit", "--quiet", "-m", "one")
	CleanGit(t, work, "push", "--quiet", bare, "main")
	return bare
}

func TestCatFilePoolReuse(t *testing.T) {
	t.Parallel()
	b, root := NewTestBackend(t)
	plainRepo(t, root)
	ctx := t.Context()
	for range 20 {
		if _, err := b.Commit(ctx, "projects/1.git", "main"); err != nil {
			t.Fatal(err)
		}
	}
	if idle, started := b.cat.stats(); idle != 1 || started != 1 {
		t.Errorf("after 20 sequential reads: %d idle, %d started; want 1, 1", idle, started)
	}
	// Concurrent readers get their own processes; the pool keeps a few
	// (catFilePerRepo) and closes the others when they come back, so a
	// reader may start a new one later: how many depends on scheduling, but
	// most of the 160 reads must reuse a process.
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 10 {
				if _, err := b.Tree(ctx, "projects/1.git", "main", "", false); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if idle, started := b.cat.stats(); idle > catFilePerRepo || started > 1+16*10/4 {
		t.Errorf("after concurrent reads: %d idle (max %d), %d started", idle, catFilePerRepo, started)
	}
}

func TestCatFilePoolRecoversFromKilledProcess(t *testing.T) {
	t.Parallel()
	b, root := NewTestBackend(t)
	bare := plainRepo(t, root)
	ctx := t.Context()
	if _, err := b.Commit(ctx, "projects/1.git", "main"); err != nil {
		t.Fatal(err)
	}
	b.cat.mu.Lock()
	victim := b.cat.idle[bare][0]
	b.cat.mu.Unlock()
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = victim.cmd.Wait()
	// The first read may hit the dead process and fail; it must not be
	// reused, and the next read works.
	_, err := b.Commit(ctx, "projects/1.git", "main")
	if err != nil {
		if _, err := b.Commit(ctx, "projects/1.git", "main"); err != nil {
			t.Fatalf("read after a killed process: %v", err)
		}
	}
	b.cat.mu.Lock()
	for _, c := range b.cat.idle[bare] {
		if c == victim {
			t.Error("the killed process is back in the pool")
		}
	}
	b.cat.mu.Unlock()
	// A cancelled request discards its process and reports the cancel.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.Commit(cctx, "projects/1.git", "main"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
	// A request cancelled while it runs kills its process.
	cctx, cancel = context.WithCancel(ctx)
	err = b.withCatFile(cctx, bare, func(c *catFile) error {
		cancel()
		time.Sleep(50 * time.Millisecond)
		_, err := c.info("HEAD")
		return err
	})
	if err == nil {
		t.Error("a read cancelled midway succeeded")
	}
	if _, err := b.Commit(ctx, "projects/1.git", "main"); err != nil {
		t.Fatalf("read after a cancelled one: %v", err)
	}
}

func TestCatFilePoolIdleTimeoutAndClose(t *testing.T) {
	t.Parallel()
	b, root := NewTestBackend(t)
	plainRepo(t, root)
	b.cat = newCatFilePool(b, 40*time.Millisecond, b.cat.busy)
	ctx := t.Context()
	if _, err := b.Commit(ctx, "projects/1.git", "main"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if idle, _ := b.cat.stats(); idle == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("idle process never closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := b.Commit(ctx, "projects/1.git", "main"); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if idle, _ := b.cat.stats(); idle != 0 {
		t.Errorf("%d idle processes after Close", idle)
	}
	if _, err := b.Commit(ctx, "projects/1.git", "main"); err == nil {
		t.Error("read after Close succeeded")
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestFsyncConfig checks the configuration every git of the backend runs
// with, on a repository made without it: objects and refs are fsynced.
func TestFsyncConfig(t *testing.T) {
	t.Parallel()
	b, root := NewTestBackend(t)
	bare := plainRepo(t, root)
	ctx := t.Context()
	for key, want := range map[string]string{"core.fsync": "committed", "core.fsyncmethod": "fsync"} {
		out, err := b.runIn(ctx, bare, "config", "--get", key)
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("effective %s = %q, %v; want %q", key, out, err, want)
		}
	}
	// And a repository made by the backend has it in its own config.
	if err := b.Create(ctx, "projects/2.git", "main"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "projects", "2.git")
	for key, want := range map[string]string{"core.fsync": "objects,reference", "core.fsyncMethod": "fsync",
		"receive.fsckObjects": "true", "core.bare": "true"} {
		if got := CleanGit(t, p, "--git-dir="+p, "config", "--local", "--get", key); got != want {
			t.Errorf("local %s = %q, want %q", key, got, want)
		}
	}
}

// TestHostileInputNeverAnOption runs every method with option-like input
// through a git wrapper that records its arguments: none may reach git.
func TestHostileInputNeverAnOption(t *testing.T) {
	t.Parallel()
	b, root := NewTestBackend(t)
	plainRepo(t, root)
	logFile := filepath.Join(t.TempDir(), "args")
	wrapper := filepath.Join(t.TempDir(), "git")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> " + logFile + "; done\nexec " + b.git + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	b.git = wrapper
	ctx := t.Context()
	const repo = "projects/1.git"
	hostile := []string{"--output=/tmp/pwned", "-x", "--upload-pack=touch /tmp/pwned", "--exec=id"}
	s := domain.Signature{Name: "n", Email: "e@x", When: time.Unix(1, 0)}
	for _, h := range hostile {
		calls := map[string]error{}
		calls["Resolve"] = second(b.Resolve(ctx, repo, h))
		calls["Commit"] = second(b.Commit(ctx, repo, h))
		calls["Branch"] = second(b.Branch(ctx, repo, h))
		calls["Tag"] = second(b.Tag(ctx, repo, h))
		calls["SetDefaultBranch"] = b.SetDefaultBranch(ctx, repo, h)
		calls["Log"] = second(b.Log(ctx, repo, domain.LogQuery{Ref: h}))
		calls["LogExclude"] = second(b.Log(ctx, repo, domain.LogQuery{Ref: "main", Exclude: []string{h}}))
		calls["CountCommits"] = second(b.CountCommits(ctx, repo, domain.LogQuery{Ref: h}))
		calls["Tree"] = second(b.Tree(ctx, repo, h, "", false))
		calls["File"] = second(b.File(ctx, repo, h, "f"))
		calls["Blob"] = second(b.Blob(ctx, repo, h))
		calls["Diff"] = second(b.Diff(ctx, repo, h, "main"))
		calls["MergeBase"] = second(b.MergeBase(ctx, repo, h, "main"))
		calls["IsAncestor"] = second(b.IsAncestor(ctx, repo, "main", h))
		calls["Archive"] = b.Archive(ctx, repo, h, "tar", "p", io.Discard)
		calls["ArchivePrefix"] = b.Archive(ctx, repo, "main", "tar", h, io.Discard)
		calls["UpdateRef"] = b.UpdateRef(ctx, repo, h, domain.ZeroID, domain.ZeroID)
		calls["CommitFiles"] = second(b.CommitFiles(ctx, repo, domain.CommitFiles{Branch: h, Message: "m", Author: s, Committer: s,
			Actions: []domain.FileAction{{Action: domain.FileCreate, Path: "x", Content: []byte("x")}}}))
		calls["CreateTag"] = second(b.CreateTag(ctx, repo, h, "main", "", s))
		calls["CreateTagTarget"] = second(b.CreateTag(ctx, repo, "t", h, "", s))
		calls["Merge"] = second(b.Merge(ctx, repo, domain.MergeSpec{Ours: "main", Theirs: h, Message: "m", Author: s, Committer: s}))
		calls["CherryPick"] = second(b.CherryPick(ctx, repo, h, "main", s))
		calls["ServeRPC"] = b.ServeRPC(ctx, repo, h, "", strings.NewReader(""), io.Discard)
		calls["Stats"] = third(b.Stats(ctx, repo, h))
		for name, err := range calls {
			if !errors.Is(err, core.ErrInvalid) {
				t.Errorf("%s(%q) = %v, want ErrInvalid", name, h, err)
			}
		}
		// A path that looks like an option is fine as a path, after "--".
		if _, err := b.Log(ctx, repo, domain.LogQuery{Ref: "main", Path: h}); err != nil {
			t.Errorf("Log with path %q: %v", h, err)
		}
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(string(data), "\n")
	for i, a := range args {
		for _, h := range hostile {
			if a == h && (i == 0 || args[i-1] != "--") {
				t.Errorf("git got %q as an argument not after --", h)
			}
		}
	}
	if _, err := os.Stat("/tmp/pwned"); err == nil {
		t.Error("/tmp/pwned exists")
	}
}

func second[T any](_ T, err error) error { return err }

func third[A, B any](_ A, _ B, err error) error { return err }
