package gogit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// resolveObject returns the object rev names (unpeeled): branch, then
// tag, then a full ref name or HEAD, then an object name.
func (r *repoh) resolveObject(rev string) (string, error) {
	if err := gitnames.CheckRev(rev); err != nil {
		return "", err
	}
	if oid, ok, err := gitobject.ResolveRef(r.dir, rev); err != nil || ok {
		return oid, err
	}
	if gitnames.IsHex(rev) {
		id, ok, err := r.expand(rev)
		if err != nil {
			return "", err
		}
		if ok {
			return id, nil
		}
	}
	return "", fmt.Errorf("gogit: revision %q: %w", rev, core.ErrNotFound)
}

// peelCommit peels oid to a commit; core.ErrNotFound when it is none.
func (r *repoh) peelCommit(oid string) (domain.Commit, error) {
	o, err := gitobject.Peel(r, oid)
	if err != nil {
		return domain.Commit{}, err
	}
	if o.Type != "commit" {
		return domain.Commit{}, fmt.Errorf("gogit: %s is a %s: %w", oid, o.Type, core.ErrNotFound)
	}
	return gitobject.ParseCommit(o.ID, o.Data)
}

// resolveCommit returns the commit rev names (tags peeled).
func (r *repoh) resolveCommit(rev string) (domain.Commit, error) {
	oid, err := r.resolveObject(rev)
	if err != nil {
		return domain.Commit{}, err
	}
	return r.peelCommit(oid)
}

// resolveCommits resolves every rev to a commit SHA.
func (r *repoh) resolveCommits(revs ...string) ([]string, error) {
	for _, rev := range revs {
		if err := gitnames.CheckRev(rev); err != nil {
			return nil, err
		}
	}
	ids := make([]string, len(revs))
	for i, rev := range revs {
		c, err := r.resolveCommit(rev)
		if err != nil {
			return nil, err
		}
		ids[i] = c.ID
	}
	return ids, nil
}

// DefaultBranch is the branch HEAD names.
func (b *Backend) DefaultBranch(ctx context.Context, repo string) (string, error) {
	r, err := b.open(repo)
	if err != nil {
		return "", err
	}
	ref, err := gitobject.HeadRef(r.dir)
	if err != nil {
		return "", fmt.Errorf("gogit: default branch of %s: %w", repo, err)
	}
	return strings.TrimPrefix(ref, domain.BranchPrefix), nil
}

// SetDefaultBranch points HEAD at an existing branch.
func (b *Backend) SetDefaultBranch(ctx context.Context, repo, branch string) error {
	r, err := b.open(repo)
	if err != nil {
		return err
	}
	ref, err := check.DefaultBranch(r.dir, repo, branch)
	if err != nil {
		return err
	}
	headPath := filepath.Join(r.dir, "HEAD")
	lock, err := lockFile(headPath)
	if err != nil {
		return fmt.Errorf("gogit: set default branch of %s: lock HEAD: %w", repo, err)
	}
	lockName := lock.Name()
	_, err = lock.WriteString("ref: " + ref + "\n")
	if err == nil {
		err = lock.Sync()
	}
	if cerr := lock.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lockName, headPath)
	}
	if err != nil {
		_ = os.Remove(lockName)
		return fmt.Errorf("gogit: set default branch of %s: %w", repo, err)
	}
	return gitdisk.Sync(r.dir)
}

// IsEmpty reports whether the repository has no refs at all.
func (b *Backend) IsEmpty(ctx context.Context, repo string) (bool, error) {
	r, err := b.open(repo)
	if err != nil {
		return false, err
	}
	refs, err := listRefs(r.dir, "refs/")
	if err != nil {
		return false, fmt.Errorf("gogit: is empty %s: %w", repo, err)
	}
	return len(refs) == 0, nil
}

// Resolve returns the commit SHA rev names.
func (b *Backend) Resolve(ctx context.Context, repo, rev string) (string, error) {
	c, err := b.Commit(ctx, repo, rev)
	return c.ID, err
}

// Commit reads the commit rev resolves to.
func (b *Backend) Commit(ctx context.Context, repo, rev string) (domain.Commit, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.Commit{}, err
	}
	if err := gitnames.CheckRev(rev); err != nil {
		return domain.Commit{}, err
	}
	c, err := r.resolveCommit(rev)
	if err != nil {
		return domain.Commit{}, fmt.Errorf("gogit: commit %q in %s: %w", rev, repo, err)
	}
	return c, nil
}

// Branches lists every branch sorted by name, with its commit.
func (b *Backend) Branches(ctx context.Context, repo string) ([]domain.Branch, error) {
	r, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	refs, err := listRefs(r.dir, domain.BranchPrefix)
	if err != nil {
		return nil, fmt.Errorf("gogit: branches of %s: %w", repo, err)
	}
	branches := make([]domain.Branch, 0, len(refs))
	for _, ref := range refs {
		o, err := r.ReadObject(ref.oid)
		if err != nil {
			return nil, fmt.Errorf("gogit: branches of %s: %w", repo, err)
		}
		br, err := gitobject.MakeBranch(strings.TrimPrefix(ref.name, domain.BranchPrefix), o)
		if err != nil {
			return nil, fmt.Errorf("gogit: branches of %s: %w", repo, err)
		}
		branches = append(branches, br)
	}
	return branches, nil
}

