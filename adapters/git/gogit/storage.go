package gogit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// repoConfig is the config of every repository this backend makes: what
// git init --bare writes, plus gitcli's durability settings, so that a
// git process working on the repository fsyncs too.
const repoConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n" +
	"\tfsync = objects,reference\n\tfsyncMethod = fsync\n[receive]\n\tfsckObjects = true\n"

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
		return initBare(tmp, domain.BranchPrefix+defaultBranch)
	})
	if err != nil {
		return fmt.Errorf("gogit: create %s: %w", repo, err)
	}
	return nil
}

// initBare lays out an empty bare repository in dir.
func initBare(dir, head string) error {
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: "+head+"\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config"), []byte(repoConfig), 0o644)
}

// Fork copies every ref and object of src into a new repository dst with
// src's HEAD.
func (b *Backend) Fork(ctx context.Context, src, dst string) error {
	srcPath, err := b.path(src)
	if err != nil {
		return err
	}
	dstPath, err := b.path(dst)
	if err != nil {
		return err
	}
	if _, err := b.open(src); err != nil {
		return fmt.Errorf("gogit: fork source %s: %w", src, err)
	}
	head, err := os.ReadFile(filepath.Join(srcPath, "HEAD"))
	if err != nil {
		return fmt.Errorf("gogit: fork %s: %w", src, err)
	}
	err = b.build(ctx, dstPath, func(tmp string) error {
		if err := initBare(tmp, "refs/heads/master"); err != nil {
			return err
		}
		for _, d := range []string{"objects", "refs"} {
			if err := copyTree(ctx, filepath.Join(srcPath, d), filepath.Join(tmp, d)); err != nil {
				return err
			}
		}
		if err := copyFile(filepath.Join(srcPath, "packed-refs"), filepath.Join(tmp, "packed-refs"), 0o644); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "HEAD"), head, 0o644)
	})
	if err != nil {
		return fmt.Errorf("gogit: fork %s to %s: %w", src, dst, err)
	}
	return nil
}

// copyTree copies the regular files under src to dst, leaving out lock
// and temporary files of writers at work.
func copyTree(ctx context.Context, src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != src {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		name := d.Name()
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular(), strings.HasSuffix(name, ".lock"), strings.HasPrefix(name, "tmp_"):
			return nil
		}
		err = copyFile(p, target, 0o444)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // repacked away meanwhile
		}
		return err
	})
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

// build makes a repository at final from a filled, synced temporary
// sibling directory renamed into place.
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
	if err := syncTree(tmp); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return fmt.Errorf("already exists: %w", core.ErrConflict)
		}
		return fmt.Errorf("move repository into place: %w", err)
	}
	return syncPath(parent)
}

func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() && !d.IsDir() {
			return nil
		}
		return syncPath(path)
	})
}

// Delete removes the repository (renamed to a trash name first); an
// absent one is not an error.
func (b *Backend) Delete(ctx context.Context, repo string) error {
	final, err := b.path(repo)
	if err != nil {
		return err
	}
	parent := filepath.Dir(final)
	trash := filepath.Join(parent, ".trash-"+rand.Text()+"-"+filepath.Base(final))
	if err := os.Rename(final, trash); err != nil {
		if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			return nil
		}
		return fmt.Errorf("gogit: delete %s: %w", repo, err)
	}
	if err := syncPath(parent); err != nil {
		return fmt.Errorf("gogit: delete %s: %w", repo, err)
	}
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
		return false, fmt.Errorf("gogit: exists %s: %w", repo, err)
	}
	return ok, nil
}

func exists(path string) (bool, error) {
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

// Stats returns the repository's size on disk and the number of commits
// reachable from branch ref ("" = HEAD).
func (b *Backend) Stats(ctx context.Context, repo, ref string) (int64, int, error) {
	path, err := b.path(repo)
	if err != nil {
		return 0, 0, err
	}
	if ok, err := exists(path); err != nil {
		return 0, 0, fmt.Errorf("gogit: stats %s: %w", repo, err)
	} else if !ok {
		return 0, 0, fmt.Errorf("gogit: stats %s: %w", repo, core.ErrNotFound)
	}
	rev := "HEAD"
	if ref != "" {
		if err := gitnames.CheckBranch(ref); err != nil {
			return 0, 0, err
		}
		rev = domain.BranchPrefix + ref
	}
	r := openDir(path)
	commits := 0
	if oid, ok, err := readRef(path, rev); err != nil {
		return 0, 0, fmt.Errorf("gogit: stats %s: %w", repo, err)
	} else if ok {
		c, err := r.peelCommit(oid)
		if err == nil {
			if commits, err = r.countReachable(ctx, c.ID); err != nil {
				return 0, 0, fmt.Errorf("gogit: stats %s: %w", repo, err)
			}
		}
	}
	size, err := dirSize(path)
	if err != nil {
		return 0, 0, fmt.Errorf("gogit: stats %s: size: %w", repo, err)
	}
	return size, commits, nil
}

func dirSize(dir string) (int64, error) {
	var size int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path != dir {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		size += info.Size()
		return nil
	})
	return size, err
}
