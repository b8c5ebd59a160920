package gogit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
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
	final, err := b.disk.Path(repo)
	if err != nil {
		return err
	}
	if defaultBranch, err = check.InitialBranch(defaultBranch); err != nil {
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
	srcPath, err := b.disk.Path(src)
	if err != nil {
		return err
	}
	dstPath, err := b.disk.Path(dst)
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

// build makes a repository at final with gitdisk's build.
func (b *Backend) build(ctx context.Context, final string, fill func(tmp string) error) error {
	return b.disk.Build(ctx, final, fill, nil)
}

// Delete removes the repository (renamed to a trash name first); an
// absent one is not an error.
func (b *Backend) Delete(ctx context.Context, repo string) error {
	return b.disk.Delete(repo)
}

// Exists reports whether the repository is there.
func (b *Backend) Exists(ctx context.Context, repo string) (bool, error) {
	return b.disk.Exists(repo)
}

// Stats returns the repository's size on disk and the number of commits
// reachable from branch ref ("" = HEAD).
func (b *Backend) Stats(ctx context.Context, repo, ref string) (int64, int, error) {
	path, err := b.disk.Path(repo)
	if err != nil {
		return 0, 0, err
	}
	if ok, err := gitdisk.Exists(path); err != nil {
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
	if oid, ok, err := gitobject.ReadRef(path, rev); err != nil {
		return 0, 0, fmt.Errorf("gogit: stats %s: %w", repo, err)
	} else if ok {
		c, err := r.peelCommit(oid)
		if err == nil {
			if commits, err = r.countReachable(ctx, c.ID); err != nil {
				return 0, 0, fmt.Errorf("gogit: stats %s: %w", repo, err)
			}
		}
	}
	size, err := gitdisk.Size(path)
	if err != nil {
		return 0, 0, fmt.Errorf("gogit: stats %s: size: %w", repo, err)
	}
	return size, commits, nil
}