// Branch reads one branch by its short name.
func (b *Backend) Branch(ctx context.Context, repo, name string) (domain.Branch, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.Branch{}, err
	}
	if err := gitnames.CheckBranch(name); err != nil {
		return domain.Branch{}, err
	}
	oid, err := gitobject.ExistingRef(r.dir, domain.BranchPrefix+name)
	if err != nil {
		return domain.Branch{}, fmt.Errorf("gogit: branch %q of %s: %w", name, repo, err)
	}
	c, err := gitobject.ReadCommit(r, oid)
	if err != nil {
		return domain.Branch{}, fmt.Errorf("gogit: branch %q of %s: %w", name, repo, err)
	}
	return domain.Branch{Name: name, Commit: c}, nil
}

// Tags lists every tag sorted by name, peeled to commits.
func (b *Backend) Tags(ctx context.Context, repo string) ([]domain.Tag, error) {
	r, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	refs, err := listRefs(r.dir, domain.TagPrefix)
	if err != nil {
		return nil, fmt.Errorf("gogit: tags of %s: %w", repo, err)
	}
	tags := make([]domain.Tag, 0, len(refs))
	for _, ref := range refs {
		o, err := r.ReadObject(ref.oid)
		if err != nil {
			return nil, fmt.Errorf("gogit: tags of %s: %w", repo, err)
		}
		t, err := gitobject.MakeTag(r, strings.TrimPrefix(ref.name, domain.TagPrefix), o)
		if err != nil {
			return nil, fmt.Errorf("gogit: tags of %s: %w", repo, err)
		}
		tags = append(tags, t)
	}
	return tags, nil
}

// Tag reads one tag by its short name.
func (b *Backend) Tag(ctx context.Context, repo, name string) (domain.Tag, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.Tag{}, err
	}
	if err := gitnames.CheckTag(name); err != nil {
		return domain.Tag{}, err
	}
	oid, err := gitobject.ExistingRef(r.dir, domain.TagPrefix+name)
	if err != nil {
		return domain.Tag{}, fmt.Errorf("gogit: tag %q of %s: %w", name, repo, err)
	}
	o, err := r.ReadObject(oid)
	if err != nil {
		return domain.Tag{}, fmt.Errorf("gogit: tag %q of %s: %w", name, repo, err)
	}
	t, err := gitobject.MakeTag(r, name, o)
	if err != nil {
		return domain.Tag{}, fmt.Errorf("gogit: tag %q of %s: %w", name, repo, err)
	}
	return t, nil
}

// Tree lists the tree at path of rev: directories first, then the rest,
// each group by name.
func (b *Backend) Tree(ctx context.Context, repo, rev, p string, recursive bool) ([]domain.TreeEntry, error) {
	r, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	if err := gitnames.CheckRev(rev); err != nil {
		return nil, err
	}
	if p, err = gitnames.CleanPath(p); err != nil {
		return nil, err
	}
	commit, err := r.resolveCommit(rev)
	var list []domain.TreeEntry
	if err == nil {
		list, err = gitobject.ListTree(ctx, r, commit.TreeID, p, recursive)
	}
	if err != nil {
		return nil, fmt.Errorf("gogit: tree %q at %q in %s: %w", p, rev, repo, err)
	}
	return list, nil
}

// File reads the blob at path of rev, with the newest commit touching it.
func (b *Backend) File(ctx context.Context, repo, rev, p string) (domain.File, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.File{}, err
	}
	if err := gitnames.CheckRev(rev); err != nil {
		return domain.File{}, err
	}
	if p, err = gitnames.CleanPath(p); err != nil {
		return domain.File{}, err
	}
	if p == "" {
		return domain.File{}, fmt.Errorf("gogit: file path is empty: %w", core.ErrNotFound)
	}
	fail := func(err error) (domain.File, error) {
		return domain.File{}, fmt.Errorf("gogit: file %q at %q in %s: %w", p, rev, repo, err)
	}
	commit, err := r.resolveCommit(rev)
	if err != nil {
		return fail(err)
	}
	f, err := gitobject.ReadFile(r, commit, p)
	if err != nil {
		return fail(err)
	}
	w := &walker{r: r, ctx: ctx, path: p}
	ids, err := w.run([]string{commit.ID}, nil, 0, 1)
	if err != nil {
		return fail(err)
	}
	if len(ids) > 0 {
		f.LastCommitID = ids[0]
	}
	return f, nil
}

// Blob reads a blob by its full or abbreviated object name.
func (b *Backend) Blob(ctx context.Context, repo, sha string) (domain.Blob, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.Blob{}, err
	}
	if !gitnames.IsHex(sha) {
		return domain.Blob{}, fmt.Errorf("gogit: invalid blob name %q: %w", sha, core.ErrInvalid)
	}
	id, ok, err := r.expand(sha)
	if err != nil {
		return domain.Blob{}, fmt.Errorf("gogit: blob %s in %s: %w", sha, repo, err)
	}
	if !ok {
		return domain.Blob{}, fmt.Errorf("gogit: blob %s in %s: %w", sha, repo, core.ErrNotFound)
	}
	o, err := r.ReadObject(id)
	if err != nil {
		return domain.Blob{}, fmt.Errorf("gogit: blob %s in %s: %w", sha, repo, err)
	}
	if o.Type != "blob" {
		return domain.Blob{}, fmt.Errorf("gogit: object %s is a %s: %w", sha, o.Type, core.ErrNotFound)
	}
	return domain.Blob{ID: o.ID, Size: int64(len(o.Data)), Content: o.Data}, nil
}
