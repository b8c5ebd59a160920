package gogit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// UpdateRef moves the full ref name from oldID to newID.
func (b *Backend) UpdateRef(ctx context.Context, repo, ref, newID, oldID string) error {
	r, err := b.open(repo)
	if err != nil {
		return err
	}
	if err := check.UpdateRef(ref, newID, oldID); err != nil {
		return err
	}
	if newID != domain.ZeroID {
		o, err := r.ReadObject(newID)
		if err != nil {
			return fmt.Errorf("gogit: update %s to %s: %w", ref, newID, err)
		}
		if strings.HasPrefix(ref, domain.BranchPrefix) && o.Type != "commit" {
			return fmt.Errorf("gogit: branch %s cannot point at a %s: %w", ref, o.Type, core.ErrInvalid)
		}
	}
	return casRef(r.dir, ref, newID, oldID)
}

// loadTree lists every non-tree entry of tree recursively.
func (r *repoh) loadTree(tree string) (*gitobject.FlatTree, error) {
	t := gitobject.NewFlatTree()
	var walk func(id, dir string) error
	walk = func(id, dir string) error {
		entries, err := gitobject.ReadTree(r, id)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := e.Name
			if dir != "" {
				p = dir + "/" + e.Name
			}
			if e.IsDir() {
				if err := walk(e.ID, p); err != nil {
					return err
				}
				continue
			}
			t.Add(p, gitobject.FileEntry{Mode: e.PrintedMode(), ID: e.ID})
		}
		return nil
	}
	return t, walk(tree, "")
}

// writeTree writes t as nested tree objects, as git write-tree does.
func (r *repoh) writeTree(t *gitobject.FlatTree) (string, error) {
	type dirNode struct {
		files   []gitobject.TreeEntry
		subdirs map[string]*dirNode
	}
	root := &dirNode{subdirs: map[string]*dirNode{}}
	paths := make([]string, 0, len(t.Files))
	for p := range t.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		segs := strings.Split(p, "/")
		n := root
		for _, s := range segs[:len(segs)-1] {
			c, ok := n.subdirs[s]
			if !ok {
				c = &dirNode{subdirs: map[string]*dirNode{}}
				n.subdirs[s] = c
			}
			n = c
		}
		e := t.Files[p]
		n.files = append(n.files, gitobject.TreeEntry{Mode: e.Mode, Name: segs[len(segs)-1], ID: e.ID})
	}
	var write func(n *dirNode) (string, error)
	write = func(n *dirNode) (string, error) {
		entries := append([]gitobject.TreeEntry(nil), n.files...)
		for name, c := range n.subdirs {
			id, err := write(c)
			if err != nil {
				return "", err
			}
			entries = append(entries, gitobject.TreeEntry{Mode: "40000", Name: name, ID: id})
		}
		data, err := gitobject.EncodeTree(entries)
		if err != nil {
			return "", err
		}
		return r.write("tree", data)
	}
	return write(root)
}

// commitTree writes a commit object.
// Like git commit-tree, a parent given twice is kept once (a merge of a
// commit with itself has one parent), so both backends write the same object.
func (r *repoh) commitTree(tree string, parents []string, msg string, author, committer domain.Signature) (string, error) {
	unique := make([]string, 0, len(parents))
	for _, p := range parents {
		if !slices.Contains(unique, p) {
			unique = append(unique, p)
		}
	}
	return r.write("commit", gitobject.EncodeCommit(tree, unique, author, committer, msg))
}

// CommitFiles writes one commit applying every action to the branch head.
func (b *Backend) CommitFiles(ctx context.Context, repo string, req domain.CommitFiles) (domain.Commit, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.Commit{}, err
	}
	actions, err := check.CommitFiles(req)
	if err != nil {
		return domain.Commit{}, err
	}
	ref, head, parent, err := check.CommitBase(r.dir, req, func() (bool, error) {
		refs, err := listRefs(r.dir, "refs/")
		if err != nil {
			return false, fmt.Errorf("gogit: commit to %s: %w", domain.BranchPrefix+req.Branch, err)
		}
		return len(refs) == 0, nil
	})
	if err != nil {
		return domain.Commit{}, err
	}
	tree := gitobject.NewFlatTree()
	var parents []string
	if parent != "" {
		parents = []string{parent}
		pc, err := gitobject.ReadCommit(r, parent)
		if err != nil {
			return domain.Commit{}, fmt.Errorf("gogit: commit to %s: %w", ref, err)
		}
		if tree, err = r.loadTree(pc.TreeID); err != nil {
			return domain.Commit{}, fmt.Errorf("gogit: commit to %s: %w", ref, err)
		}
	}
	for _, a := range actions {
		err := tree.Apply(a, func(content []byte) (string, error) {
			id, err := r.write("blob", content)
			if err != nil {
				return "", fmt.Errorf("gogit: write blob for %s: %w", a.Path, err)
			}
			return id, nil
		})
		if err != nil {
			return domain.Commit{}, err
		}
	}
	treeID, err := r.writeTree(tree)
	if err != nil {
		return domain.Commit{}, fmt.Errorf("gogit: commit to %s: write tree: %w", ref, err)
	}
	id, err := r.commitTree(treeID, parents, req.Message, req.Author, req.Committer)
	if err != nil {
		return domain.Commit{}, fmt.Errorf("gogit: commit to %s: %w", ref, err)
	}
	if err := casRef(r.dir, ref, id, head); err != nil {
		return domain.Commit{}, err
	}
	c, err := gitobject.ReadCommit(r, id)
	if err != nil {
		return domain.Commit{}, fmt.Errorf("gogit: read new commit %s: %w", id, err)
	}
	return c, nil
}

// CreateTag makes refs/tags/name point at target.
func (b *Backend) CreateTag(ctx context.Context, repo, name, target, message string, tagger domain.Signature) (domain.Tag, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.Tag{}, err
	}
	ref, err := check.Tag(r.dir, name, target, message, tagger)
	if err != nil {
		return domain.Tag{}, err
	}
	ids, err := r.resolveCommits(target)
	if err != nil {
		return domain.Tag{}, fmt.Errorf("gogit: create tag %s: %w", name, err)
	}
	id := ids[0]
	if message != "" {
		if !strings.HasSuffix(message, "\n") {
			message += "\n"
		}
		obj := fmt.Sprintf("object %s\ntype commit\ntag %s\ntagger %s <%s> %s\n\n%s",
			id, name, tagger.Name, tagger.Email, gitobject.FormatDate(tagger.When), message)
		if id, err = r.write("tag", []byte(obj)); err != nil {
			return domain.Tag{}, fmt.Errorf("gogit: create tag %s: %w", name, err)
		}
	}
	if err := casRef(r.dir, ref, id, domain.ZeroID); err != nil {
		if errors.Is(err, core.ErrStale) {
			return domain.Tag{}, fmt.Errorf("gogit: tag %s: %w", name, core.ErrConflict)
		}
		return domain.Tag{}, err
	}
	return b.Tag(ctx, repo, name)
}
