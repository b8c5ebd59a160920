package gitcli

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Tree lists the tree at path of rev.
func (b *Backend) Tree(ctx context.Context, repo, rev, p string, recursive bool) ([]domain.TreeEntry, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	if err := gitnames.CheckRev(rev); err != nil {
		return nil, err
	}
	p, err = gitnames.CleanPath(p)
	if err != nil {
		return nil, err
	}
	var list []domain.TreeEntry
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		commit, err := b.resolveCommit(c, gitDir, rev)
		if err != nil {
			return err
		}
		list, err = gitobject.ListTree(ctx, c, commit.TreeID, p, recursive)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gitcli: tree %q at %q in %s: %w", p, rev, repo, err)
	}
	return list, nil
}

// File reads the blob at path of rev.
func (b *Backend) File(ctx context.Context, repo, rev, p string) (domain.File, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.File{}, err
	}
	if err := gitnames.CheckRev(rev); err != nil {
		return domain.File{}, err
	}
	p, err = gitnames.CleanPath(p)
	if err != nil {
		return domain.File{}, err
	}
	if p == "" {
		return domain.File{}, fmt.Errorf("gitcli: file path is empty: %w", core.ErrNotFound)
	}
	var f domain.File
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		commit, err := b.resolveCommit(c, gitDir, rev)
		if err != nil {
			return err
		}
		f, err = gitobject.ReadFile(c, commit, p)
		return err
	})
	if err != nil {
		return domain.File{}, fmt.Errorf("gitcli: file %q at %q in %s: %w", p, rev, repo, err)
	}
	k := pathKey{gitDir, f.CommitID, p}
	if last, ok := b.lastCommits.get(k); ok {
		f.LastCommitID = last
		return f, nil
	}
	out, err := b.runIn(ctx, gitDir, "--literal-pathspecs", "rev-list", "--max-count=1", f.CommitID, "--", p)
	if err != nil {
		return domain.File{}, fmt.Errorf("gitcli: last commit of %q in %s: %w", p, repo, err)
	}
	f.LastCommitID = strings.TrimSpace(string(out))
	b.lastCommits.put(k, f.LastCommitID)
	return f, nil
}

// Blob reads a blob by its full or abbreviated object name.
func (b *Backend) Blob(ctx context.Context, repo, sha string) (domain.Blob, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.Blob{}, err
	}
	if !gitnames.IsHex(sha) {
		return domain.Blob{}, fmt.Errorf("gitcli: invalid blob name %q: %w", sha, core.ErrInvalid)
	}
	var blob domain.Blob
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		o, err := c.contents(sha)
		if err != nil {
			return err
		}
		if o.Type != "blob" || !strings.HasPrefix(o.ID, strings.ToLower(sha)) {
			return fmt.Errorf("object %s is a %s: %w", sha, o.Type, core.ErrNotFound)
		}
		blob = domain.Blob{ID: o.ID, Size: o.Size, Content: o.Data}
		return nil
	})
	if err != nil {
		return domain.Blob{}, fmt.Errorf("gitcli: blob %s in %s: %w", sha, repo, err)
	}
	return blob, nil
}

// resolveCommits resolves revs to commit SHAs with one cat-file session.
func (b *Backend) resolveCommits(ctx context.Context, gitDir string, revs ...string) ([]string, error) {
	for _, rev := range revs {
		if err := gitnames.CheckRev(rev); err != nil {
			return nil, err
		}
	}
	ids := make([]string, len(revs))
	err := b.withCatFile(ctx, gitDir, func(c *catFile) error {
		for i, rev := range revs {
			commit, err := b.resolveCommit(c, gitDir, rev)
			if err != nil {
				return err
			}
			ids[i] = commit.ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}
