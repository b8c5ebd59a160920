package gitcli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core"
)

// Stats returns the repository's size on disk and the number of commits
// reachable from branch ref ("" means HEAD). A branch that does not exist
// (or an empty repository) counts 0 commits; a name that cannot be a branch
// is core.ErrInvalid; a missing repository is core.ErrNotFound.
func (b *Backend) Stats(ctx context.Context, repo, ref string) (int64, int, error) {
	path, err := b.disk.Path(repo)
	if err != nil {
		return 0, 0, err
	}
	if ok, err := gitdisk.Exists(path); err != nil {
		return 0, 0, fmt.Errorf("gitcli: stats %s: %w", repo, err)
	} else if !ok {
		return 0, 0, fmt.Errorf("gitcli: stats %s: %w", repo, core.ErrNotFound)
	}
	rev := "HEAD"
	if ref != "" {
		// Only a validated branch name, fully qualified, reaches git: no
		// "main~1", "a..b" or "--all" can change what is counted.
		if err := gitnames.CheckBranch(ref); err != nil {
			return 0, 0, err
		}
		rev = "refs/heads/" + ref
	}
	commits, err := b.countCommits(ctx, path, rev)
	if err != nil {
		return 0, 0, fmt.Errorf("gitcli: stats %s: %w", repo, err)
	}
	size, err := gitdisk.Size(path)
	if err != nil {
		return 0, 0, fmt.Errorf("gitcli: stats %s: size: %w", repo, err)
	}
	return size, commits, nil
}

// countCommits counts the commits reachable from rev; 0 when rev does not
// name a commit.
func (b *Backend) countCommits(ctx context.Context, gitDir, rev string) (int, error) {
	out, err := b.runIn(ctx, gitDir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if exitCode(err) == 1 {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	oid := strings.TrimSpace(string(out))
	out, err = b.runIn(ctx, gitDir, "rev-list", "--count", "--end-of-options", oid, "--")
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("parse rev-list count %q: %w", out, err)
	}
	return n, nil
}
