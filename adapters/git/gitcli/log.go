package gitcli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
)

// revListArgs turns q into rev-list arguments (without the command) after
// resolving every revision, so only object names and validated paths reach
// git.
func (b *Backend) revListArgs(ctx context.Context, gitDir string, q domain.LogQuery, paged bool) ([]string, error) {
	p, err := check.Log(q)
	if err != nil {
		return nil, err
	}
	ids, err := b.resolveCommits(ctx, gitDir, append([]string{q.Ref}, q.Exclude...)...)
	if err != nil {
		return nil, err
	}
	var args []string
	if paged {
		if q.Skip > 0 {
			args = append(args, "--skip="+strconv.Itoa(q.Skip))
		}
		if q.Limit > 0 {
			args = append(args, "--max-count="+strconv.Itoa(q.Limit))
		}
	}
	if q.Since != nil {
		args = append(args, "--max-age="+strconv.FormatInt(q.Since.Unix(), 10))
	}
	if q.Until != nil {
		args = append(args, "--min-age="+strconv.FormatInt(q.Until.Unix(), 10))
	}
	args = append(args, ids[0])
	for _, id := range ids[1:] {
		args = append(args, "^"+id)
	}
	args = append(args, "--")
	if p != "" {
		args = append(args, p)
	}
	return args, nil
}

// Log lists commits reachable from q.Ref, newest first.
func (b *Backend) Log(ctx context.Context, repo string, q domain.LogQuery) ([]domain.Commit, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	if walkable(q) {
		if _, err := check.Log(q); err != nil {
			return nil, fmt.Errorf("gitcli: log of %s: %w", repo, err)
		}
		var commits []domain.Commit
		err := b.withCatFile(ctx, gitDir, func(c *catFile) error {
			head, err := b.resolveCommit(c, gitDir, q.Ref)
			if err != nil {
				return err
			}
			commits, err = b.walkLog(c, head.ID, q.Skip, q.Limit)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("gitcli: log of %s: %w", repo, err)
		}
		return commits, nil
	}
	args, err := b.revListArgs(ctx, gitDir, q, true)
	if err != nil {
		return nil, fmt.Errorf("gitcli: log of %s: %w", repo, err)
	}
	out, err := b.runIn(ctx, gitDir, append([]string{"--literal-pathspecs", "rev-list"}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("gitcli: log of %s: %w", repo, err)
	}
	ids := strings.Fields(string(out))
	commits := make([]domain.Commit, 0, len(ids))
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		for _, id := range ids {
			commit, err := gitobject.ReadCommit(c, id)
			if err != nil {
				return err
			}
			commits = append(commits, commit)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitcli: log of %s: %w", repo, err)
	}
	return commits, nil
}

// CountCommits counts what Log would list without Skip and Limit.
func (b *Backend) CountCommits(ctx context.Context, repo string, q domain.LogQuery) (int, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return 0, err
	}
	args, err := b.revListArgs(ctx, gitDir, q, false)
	if err != nil {
		return 0, fmt.Errorf("gitcli: count commits of %s: %w", repo, err)
	}
	out, err := b.runIn(ctx, gitDir, append([]string{"--literal-pathspecs", "rev-list", "--count"}, args...)...)
	if err != nil {
		return 0, fmt.Errorf("gitcli: count commits of %s: %w", repo, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("gitcli: count commits of %s: parse %q: %w", repo, out, err)
	}
	return n, nil
}

// MergeBase is the best common ancestor of a and c ("" when unrelated).
func (b *Backend) MergeBase(ctx context.Context, repo, a, c string) (string, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return "", err
	}
	ids, err := b.resolveCommits(ctx, gitDir, a, c)
	if err != nil {
		return "", fmt.Errorf("gitcli: merge base in %s: %w", repo, err)
	}
	key := mergedKey{gitDir, ids[0], ids[1]}
	if base, ok := b.mergeBases.get(key); ok {
		return base, nil
	}
	out, err := b.runIn(ctx, gitDir, "merge-base", ids[0], ids[1])
	if exitCode(err) == 1 {
		b.mergeBases.put(key, "")
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gitcli: merge base in %s: %w", repo, err)
	}
	base := strings.TrimSpace(string(out))
	b.mergeBases.put(key, base)
	return base, nil
}

// IsAncestor reports whether ancestor is reachable from descendant.
func (b *Backend) IsAncestor(ctx context.Context, repo, ancestor, descendant string) (bool, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return false, err
	}
	ids, err := b.resolveCommits(ctx, gitDir, ancestor, descendant)
	if err != nil {
		return false, fmt.Errorf("gitcli: is ancestor in %s: %w", repo, err)
	}
	// The same question the branch lists ask: is ancestor's commit
	// reachable from descendant's.
	key := mergedKey{gitDir: gitDir, target: ids[1], head: ids[0]}
	if in, ok := b.merged.get(key); ok {
		return in, nil
	}
	_, err = b.runIn(ctx, gitDir, "merge-base", "--is-ancestor", ids[0], ids[1])
	switch {
	case err == nil:
		b.merged.put(key, true)
		return true, nil
	case exitCode(err) == 1:
		b.merged.put(key, false)
		return false, nil
	default:
		return false, fmt.Errorf("gitcli: is ancestor in %s: %w", repo, err)
	}
}

// MergedBranches lists the branches whose heads are reachable from rev.
func (b *Backend) MergedBranches(ctx context.Context, repo, rev string) ([]string, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	ids, err := b.resolveCommits(ctx, gitDir, rev)
	if err != nil {
		return nil, fmt.Errorf("gitcli: merged branches in %s: %w", repo, err)
	}
	names, err := b.mergedBranches(ctx, gitDir, ids[0])
	if err != nil {
		return nil, fmt.Errorf("gitcli: merged branches in %s: %w", repo, err)
	}
	return names, nil
}
