package gitcli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// buildLargeRepo writes, with git fast-import, a repository of commits
// commits over files files (in 50 directories) and branches branches.
func buildLargeRepo(t testing.TB, bare string, commits, files, branches int) {
	t.Helper()
	cmd := exec.Command("git", "init", "--quiet", "--bare", "--template=", "--initial-branch=main", bare)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + bare, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v: %s", err, out)
	}
	fi := exec.Command("git", "--git-dir="+bare, "fast-import", "--quiet")
	fi.Env = cmd.Env
	in, err := fi.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := fi.Start(); err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(in, 1<<20)
	path := func(i int) string { return fmt.Sprintf("d%03d/f%04d.txt", i%50, i) }
	for c := 1; c <= commits; c++ {
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata <<EOT\ncommit %d\nEOT\n", c, 1600000000+c, c)
		if c == 1 {
			for i := range files {
				fmt.Fprintf(w, "M 100644 inline %s\ndata <<EOT\nfile %d\nEOT\n", path(i), i)
			}
		} else {
			fmt.Fprintf(w, "M 100644 inline %s\ndata <<EOT\nfile %d version %d\nEOT\n", path(c%files), c%files, c)
		}
	}
	for i := range branches {
		fmt.Fprintf(w, "reset refs/heads/branch-%04d\nfrom :%d\n\n", i, commits-i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := fi.Wait(); err != nil {
		t.Fatalf("fast-import: %v", err)
	}
}

// TestLargeRepository checks that the reads the API serves most stay fast
// on 20,000 commits, 5,000 files and 1,000 branches.
func TestLargeRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	b, err := New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	bare := filepath.Join(root, "projects", "1.git")
	start := time.Now()
	buildLargeRepo(t, bare, 20000, 5000, 1000)
	t.Logf("built in %v", time.Since(start))
	ctx := t.Context()
	const repo = "projects/1.git"
	measure := func(name string, fn func() error) {
		t.Helper()
		if err := fn(); err != nil { // warm up the pool and the OS cache
			t.Fatalf("%s: %v", name, err)
		}
		start := time.Now()
		const n = 5
		for range n {
			if err := fn(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		took := time.Since(start) / n
		t.Logf("%s: %v", name, took)
		if took > time.Second {
			t.Errorf("%s takes %v", name, took)
		}
	}
	measure("Log page 50", func() error {
		log, err := b.Log(ctx, repo, domain.LogQuery{Ref: "main", Skip: 980, Limit: 20})
		if err == nil && (len(log) != 20 || !strings.HasPrefix(log[0].Message, "commit 19020")) {
			err = fmt.Errorf("unexpected page: %d commits, first %q", len(log), log[0].Message)
		}
		return err
	})
	measure("CountCommits", func() error {
		n, err := b.CountCommits(ctx, repo, domain.LogQuery{Ref: "main"})
		if err == nil && n != 20000 {
			err = fmt.Errorf("count %d", n)
		}
		return err
	})
	measure("Tree root", func() error {
		tree, err := b.Tree(ctx, repo, "main", "", false)
		if err == nil && len(tree) != 50 {
			err = fmt.Errorf("%d entries", len(tree))
		}
		return err
	})
	measure("File", func() error {
		f, err := b.File(ctx, repo, "main", "d042/f0042.txt")
		if err == nil && f.LastCommitID == "" {
			err = fmt.Errorf("no last commit")
		}
		return err
	})
	measure("Branches", func() error {
		br, err := b.Branches(ctx, repo)
		if err == nil && len(br) != 1001 {
			err = fmt.Errorf("%d branches", len(br))
		}
		return err
	})
	measure("Commit", func() error { _, err := b.Commit(ctx, repo, "branch-0500"); return err })
}
