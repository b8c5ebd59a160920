package gitcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// identEnv sets a git identity (author or committer) with its date.
func identEnv(kind string, s domain.Signature) []string {
	return []string{
		"GIT_" + kind + "_NAME=" + s.Name,
		"GIT_" + kind + "_EMAIL=" + s.Email,
		"GIT_" + kind + "_DATE=@" + gitobject.FormatDate(s.When),
	}
}

// casRef moves ref from oldID to newID (ZeroID: create / delete), or fails
// with core.ErrStale when ref does not hold oldID.
func (b *Backend) casRef(ctx context.Context, gitDir, ref, newID, oldID string) error {
	args := []string{"update-ref", "--no-deref", "--end-of-options", ref, newID, oldID}
	if newID == domain.ZeroID {
		args = []string{"update-ref", "--no-deref", "-d", "--end-of-options", ref, oldID}
	}
	_, err := b.runIn(ctx, gitDir, args...)
	if err == nil {
		return nil
	}
	if cur, rerr := gitobject.CurrentRef(gitDir, ref); rerr == nil && cur != oldID {
		return fmt.Errorf("gitcli: %s is at %s, not %s: %w", ref, cur, oldID, core.ErrStale)
	}
	var ge *gitError
	if errors.As(err, &ge) && (strings.Contains(ge.stderr, "exists; cannot create") ||
		strings.Contains(ge.stderr, "cannot process") || strings.Contains(ge.stderr, "cannot lock ref")) {
		return fmt.Errorf("gitcli: update %s: %w (%v)", ref, core.ErrConflict, err)
	}
	return fmt.Errorf("gitcli: update %s: %w", ref, err)
}

// UpdateRef moves the full ref name from oldID to newID.
func (b *Backend) UpdateRef(ctx context.Context, repo, ref, newID, oldID string) error {
	gitDir, err := b.open(repo)
	if err != nil {
		return err
	}
	if err := check.UpdateRef(ref, newID, oldID); err != nil {
		return err
	}
	if newID != domain.ZeroID {
		var o gitobject.Object
		err := b.withCatFile(ctx, gitDir, func(c *catFile) error {
			o, err = c.info(newID)
			return err
		})
		if err != nil {
			return fmt.Errorf("gitcli: update %s to %s: %w", ref, newID, err)
		}
		if strings.HasPrefix(ref, domain.BranchPrefix) && o.Type != "commit" {
			return fmt.Errorf("gitcli: branch %s cannot point at a %s: %w", ref, o.Type, core.ErrInvalid)
		}
	}
	return b.casRef(ctx, gitDir, ref, newID, oldID)
}

// loadTree lists every file of tree recursively.
func (b *Backend) loadTree(ctx context.Context, gitDir, tree string) (*gitobject.FlatTree, error) {
	t := gitobject.NewFlatTree()
	out, err := b.runIn(ctx, gitDir, "ls-tree", "-r", "-z", "--full-tree", tree)
	if err != nil {
		return nil, err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("ls-tree: bad record %q", rec)
		}
		t.Add(string(p), gitobject.FileEntry{Mode: f[0], ID: f[2]})
	}
	return t, nil
}

