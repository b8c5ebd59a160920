package gitcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hearth-forge/hearth/core/ports"
)

var _ ports.RepoBundler = (*Backend)(nil)

// Bundle writes `git bundle create - --all`: every ref (HEAD included) and
// the objects they reach. git refuses to bundle a repository without refs,
// which is reported as empty instead.
func (b *Backend) Bundle(ctx context.Context, repo string, w io.Writer) (bool, error) {
	dir, err := b.open(repo)
	if err != nil {
		return false, fmt.Errorf("gitcli: bundle %s: %w", repo, err)
	}
	out, err := b.runIn(ctx, dir, "for-each-ref", "--count=1", "--format=%(refname)")
	if err != nil {
		return false, fmt.Errorf("gitcli: bundle %s: %w", repo, err)
	}
	if strings.TrimSpace(string(out)) == "" {
		return true, nil
	}
	if _, err := b.runInOpts(ctx, dir, runOpts{stdout: w}, "bundle", "create", "--quiet", "-", "--all"); err != nil {
		return false, fmt.Errorf("gitcli: bundle %s: %w", repo, err)
	}
	return false, nil
}

// Unbundle builds repo as Create does, then fetches every ref of the
// bundle (refs/*, not its HEAD) into it. git reads a bundle from a file
// only, so r is spooled to one in the backend's home first.
func (b *Backend) Unbundle(ctx context.Context, repo, defaultBranch string, r io.Reader) error {
	final, err := b.disk.Path(repo)
	if err != nil {
		return err
	}
	if defaultBranch, err = check.InitialBranch(defaultBranch); err != nil {
		return err
	}
	var file string
	if r != nil {
		f, err := os.CreateTemp(b.home, "unbundle-*.bundle")
		if err != nil {
			return fmt.Errorf("gitcli: unbundle %s: %w", repo, err)
		}
		file = f.Name()
		defer os.Remove(file)
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("gitcli: unbundle %s: spool: %w", repo, err)
		}
	}
	err = b.build(ctx, final, func(tmp string) error {
		if _, err := b.run(ctx, b.home, "init", "--quiet", "--bare", "--template=",
			"--initial-branch="+defaultBranch, "--", tmp); err != nil {
			return err
		}
		if file == "" {
			return nil
		}
		_, err := b.runIn(ctx, tmp, "fetch", "--quiet", "--no-write-fetch-head", file, "+refs/*:refs/*")
		return err
	})
	if err != nil {
		return fmt.Errorf("gitcli: unbundle %s: %w", repo, err)
	}
	return nil
}
