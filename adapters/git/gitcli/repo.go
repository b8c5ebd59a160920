package gitcli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core"
)

// durableConfig is written into every repository this backend makes:
// objects and refs reach the disk before git reports success, and pushed
// objects are checked before they are accepted. gc keeps git's defaults.
var durableConfig = [][2]string{
	{"core.fsync", "objects,reference"},
	{"core.fsyncMethod", "fsync"},
	{"receive.fsckObjects", "true"},
}

// Create makes an empty bare repository whose HEAD names defaultBranch
// ("master" when empty).
func (b *Backend) Create(ctx context.Context, repo, defaultBranch string) error {
	final, err := b.path(repo)
	if err != nil {
		return err
	}
	if defaultBranch == "" {
		defaultBranch = "master"
	}
	if err := gitnames.CheckBranch(defaultBranch); err != nil {
		return err
	}
	err = b.build(ctx, final, func(tmp string) error {
		// An empty template: nothing from the system's template directory
		// (hooks in particular) ends up in the repository.
		_, err := b.run(ctx, b.home, "init", "--quiet", "--bare", "--template=",
			"--initial-branch="+defaultBranch, "--", tmp)
		return err
	})
	if err != nil {
		return fmt.Errorf("gitcli: create %s: %w", repo, err)
	}
	return nil
}

// Fork copies every ref (not only branches and tags) and every reachable
// object of src into a new, independent repository dst with src's HEAD.
func (b *Backend) Fork(ctx context.Context, src, dst string) error {
	srcPath, err := b.path(src)
	if err != nil {
		return err
	}
	dstPath, err := b.path(dst)
	if err != nil {
		return err
	}
	if ok, err := exists(srcPath); err != nil {
		return fmt.Errorf("gitcli: fork %s: %w", src, err)
	} else if !ok {
		return fmt.Errorf("gitcli: fork source %s: %w", src, core.ErrNotFound)
	}
	head, err := b.symbolicHead(ctx, srcPath)
	if err != nil {
		return fmt.Errorf("gitcli: fork %s: %w", src, err)
	}
	err = b.build(ctx, dstPath, func(tmp string) error {
		// --mirror copies refs/* (merge request, pipeline and note refs
		// too); --no-local copies objects through the transport instead of
		// hard-linking or sharing them, so src can be deleted or repacked.
		if _, err := b.run(ctx, b.home, "clone", "--quiet", "--mirror", "--no-local",
			"--template=", "--", srcPath, tmp); err != nil {
			return err
		}
		// Forget where the fork came from. Not "git remote remove", which
		// would also delete the mirrored refs/remotes/origin/* of src.
		if _, err := b.runIn(ctx, tmp, "config", "--remove-section", "remote.origin"); err != nil {
			return err
		}
		if head == "" {
			return nil // src's HEAD is detached: keep what clone set
		}
		_, err := b.runIn(ctx, tmp, "symbolic-ref", "HEAD", head)
		return err
	})
	if err != nil {
		return fmt.Errorf("gitcli: fork %s to %s: %w", src, dst, err)
	}
	return nil
}

// symbolicHead returns the ref HEAD names ("refs/heads/main"), even when that
// branch has no commits yet, or "" when HEAD is detached.
func (b *Backend) symbolicHead(ctx context.Context, gitDir string) (string, error) {
	out, err := b.runIn(ctx, gitDir, "symbolic-ref", "--quiet", "HEAD")
	if exitCode(err) == 1 {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// build makes a repository at final: fill populates a fresh temporary
// sibling directory, which gets the durable configuration, is synced, and is
// renamed into place. A crash leaves at most a stray temporary directory,
// never a half-made repository at final.
func (b *Backend) build(ctx context.Context, final string, fill func(tmp string) error) (err error) {
	if ok, err := exists(final); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("already exists: %w", core.ErrConflict)
	}
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o750); err != nil {
		return fmt.Errorf("create parent directory: %w", err)
	}
	// MkdirTemp's 0700 is kept on purpose: it becomes the repository's own
	// directory, and private repositories are nobody else's business.
	tmp, err := os.MkdirTemp(parent, ".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary directory: %w", err)
	}
	defer func() {
		if err != nil {
			if rmErr := os.RemoveAll(tmp); rmErr != nil {
				b.log.Warn("remove temporary repository", zap.String("path", tmp), zap.Error(rmErr))
			}
		}
	}()

	if err := fill(tmp); err != nil {
		return err
	}
	for _, kv := range durableConfig {
		if _, err := b.runIn(ctx, tmp, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	// git fsyncs objects and refs, but not its config, HEAD or directory
	// entries; sync the whole (small or freshly packed) tree once.
	if err := syncTree(tmp); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b.cat.evict(final)
	if err := os.Rename(tmp, final); err != nil {
		// A concurrent Create or Fork won the race: the target is now a
		// non-empty directory, which rename refuses to replace.
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("already exists: %w", core.ErrConflict)
		}
		return fmt.Errorf("move repository into place: %w", err)
	}
	return syncDir(parent)
}

// Delete removes the repository; an absent one is not an error. It is first
// renamed to a trash name, so readers see either all of it or nothing.
func (b *Backend) Delete(ctx context.Context, repo string) error {
	final, err := b.path(repo)
	if err != nil {
		return err
	}
	parent := filepath.Dir(final)
	trash := filepath.Join(parent, ".trash-"+rand.Text()+"-"+filepath.Base(final))
	defer b.cat.evict(final)
	if err := os.Rename(final, trash); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("gitcli: delete %s: %w", repo, err)
	}
	if err := syncDir(parent); err != nil {
		return fmt.Errorf("gitcli: delete %s: %w", repo, err)
	}
	// The repository is gone for every reader now; a failure to reclaim
	// the space is the operator's concern, not the caller's.
	if err := os.RemoveAll(trash); err != nil {
		b.log.Warn("remove deleted repository", zap.String("repo", repo), zap.String("path", trash), zap.Error(err))
	}
	return nil
}

// Exists reports whether the repository is there.
func (b *Backend) Exists(ctx context.Context, repo string) (bool, error) {
	final, err := b.path(repo)
	if err != nil {
		return false, err
	}
	ok, err := exists(final)
	if err != nil {
		return false, fmt.Errorf("gitcli: exists %s: %w", repo, err)
	}
	return ok, nil
}

func exists(path string) (bool, error) {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}
