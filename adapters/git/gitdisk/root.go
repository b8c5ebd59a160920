// Package gitdisk is how both git backends (gitcli, gogit) keep bare
// repositories on the local file system, so that either can open what the
// other made: the repository named "a/b.git" lives at root/a/b.git.
//
// Every repository is built in a temporary sibling directory, synced and
// renamed into place, and removed by renaming it away first, so a reader
// (or a crash) never sees half a repository at its final path. Names
// starting with "." under the root are the backends' own (those temporary
// and trash directories, gitcli's HOME and hooks), which is why
// gitnames.CheckRepo refuses repository names that use them.
package gitdisk

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core"
)

// Root is the directory holding every repository of one backend.
type Root struct {
	dir     string // absolute
	backend string // "gitcli" or "gogit": starts the messages of its errors
	log     *zap.Logger
}

// Open opens (creating it if needed) the repository root dir for backend,
// which names the backend in error messages. log must not be nil.
func Open(backend, dir string, log *zap.Logger) (*Root, error) {
	if dir == "" {
		return nil, fmt.Errorf("%s: empty repository root", backend)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: resolve root %q: %w", backend, dir, err)
	}
	// Private by default: repositories of private projects must not be
	// readable by other local users.
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("%s: create root: %w", backend, err)
	}
	return &Root{dir: abs, backend: backend, log: log}, nil
}

// Dir is the root's absolute path.
func (r *Root) Dir() string { return r.dir }

// Path validates repo (gitnames.CheckRepo, shared by both backends so they
// accept exactly the same names) and returns its location under the root.
func (r *Root) Path(repo string) (string, error) {
	if err := gitnames.CheckRepo(repo); err != nil {
		return "", err
	}
	return filepath.Join(r.dir, filepath.FromSlash(repo)), nil
}

// Open validates repo and returns its path; core.ErrNotFound when no
// repository (no regular HEAD file) is there.
func (r *Root) Open(repo string) (string, error) {
	path, err := r.Path(repo)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(filepath.Join(path, "HEAD"))
	if err != nil || !info.Mode().IsRegular() {
		if err == nil || errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			return "", fmt.Errorf("%s: repository %s: %w", r.backend, repo, core.ErrNotFound)
		}
		return "", fmt.Errorf("%s: repository %s: %w", r.backend, repo, err)
	}
	return path, nil
}

// Exists reports whether the repository's directory is there.
func (r *Root) Exists(repo string) (bool, error) {
	final, err := r.Path(repo)
	if err != nil {
		return false, err
	}
	ok, err := Exists(final)
	if err != nil {
		return false, fmt.Errorf("%s: exists %s: %w", r.backend, repo, err)
	}
	return ok, nil
}

// Build makes a repository at final (a Path): fill populates a fresh
// temporary sibling directory, which is synced and renamed into place;
// beforeRename, when not nil, runs just before the rename. A crash leaves
// at most a stray temporary directory, never a half-made repository at
// final. core.ErrConflict when final exists, or appears meanwhile.
func (r *Root) Build(ctx context.Context, final string, fill func(tmp string) error, beforeRename func()) (err error) {
	if ok, err := Exists(final); err != nil {
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
				r.log.Warn("remove temporary repository", zap.String("path", tmp), zap.Error(rmErr))
			}
		}
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	// git fsyncs objects and refs, but not its config, HEAD or directory
	// entries; sync the whole (small or freshly packed) tree once.
	if err := SyncTree(tmp); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename()
	}
	if err := os.Rename(tmp, final); err != nil {
		// A concurrent Create or Fork won the race: the target is now a
		// non-empty directory, which rename refuses to replace (ENOTEMPTY,
		// which fs.ErrExist matches, or EEXIST).
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("already exists: %w", core.ErrConflict)
		}
		return fmt.Errorf("move repository into place: %w", err)
	}
	return Sync(parent)
}

// Delete removes the repository; an absent one is not an error. It is
// first renamed to a trash name, so readers see either all of it or
// nothing.
func (r *Root) Delete(repo string) error {
	final, err := r.Path(repo)
	if err != nil {
		return err
	}
	parent := filepath.Dir(final)
	trash := filepath.Join(parent, ".trash-"+rand.Text()+"-"+filepath.Base(final))
	if err := os.Rename(final, trash); err != nil {
		if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			return nil
		}
		return fmt.Errorf("%s: delete %s: %w", r.backend, repo, err)
	}
	if err := Sync(parent); err != nil {
		return fmt.Errorf("%s: delete %s: %w", r.backend, repo, err)
	}
	// The repository is gone for every reader now; a failure to reclaim
	// the space is the operator's concern, not the caller's.
	if err := os.RemoveAll(trash); err != nil {
		r.log.Warn("remove deleted repository", zap.String("repo", repo), zap.String("path", trash), zap.Error(err))
	}
	return nil
}

// Exists reports whether something is at path. A path through a file
// ("a/b" where "a" is a file) is not there either.
func Exists(path string) (bool, error) {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist) || isNotDir(err):
		return false, nil
	default:
		return false, err
	}
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
