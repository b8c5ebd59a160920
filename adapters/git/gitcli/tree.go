package gitcli

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// readTree reads the tree object id.
func readTree(c *catFile, id string) ([]gitobject.TreeEntry, error) {
	o, err := c.contents(id)
	if err != nil {
		return nil, err
	}
	if o.Type != "tree" {
		return nil, fmt.Errorf("object %s is a %s, not a tree", id, o.Type)
	}
	return gitobject.ParseTree(o.ID, o.Data)
}

// lookupPath finds the entry at p (not "") under the tree root; ok is false
// when a component is missing or not a directory.
func lookupPath(c *catFile, root, p string) (e gitobject.TreeEntry, ok bool, err error) {
	tree := root
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		entries, err := readTree(c, tree)
		if err != nil {
			return gitobject.TreeEntry{}, false, err
		}
		found := false
		for _, ent := range entries {
			if ent.Name == seg {
				e, found = ent, true
				break
			}
		}
		if !found {
			return gitobject.TreeEntry{}, false, nil
		}
		if i < len(segs)-1 {
			if !e.IsDir() {
				return gitobject.TreeEntry{}, false, nil
			}
			tree = e.ID
		}
	}
	return e, true, nil
}

// sortEntries puts directories first, then everything else, each group by
// name in byte order.
func sortEntries(entries []gitobject.TreeEntry) {
	sort.SliceStable(entries, func(i, j int) bool {
		di, dj := entries[i].IsDir(), entries[j].IsDir()
		if di != dj {
			return di
		}
		return entries[i].Name < entries[j].Name
	})
}

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
	list := []domain.TreeEntry{}
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		commit, err := b.resolveCommit(c, gitDir, rev)
		if err != nil {
			return err
		}
		tree := commit.TreeID
		if p != "" {
			e, ok, err := lookupPath(c, tree, p)
			if err != nil {
				return err
			}
			if !ok || !e.IsDir() {
				return fmt.Errorf("path %q: %w", p, core.ErrNotFound)
			}
			tree = e.ID
		}
		var walk func(tree, dir string) error
		walk = func(tree, dir string) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			entries, err := readTree(c, tree)
			if err != nil {
				return err
			}
			sortEntries(entries)
			for _, e := range entries {
				full := e.Name
				if dir != "" {
					full = dir + "/" + e.Name
				}
				list = append(list, domain.TreeEntry{ID: e.ID, Name: e.Name, Path: full, Type: e.Type(), Mode: e.PrintedMode()})
				if recursive && e.IsDir() {
					if err := walk(e.ID, full); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return walk(tree, p)
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
		e, ok, err := lookupPath(c, commit.TreeID, p)
		if err != nil {
			return err
		}
		if !ok || e.Type() != "blob" {
			return fmt.Errorf("path %q: %w", p, core.ErrNotFound)
		}
		o, err := c.contents(e.ID)
		if err != nil {
			return err
		}
		f = domain.File{
			Path: p, Name: path.Base(p), BlobID: e.ID, Mode: e.PrintedMode(),
			Size: o.Size, Content: o.Data, CommitID: commit.ID,
		}
		return nil
	})
	if err != nil {
		return domain.File{}, fmt.Errorf("gitcli: file %q at %q in %s: %w", p, rev, repo, err)
	}
	out, err := b.runIn(ctx, gitDir, "--literal-pathspecs", "rev-list", "--max-count=1", f.CommitID, "--", p)
	if err != nil {
		return domain.File{}, fmt.Errorf("gitcli: last commit of %q in %s: %w", p, repo, err)
	}
	f.LastCommitID = strings.TrimSpace(string(out))
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
