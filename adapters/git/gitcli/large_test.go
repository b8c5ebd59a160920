package gitcli

import (
	"bufio"
	"context"
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

// largeReads are the reads the API serves most, each checking its answer
// on a repository built by buildLargeRepo(commits, files, branches).
func largeReads(b *Backend, repo string, commits, branches int) []struct {
	name string
	fn   func(ctx context.Context) error
} {
	return []struct {
		name string
		fn   func(ctx context.Context) error
	}{
		{"LogPage50", func(ctx context.Context) error {
			log, err := b.Log(ctx, repo, domain.LogQuery{Ref: "main", Skip: 980, Limit: 20})
			if want := fmt.Sprintf("commit %d", commits-980); err == nil && (len(log) != 20 || !strings.HasPrefix(log[0].Message, want)) {
				err = fmt.Errorf("unexpected page: %d commits, first %q, want %q", len(log), log[0].Message, want)
			}
			return err
		}},
		{"CountCommits", func(ctx context.Context) error {
			n, err := b.CountCommits(ctx, repo, domain.LogQuery{Ref: "main"})
			if err == nil && n != commits {
				err = fmt.Errorf("count %d", n)
			}
			return err
		}},
		{"TreeRoot", func(ctx context.Context) error {
			tree, err := b.Tree(ctx, repo, "main", "", false)
			if err == nil && len(tree) != 50 {
				err = fmt.Errorf("%d entries", len(tree))
			}
			return err
		}},
		{"File", func(ctx context.Context) error {
			f, err := b.File(ctx, repo, "main", "d042/f0042.txt")
			if err == nil && f.LastCommitID == "" {
				err = fmt.Errorf("no last commit")
			}
			return err
		}},
		{"Branches", func(ctx context.Context) error {
			br, err := b.Branches(ctx, repo)
			if err == nil && len(br) != branches+1 {
				err = fmt.Errorf("%d branches", len(br))
			}
			return err
		}},
		{"Commit", func(ctx context.Context) error {
			_, err := b.Commit(ctx, repo, fmt.Sprintf("branch-%04d", branches/2))
			return err
		}},
	}
}

// newLargeRepo is a backend serving one repository built by
// buildLargeRepo as projects/1.git.
func newLargeRepo(t testing.TB, commits, files, branches int) (*Backend, string) {
	root := t.TempDir()
	b, err := New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	buildLargeRepo(t, filepath.Join(root, "projects", "1.git"), commits, files, branches)
	return b, "projects/1.git"
}

// TestLargeRepository checks the answers of the reads the API serves most
// on a repository of some size (their speed on 20,000 commits is
// BenchmarkLargeRepository's).
func TestLargeRepository(t *testing.T) {
	t.Parallel()
	const commits, files, branches = 2000, 500, 100
	b, repo := newLargeRepo(t, commits, files, branches)
	for _, r := range largeReads(b, repo, commits, branches) {
		for range 2 { // the second from the caches
			if err := r.fn(t.Context()); err != nil {
				t.Errorf("%s: %v", r.name, err)
			}
		}
	}
}

// BenchmarkLargeRepository times those reads on 20,000 commits, 5,000
// files and 1,000 branches; the goal is under a second each. CountCommits
// walks the whole history and is the slowest; the others answer in
// milliseconds from cat-file and the caches.
//
//	go test ./adapters/git/gitcli -run '^$' -bench LargeRepository -benchtime 5x
func BenchmarkLargeRepository(bb *testing.B) {
	const commits, files, branches = 20000, 5000, 1000
	start := time.Now()
	b, repo := newLargeRepo(bb, commits, files, branches)
	bb.Logf("built in %v", time.Since(start))
	for _, r := range largeReads(b, repo, commits, branches) {
		bb.Run(r.name, func(bb *testing.B) {
			for range bb.N {
				if err := r.fn(bb.Context()); err != nil {
					bb.Fatal(err)
				}
			}
		})
	}
}
