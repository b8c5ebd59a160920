package gitdisk

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/core"
)

func TestRootLifecycle(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root, err := Open("somegit", filepath.Join(t.TempDir(), "repos"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	final, err := root.Path("a/b.git")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.Path("a/../b.git"); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("Path accepted a dot segment: %v", err)
	}
	if _, err := root.Open("a/b.git"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Open of a missing repository: %v", err)
	}
	fill := func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	}
	renamed := false
	if err := root.Build(ctx, final, fill, func() { renamed = true }); err != nil || !renamed {
		t.Fatalf("Build: %v (before rename ran: %v)", err, renamed)
	}
	if dir, err := root.Open("a/b.git"); err != nil || dir != final {
		t.Errorf("Open = %q, %v", dir, err)
	}
	if err := root.Build(ctx, final, fill, nil); !errors.Is(err, core.ErrConflict) {
		t.Errorf("Build over a repository: %v", err)
	}
	if err := root.Delete("a/b.git"); err != nil {
		t.Fatal(err)
	}
	if ok, err := root.Exists("a/b.git"); ok || err != nil {
		t.Errorf("Exists after Delete = %v, %v", ok, err)
	}
	if err := root.Delete("a/b.git"); err != nil {
		t.Errorf("Delete of an absent repository: %v", err)
	}
	left, _ := os.ReadDir(filepath.Dir(final))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// A path through a file cannot hold a repository: absent, not an error.
func TestPathThroughAFile(t *testing.T) {
	t.Parallel()
	root, err := Open("somegit", t.TempDir(), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root.Dir(), "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := root.Exists("file/x.git"); ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
	if err := root.Delete("file/x.git"); err != nil {
		t.Errorf("Delete = %v", err)
	}
	if _, err := root.Open("file/x.git"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Open = %v", err)
	}
}