// hashBlob writes content as a blob and returns its name.
func (b *Backend) hashBlob(ctx context.Context, gitDir string, content []byte) (string, error) {
	out, err := b.runInOpts(ctx, gitDir, runOpts{stdin: bytes.NewReader(content)},
		"hash-object", "-w", "--no-filters", "--stdin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// writeTree writes t as a tree through a temporary index.
func (b *Backend) writeTree(ctx context.Context, gitDir string, t *gitobject.FlatTree) (string, error) {
	if len(t.Files) == 0 {
		out, err := b.runIn(ctx, gitDir, "mktree", "-z")
		return strings.TrimSpace(string(out)), err
	}
	dir, err := os.MkdirTemp("", "hearth-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(dir, "index")}
	var in bytes.Buffer
	for p, e := range t.Files {
		fmt.Fprintf(&in, "%s %s\t%s\x00", e.Mode, e.ID, p)
	}
	if _, err := b.runInOpts(ctx, gitDir, runOpts{env: env, stdin: &in}, "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	out, err := b.runInOpts(ctx, gitDir, runOpts{env: env}, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// commitTree writes a commit object and returns its name.
func (b *Backend) commitTree(ctx context.Context, gitDir, tree string, parents []string, msg string, author, committer domain.Signature) (string, error) {
	args := []string{"commit-tree"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-F", "-", tree)
	env := append(identEnv("AUTHOR", author), identEnv("COMMITTER", committer)...)
	out, err := b.runInOpts(ctx, gitDir, runOpts{env: env, stdin: strings.NewReader(msg)}, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// CommitFiles writes one commit applying every action to the branch head.
func (b *Backend) CommitFiles(ctx context.Context, repo string, req domain.CommitFiles) (domain.Commit, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.Commit{}, err
	}
	actions, err := check.CommitFiles(req)
	if err != nil {
		return domain.Commit{}, err
	}
	ref, head, parent, err := check.CommitBase(gitDir, req, func() (bool, error) { return b.IsEmpty(ctx, repo) })
	if err != nil {
		return domain.Commit{}, err
	}
	tree := gitobject.NewFlatTree()
	var parents []string
	if parent != "" {
		parents = []string{parent}
		var pc domain.Commit
		err := b.withCatFile(ctx, gitDir, func(c *catFile) error {
			pc, err = gitobject.ReadCommit(c, parent)
			return err
		})
		if err != nil {
			return domain.Commit{}, fmt.Errorf("gitcli: commit to %s: %w", ref, err)
		}
		if tree, err = b.loadTree(ctx, gitDir, pc.TreeID); err != nil {
			return domain.Commit{}, fmt.Errorf("gitcli: commit to %s: %w", ref, err)
		}
	}
	for _, a := range actions {
		err := tree.Apply(a, func(content []byte) (string, error) {
			id, err := b.hashBlob(ctx, gitDir, content)
			if err != nil {
				return "", fmt.Errorf("gitcli: write blob for %s: %w", a.Path, err)
			}
			return id, nil
		})
		if err != nil {
			return domain.Commit{}, err
		}
	}
	treeID, err := b.writeTree(ctx, gitDir, tree)
	if err != nil {
		return domain.Commit{}, fmt.Errorf("gitcli: commit to %s: write tree: %w", ref, err)
	}
	id, err := b.commitTree(ctx, gitDir, treeID, parents, req.Message, req.Author, req.Committer)
	if err != nil {
		return domain.Commit{}, fmt.Errorf("gitcli: commit to %s: %w", ref, err)
	}
	if err := b.casRef(ctx, gitDir, ref, id, head); err != nil {
		return domain.Commit{}, err
	}
	var commit domain.Commit
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		commit, err = gitobject.ReadCommit(c, id)
		return err
	})
	if err != nil {
		return domain.Commit{}, fmt.Errorf("gitcli: read new commit %s: %w", id, err)
	}
	return commit, nil
}

// CreateTag makes refs/tags/name point at target.
func (b *Backend) CreateTag(ctx context.Context, repo, name, target, message string, tagger domain.Signature) (domain.Tag, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.Tag{}, err
	}
	ref, err := check.Tag(gitDir, name, target, message, tagger)
	if err != nil {
		return domain.Tag{}, err
	}
	ids, err := b.resolveCommits(ctx, gitDir, target)
	if err != nil {
		return domain.Tag{}, fmt.Errorf("gitcli: create tag %s: %w", name, err)
	}
	id := ids[0]
	if message != "" {
		if !strings.HasSuffix(message, "\n") {
			message += "\n"
		}
		obj := fmt.Sprintf("object %s\ntype commit\ntag %s\ntagger %s <%s> %s\n\n%s",
			id, name, tagger.Name, tagger.Email, gitobject.FormatDate(tagger.When), message)
		out, err := b.runInOpts(ctx, gitDir, runOpts{stdin: strings.NewReader(obj)}, "mktag")
		if err != nil {
			return domain.Tag{}, fmt.Errorf("gitcli: create tag %s: %w", name, err)
		}
		id = strings.TrimSpace(string(out))
	}
	if err := b.casRef(ctx, gitDir, ref, id, domain.ZeroID); err != nil {
		if errors.Is(err, core.ErrStale) {
			return domain.Tag{}, fmt.Errorf("gitcli: tag %s: %w", name, core.ErrConflict)
		}
		return domain.Tag{}, err
	}
	return b.Tag(ctx, repo, name)
}
