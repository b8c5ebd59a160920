package gitcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// open validates repo and returns its path; core.ErrNotFound when it is
// not there.
func (b *Backend) open(repo string) (string, error) { return b.disk.Open(repo) }

// resolveObject returns the object rev names (unpeeled): branch, then tag,
// then a full ref name or HEAD, then an object name.
func (b *Backend) resolveObject(c *catFile, gitDir, rev string) (string, error) {
	if err := gitnames.CheckRev(rev); err != nil {
		return "", err
	}
	if oid, ok, err := b.packed.ResolveRef(gitDir, rev); err != nil || ok {
		return oid, err
	}
	if gitnames.IsHex(rev) {
		o, err := c.info(rev)
		if err == nil && strings.HasPrefix(o.ID, strings.ToLower(rev)) {
			return o.ID, nil
		}
		if err != nil && !errors.Is(err, errMissing) {
			return "", err
		}
	}
	return "", fmt.Errorf("gitcli: revision %q: %w", rev, core.ErrNotFound)
}

// resolveCommit returns the commit rev names (tags peeled);
// core.ErrNotFound when it names no commit.
func (b *Backend) resolveCommit(c *catFile, gitDir, rev string) (domain.Commit, error) {
	oid, err := b.resolveObject(c, gitDir, rev)
	if err != nil {
		return domain.Commit{}, err
	}
	o, err := gitobject.Peel(c, oid)
	if err != nil {
		return domain.Commit{}, err
	}
	if o.Type != "commit" {
		return domain.Commit{}, fmt.Errorf("gitcli: revision %q is a %s: %w", rev, o.Type, core.ErrNotFound)
	}
	return gitobject.ParseCommit(o.ID, o.Data)
}

// DefaultBranch is the branch HEAD names.
func (b *Backend) DefaultBranch(ctx context.Context, repo string) (string, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return "", err
	}
	ref, err := gitobject.HeadRef(gitDir)
	if err != nil {
		return "", fmt.Errorf("gitcli: default branch of %s: %w", repo, err)
	}
	return strings.TrimPrefix(ref, domain.BranchPrefix), nil
}

// SetDefaultBranch points HEAD at an existing branch.
func (b *Backend) SetDefaultBranch(ctx context.Context, repo, branch string) error {
	gitDir, err := b.open(repo)
	if err != nil {
		return err
	}
	ref, err := check.DefaultBranch(gitDir, repo, branch)
	if err != nil {
		return err
	}
	if _, err := b.runIn(ctx, gitDir, "symbolic-ref", "HEAD", ref); err != nil {
		return fmt.Errorf("gitcli: set default branch of %s: %w", repo, err)
	}
	if err := gitdisk.Sync(filepath.Join(gitDir, "HEAD")); err != nil {
		return fmt.Errorf("gitcli: set default branch of %s: %w", repo, err)
	}
	return nil
}

// IsEmpty reports whether the repository has no refs at all.
func (b *Backend) IsEmpty(ctx context.Context, repo string) (bool, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return false, err
	}
	out, err := b.runIn(ctx, gitDir, "for-each-ref", "--count=1", "--format=%(refname)")
	if err != nil {
		return false, fmt.Errorf("gitcli: is empty %s: %w", repo, err)
	}
	return len(bytes.TrimSpace(out)) == 0, nil
}

// Resolve returns the commit SHA rev names.
func (b *Backend) Resolve(ctx context.Context, repo, rev string) (string, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return "", err
	}
	if err := gitnames.CheckRev(rev); err != nil {
		return "", err
	}
	var id string
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		commit, err := b.resolveCommit(c, gitDir, rev)
		id = commit.ID
		return err
	})
	if err != nil {
		return "", fmt.Errorf("gitcli: resolve %q in %s: %w", rev, repo, err)
	}
	return id, nil
}

// Commit reads the commit rev resolves to.
func (b *Backend) Commit(ctx context.Context, repo, rev string) (domain.Commit, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.Commit{}, err
	}
	if err := gitnames.CheckRev(rev); err != nil {
		return domain.Commit{}, err
	}
	var commit domain.Commit
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		commit, err = b.resolveCommit(c, gitDir, rev)
		return err
	})
	if err != nil {
		return domain.Commit{}, fmt.Errorf("gitcli: commit %q in %s: %w", rev, repo, err)
	}
	return commit, nil
}

// refRecord is one ref listed by forEachRef with its object's raw content.
type refRecord struct {
	name string
	obj  gitobject.Object
}

