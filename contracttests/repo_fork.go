package contracttests

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/core"
)

// repoSameContent fails unless dst has exactly src's refs, reachable
// objects and HEAD, and passes git fsck --strict.
func repoSameContent(t *testing.T, r Repo, g repoGit, src, dst string) {
	t.Helper()
	srcPath, dstPath := repoPath(r, src), repoPath(r, dst)
	if got, want := g.refs(dstPath), g.refs(srcPath); got != want {
		t.Errorf("refs of %s:\n%s\nwant (as %s):\n%s", dst, got, src, want)
	}
	if got, want := g.objects(dstPath), g.objects(srcPath); got != want {
		t.Errorf("reachable objects of %s differ from %s", dst, src)
	}
	if got, want := repoHead(t, r, dst), repoHead(t, r, src); got != want {
		t.Errorf("HEAD of %s = %q, want %q", dst, got, want)
	}
	g.fsck(dstPath)
}

func repoForkCopies(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoSeeded(t, r, g, "projects/1.git")
	if err := r.Backend.Fork(t.Context(), "projects/1.git", "projects/2.git"); err != nil {
		t.Fatalf("Fork: %v", err)
	}
	if !repoExists(t, r, "projects/2.git") {
		t.Fatal("Exists of the fork = false")
	}
	repoSameContent(t, r, g, "projects/1.git", "projects/2.git")
	refs := g.refs(repoPath(r, "projects/2.git"))
	for _, ref := range []string{"refs/heads/main", "refs/heads/feature", "refs/tags/v1.0", "refs/tags/light", "refs/merge-requests/1/head"} {
		if !strings.Contains(refs, " "+ref+"\n") && !strings.HasSuffix(refs, " "+ref) {
			t.Errorf("fork lacks %s:\n%s", ref, refs)
		}
	}
	// The source is untouched.
	if got := g.bare(repoPath(r, "projects/1.git"), "rev-list", "--count", "feature"); got != "4" {
		t.Errorf("source feature commits after Fork = %s, want 4", got)
	}
}

func repoForkIndependent(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoSeeded(t, r, g, "projects/1.git")
	if err := r.Backend.Fork(t.Context(), "projects/1.git", "forks/2.git"); err != nil {
		t.Fatalf("Fork: %v", err)
	}
	dst := repoPath(r, "forks/2.git")
	if _, err := os.Lstat(filepath.Join(dst, "objects", "info", "alternates")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fork has an alternates file (%v): it must own its objects", err)
	}
	if out, err := g.try(dst, "--git-dir="+dst, "config", "--get-regexp", `^remote\.`); err == nil || out != "" {
		t.Errorf("fork has remote configuration: %q", out)
	}
	cfg, err := os.ReadFile(filepath.Join(dst, "config"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), "projects/1.git") {
		t.Errorf("fork config names the source:\n%s", cfg)
	}
	want := g.refs(dst)
	// Rewrite the source's history: the fork must not notice.
	g.bare(repoPath(r, "projects/1.git"), "update-ref", "refs/heads/main", "main~2")
	if err := r.Backend.Delete(t.Context(), "projects/1.git"); err != nil {
		t.Fatalf("Delete source: %v", err)
	}
	if got := g.refs(dst); got != want {
		t.Errorf("fork refs changed with its source:\n%s\nwant\n%s", got, want)
	}
	g.fsck(dst)
	if got := g.bare(dst, "rev-list", "--count", "main"); got != "3" {
		t.Errorf("fork main commits = %s, want 3", got)
	}
}

func repoForkEmpty(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoCreate(t, r, "projects/1.git", "trunk")
	if err := r.Backend.Fork(t.Context(), "projects/1.git", "projects/2.git"); err != nil {
		t.Fatalf("Fork of an empty repository: %v", err)
	}
	if got, want := repoHead(t, r, "projects/2.git"), "ref: refs/heads/trunk\n"; got != want {
		t.Errorf("fork HEAD = %q, want %q", got, want)
	}
	if got := g.refs(repoPath(r, "projects/2.git")); got != "" {
		t.Errorf("fork of an empty repository has refs: %q", got)
	}
	g.fsck(repoPath(r, "projects/2.git"))
}

func repoForkMissing(t *testing.T, r Repo) {
	err := r.Backend.Fork(t.Context(), "projects/404.git", "projects/2.git")
	repoWantErr(t, "Fork of a missing source", err, core.ErrNotFound)
	if repoExists(t, r, "projects/2.git") {
		t.Error("failed Fork left a destination")
	}
}

func repoForkExistingDst(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoSeeded(t, r, g, "projects/1.git")
	repoCreate(t, r, "projects/2.git", "other")
	err := r.Backend.Fork(t.Context(), "projects/1.git", "projects/2.git")
	repoWantErr(t, "Fork onto an existing repository", err, core.ErrConflict)
	if got := g.refs(repoPath(r, "projects/2.git")); got != "" {
		t.Errorf("refused Fork changed the destination's refs: %q", got)
	}
	if got := repoHead(t, r, "projects/2.git"); got != "ref: refs/heads/other\n" {
		t.Errorf("refused Fork changed the destination's HEAD: %q", got)
	}
	err = r.Backend.Fork(t.Context(), "projects/1.git", "projects/1.git")
	repoWantErr(t, "Fork onto itself", err, core.ErrConflict)
	g.fsck(repoPath(r, "projects/1.git"))
}

func repoConcurrentForks(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoSeeded(t, r, g, "projects/1.git")
	const n = 10
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = r.Backend.Fork(t.Context(), "projects/1.git", fmt.Sprintf("forks/%d.git", i))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Fork %d: %v", i, err)
		}
	}
	if t.Failed() {
		return
	}
	for i := range n {
		repoSameContent(t, r, g, "projects/1.git", fmt.Sprintf("forks/%d.git", i))
	}
}
