package gitcli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
	"github.com/hearth-forge/hearth/core"
)

// durableConfig is appended to the config of every repository this
// backend makes: objects and refs reach the disk before git reports
// success, and pushed objects are checked before they are accepted. gc
// keeps git's defaults. It is written by Go rather than by one "git
// config" process per key: creating a project then runs one git process
// instead of four. A repeated [core] section is valid git config.
const durableConfig = `[core]
	fsync = objects,reference
	fsyncMethod = fsync
[receive]
	fsckObjects = true
`

// appendDurableConfig adds durableConfig to the new repository at gitDir
// (which gitdisk syncs before moving it into place).
func appendDurableConfig(gitDir string) error {
	f, err := os.OpenFile(filepath.Join(gitDir, "config"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("open config: %w", err)
	}
	if _, err := f.WriteString(durableConfig); err != nil {
		f.Close()
		return fmt.Errorf("write config: %w", err)
	}
	return f.Close()
}

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
	srcPath, err := b.disk.Path(src)
	if err != nil {
		return err
	}
	dstPath, err := b.disk.Path(dst)
	if err != nil {
		return err
	}
	if ok, err := gitdisk.Exists(srcPath); err != nil {
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

// build makes a repository at final with gitdisk's build: fill, then the
// durable configuration. Just before the rename, idle cat-file processes
// still open on a repository deleted from final are stopped.
func (b *Backend) build(ctx context.Context, final string, fill func(tmp string) error) error {
	return b.disk.Build(ctx, final, func(tmp string) error {
		if err := fill(tmp); err != nil {
			return err
		}
		return appendDurableConfig(tmp)
	}, func() { b.cat.evict(final) })
}

// Delete removes the repository; an absent one is not an error (see
// gitdisk.Root.Delete).
func (b *Backend) Delete(ctx context.Context, repo string) error {
	final, err := b.disk.Path(repo)
	if err != nil {
		return err
	}
	defer b.cat.evict(final)
	return b.disk.Delete(repo)
}

// Exists reports whether the repository is there.
func (b *Backend) Exists(ctx context.Context, repo string) (bool, error) {
	return b.disk.Exists(repo)
}