// forEachRef lists the refs under prefix with their objects, in one git
// process (no process or round trip per ref).
func (b *Backend) forEachRef(ctx context.Context, gitDir, prefix string) ([]refRecord, error) {
	out, err := b.runIn(ctx, gitDir, "for-each-ref",
		"--format=%(refname)%00%(objectname) %(objecttype) %(objectsize)%0a%(raw)", "--", prefix)
	if err != nil {
		return nil, err
	}
	var recs []refRecord
	for len(out) > 0 {
		nul := bytes.IndexByte(out, 0)
		if nul < 0 {
			return nil, errors.New("for-each-ref: truncated record")
		}
		name := string(out[:nul])
		out = out[nul+1:]
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			return nil, errors.New("for-each-ref: truncated record")
		}
		f := strings.Fields(string(out[:nl]))
		out = out[nl+1:]
		if len(f) != 3 {
			return nil, fmt.Errorf("for-each-ref: bad record of %s", name)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || len(out) < size+1 {
			return nil, fmt.Errorf("for-each-ref: bad record of %s", name)
		}
		recs = append(recs, refRecord{name: name, obj: gitobject.Object{ID: f[0], Type: f[1], Size: int64(size), Data: out[:size]}})
		out = out[size+1:]
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].name < recs[j].name })
	return recs, nil
}

// Branches lists every branch sorted by name, with its commit.
func (b *Backend) Branches(ctx context.Context, repo string) ([]domain.Branch, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	// The refs are read from their files and the commits through the
	// long-lived cat-file process: no git process per request.
	heads, err := b.branchHeads(gitDir)
	if err != nil {
		return nil, fmt.Errorf("gitcli: branches of %s: %w", repo, err)
	}
	names := make([]string, 0, len(heads))
	for name := range heads {
		names = append(names, name)
	}
	sort.Strings(names)
	branches := make([]domain.Branch, 0, len(names))
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		for _, name := range names {
			if commit, ok := b.commits.get(commitKey{gitDir, heads[name]}); ok {
				branches = append(branches, domain.Branch{Name: name, Commit: commit})
				continue
			}
			o, err := c.contents(heads[name])
			if err != nil {
				return fmt.Errorf("branch %s: %w", name, err)
			}
			br, err := gitobject.MakeBranch(name, o)
			if err != nil {
				return err
			}
			if o.Type == "commit" {
				b.commits.put(commitKey{gitDir, o.ID}, br.Commit)
			}
			branches = append(branches, br)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitcli: branches of %s: %w", repo, err)
	}
	return branches, nil
}

// Branch reads one branch by its short name.
func (b *Backend) Branch(ctx context.Context, repo, name string) (domain.Branch, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.Branch{}, err
	}
	if err := gitnames.CheckBranch(name); err != nil {
		return domain.Branch{}, err
	}
	oid, err := gitobject.ExistingRef(gitDir, domain.BranchPrefix+name)
	if err != nil {
		return domain.Branch{}, fmt.Errorf("gitcli: branch %q of %s: %w", name, repo, err)
	}
	br := domain.Branch{Name: name}
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		br.Commit, err = gitobject.ReadCommit(c, oid)
		return err
	})
	if err != nil {
		return domain.Branch{}, fmt.Errorf("gitcli: branch %q of %s: %w", name, repo, err)
	}
	return br, nil
}

// Tags lists every tag sorted by name, peeled to commits.
func (b *Backend) Tags(ctx context.Context, repo string) ([]domain.Tag, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	recs, err := b.forEachRef(ctx, gitDir, domain.TagPrefix)
	if err != nil {
		return nil, fmt.Errorf("gitcli: tags of %s: %w", repo, err)
	}
	tags := make([]domain.Tag, 0, len(recs))
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		for _, r := range recs {
			t, err := gitobject.MakeTag(c, strings.TrimPrefix(r.name, domain.TagPrefix), r.obj)
			if err != nil {
				return err
			}
			tags = append(tags, t)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitcli: tags of %s: %w", repo, err)
	}
	return tags, nil
}

// Tag reads one tag by its short name.
func (b *Backend) Tag(ctx context.Context, repo, name string) (domain.Tag, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.Tag{}, err
	}
	if err := gitnames.CheckTag(name); err != nil {
		return domain.Tag{}, err
	}
	oid, err := gitobject.ExistingRef(gitDir, domain.TagPrefix+name)
	if err != nil {
		return domain.Tag{}, fmt.Errorf("gitcli: tag %q of %s: %w", name, repo, err)
	}
	var tag domain.Tag
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		o, err := c.contents(oid)
		if err != nil {
			return err
		}
		tag, err = gitobject.MakeTag(c, name, o)
		return err
	})
	if err != nil {
		return domain.Tag{}, fmt.Errorf("gitcli: tag %q of %s: %w", name, repo, err)
	}
	return tag, nil
}
