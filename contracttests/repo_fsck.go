package contracttests

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/ports"
)

// RunFsckSuite checks a git backend's ports.RepoChecker: a sound
// repository (empty or not) has no problems, a missing or damaged object
// reachable from a ref is reported by name, a missing repository is
// core.ErrNotFound, and an ended context stops the check.
func RunFsckSuite(t *testing.T, newRepo func(t *testing.T) Repo) {
	t.Parallel()
	r := newRepo(t)
	checker, ok := r.Backend.(ports.RepoChecker)
	if !ok {
		t.Fatalf("%T does not implement ports.RepoChecker", r.Backend)
	}
	ctx := t.Context()
	g := newRepoGit(t)

	if _, err := checker.Fsck(ctx, "missing.git"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Fsck of a missing repository: %v, want core.ErrNotFound", err)
	}
	if err := r.Backend.Create(ctx, "empty.git", "main"); err != nil {
		t.Fatal(err)
	}
	if problems, err := checker.Fsck(ctx, "empty.git"); err != nil || len(problems) != 0 {
		t.Errorf("Fsck of an empty repository: %q, %v; want no problems", problems, err)
	}

	if err := r.Backend.Create(ctx, "full.git", "main"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.Root, "full.git")
	g.seedHistory(path)
	if problems, err := checker.Fsck(ctx, "full.git"); err != nil || len(problems) != 0 {
		t.Fatalf("Fsck of a sound repository: %q, %v; want no problems", problems, err)
	}
	done, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	if _, err := checker.Fsck(done, "full.git"); err == nil {
		t.Errorf("Fsck with an ended context succeeded")
	}

	// Lose the blob only the tip of feature has, and garble main's.
	lost := g.bare(path, "rev-parse", "feature:feature.txt")
	garbled := g.bare(path, "rev-parse", "main:README")
	loose := func(id string) string { return filepath.Join(path, "objects", id[:2], id[2:]) }
	if err := os.Remove(loose(lost)); err != nil {
		t.Fatalf("the seeded objects are expected loose: %v", err)
	}
	if err := os.Chmod(loose(garbled), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(loose(garbled), []byte("not a git object"), 0o644); err != nil {
		t.Fatal(err)
	}
	problems, err := checker.Fsck(ctx, "full.git")
	if err != nil {
		t.Fatalf("Fsck of a damaged repository: %v", err)
	}
	all := strings.Join(problems, "\n")
	for _, id := range []string{lost, garbled} {
		if !strings.Contains(all, id) {
			t.Errorf("Fsck problems do not name object %s:\n%s", id, all)
		}
	}
}
