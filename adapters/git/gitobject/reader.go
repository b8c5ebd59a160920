package gitobject

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Object is a raw object as a backend reads it.
type Object struct {
	ID   string
	Type string // "commit", "tree", "blob", "tag"
	Size int64
	Data []byte // nil when only the header was read
}

// ErrMissing marks an object the repository does not have; backends wrap
// it together with core.ErrNotFound.
var ErrMissing = errors.New("object missing")

// Reader reads objects of one repository: gitcli through a cat-file
// process, gogit from the object database. The readers below walk tags and
// trees through it, so both backends walk them alike.
type Reader interface {
	// ReadObject reads the object named id whole; an error matching
	// ErrMissing when the repository does not have it.
	ReadObject(id string) (Object, error)
}

// Peel follows tags from oid to the first object that is not a tag.
func Peel(r Reader, oid string) (Object, error) {
	for range 10 {
		o, err := r.ReadObject(oid)
		if err != nil {
			return Object{}, err
		}
		if o.Type != "tag" {
			return o, nil
		}
		t, err := ParseTag(o.ID, o.Data)
		if err != nil {
			return Object{}, err
		}
		oid = t.Object
	}
	return Object{}, fmt.Errorf("tag chain from %s is too long", oid)
}

// ReadCommit reads the commit oid names; an object of another type is
// an error.
func ReadCommit(r Reader, oid string) (domain.Commit, error) {
	o, err := r.ReadObject(oid)
	if err != nil {
		return domain.Commit{}, err
	}
	if o.Type != "commit" {
		return domain.Commit{}, fmt.Errorf("object %s is a %s, not a commit", oid, o.Type)
	}
	return ParseCommit(o.ID, o.Data)
}

// MakeTag is the tag name whose ref points at o: annotated when o is a
// tag object, with the commit it peels to (none when that is missing or
// not a commit).
func MakeTag(r Reader, name string, o Object) (domain.Tag, error) {
	tag := domain.Tag{Name: name, TargetID: o.ID, Commit: domain.Commit{ParentIDs: []string{}}}
	if o.Type == "tag" {
		t, err := ParseTag(o.ID, o.Data)
		if err != nil {
			return domain.Tag{}, err
		}
		msg := t.Message
		tag.Message = &msg
		tag.Tagger = t.Tagger
		if o, err = Peel(r, t.Object); err != nil {
			if errors.Is(err, ErrMissing) {
				return tag, nil
			}
			return domain.Tag{}, err
		}
	}
	if o.Type == "commit" {
		commit, err := ParseCommit(o.ID, o.Data)
		if err != nil {
			return domain.Tag{}, err
		}
		tag.Commit = commit
	}
	return tag, nil
}

// MakeBranch is the branch name whose ref points at o, normally a commit;
// anything else gives a commit with only its ID.
func MakeBranch(name string, o Object) (domain.Branch, error) {
	br := domain.Branch{Name: name}
	if o.Type != "commit" {
		br.Commit = domain.Commit{ID: o.ID, ParentIDs: []string{}}
		return br, nil
	}
	var err error
	br.Commit, err = ParseCommit(o.ID, o.Data)
	return br, err
}

// ReadTree reads the entries of the tree object id.
func ReadTree(r Reader, id string) ([]TreeEntry, error) {
	if id == EmptyTree {
		return nil, nil // the repository need not store it
	}
	o, err := r.ReadObject(id)
	if err != nil {
		return nil, err
	}
	if o.Type != "tree" {
		return nil, fmt.Errorf("object %s is a %s, not a tree", id, o.Type)
	}
	return ParseTree(o.ID, o.Data)
}

// LookupPath finds the entry at p (clean, not "") under the tree root; ok
// is false when a component is missing or not a directory.
func LookupPath(r Reader, root, p string) (e TreeEntry, ok bool, err error) {
	tree := root
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		entries, err := ReadTree(r, tree)
		if err != nil {
			return TreeEntry{}, false, err
		}
		found := false
		for _, ent := range entries {
			if ent.Name == seg {
				e, found = ent, true
				break
			}
		}
		if !found {
			return TreeEntry{}, false, nil
		}
		if i < len(segs)-1 {
			if !e.IsDir() {
				return TreeEntry{}, false, nil
			}
			tree = e.ID
		}
	}
	return e, true, nil
}

// ListTree lists the directory at p (clean, "" for the root) of the tree
// root as GitLab does: directories first, then everything else, each
// group by name; with recursive, each directory followed by its contents.
// core.ErrNotFound when p is not a directory.
func ListTree(ctx context.Context, r Reader, root, p string, recursive bool) ([]domain.TreeEntry, error) {
	tree := root
	if p != "" {
		e, ok, err := LookupPath(r, tree, p)
		if err != nil {
			return nil, err
		}
		if !ok || !e.IsDir() {
			return nil, fmt.Errorf("path %q: %w", p, core.ErrNotFound)
		}
		tree = e.ID
	}
	list := []domain.TreeEntry{}
	var walk func(tree, dir string) error
	walk = func(tree, dir string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := ReadTree(r, tree)
		if err != nil {
			return err
		}
		sort.SliceStable(entries, func(i, j int) bool {
			di, dj := entries[i].IsDir(), entries[j].IsDir()
			if di != dj {
				return di
			}
			return entries[i].Name < entries[j].Name
		})
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
	if err := walk(tree, p); err != nil {
		return nil, err
	}
	return list, nil
}

// ReadFile reads the blob at p (clean, not "") of commit; core.ErrNotFound
// when p is missing or not a file. LastCommitID is the backend's to fill.
func ReadFile(r Reader, commit domain.Commit, p string) (domain.File, error) {
	e, ok, err := LookupPath(r, commit.TreeID, p)
	if err != nil {
		return domain.File{}, err
	}
	if !ok || e.Type() != "blob" {
		return domain.File{}, fmt.Errorf("path %q: %w", p, core.ErrNotFound)
	}
	o, err := r.ReadObject(e.ID)
	if err != nil {
		return domain.File{}, err
	}
	return domain.File{
		Path: p, Name: path.Base(p), BlobID: e.ID, Mode: e.PrintedMode(),
		Size: o.Size, Content: o.Data, CommitID: commit.ID,
	}, nil
}
