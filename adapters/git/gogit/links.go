package gogit

import (
	"bytes"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// raw reads object h of type want (plumbing.AnyObject: any) whole.
func (r *repoh) raw(h plumbing.Hash, want plumbing.ObjectType) (plumbing.ObjectType, []byte, error) {
	o, err := r.object(want, h)
	if err != nil {
		return 0, nil, fmt.Errorf("object %s: %w", h, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return 0, nil, fmt.Errorf("object %s: %w", h, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return 0, nil, fmt.Errorf("object %s: %w", h, err)
	}
	return o.Type(), data, nil
}

// commitLinks reads the tree and parents of a raw commit.
func commitLinks(h plumbing.Hash, data []byte) (tree plumbing.Hash, parents []plumbing.Hash, err error) {
	seenTree := false
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			break
		}
		switch {
		case bytes.HasPrefix(line, []byte("tree ")) && len(line) == 45:
			tree, seenTree = plumbing.NewHash(string(line[5:])), true
		case bytes.HasPrefix(line, []byte("parent ")) && len(line) == 47:
			parents = append(parents, plumbing.NewHash(string(line[7:])))
		}
	}
	if !seenTree {
		return tree, nil, fmt.Errorf("commit %s has no tree", h)
	}
	return tree, parents, nil
}

// tagTarget reads the object a raw tag points at.
func tagTarget(h plumbing.Hash, data []byte) (plumbing.Hash, error) {
	if bytes.HasPrefix(data, []byte("object ")) && len(data) >= 47 {
		return plumbing.NewHash(string(data[7:47])), nil
	}
	return plumbing.ZeroHash, fmt.Errorf("tag %s has no object", h)
}

// treeEntry is one entry of a raw tree.
type treeEntry struct {
	dir, gitlink bool
	id           plumbing.Hash
}

// treeLinks reads the entries of a raw tree.
func treeLinks(h plumbing.Hash, data []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("tree %s is malformed", h)
		}
		mode := string(data[:sp])
		var e treeEntry
		copy(e.id[:], data[nul+1:nul+21])
		e.dir = mode == "40000" || mode == "040000"
		e.gitlink = mode == "160000"
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}

// object reads object h of type t (plumbing.AnyObject: any), from the
// quarantined push first when there is one.
func (r *repoh) object(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if r.q != nil {
		if o, err := r.q.Get(h); err == nil {
			if t != plumbing.AnyObject && o.Type() != t {
				return nil, plumbing.ErrObjectNotFound
			}
			return o, nil
		}
	}
	return r.st.EncodedObject(t, h)
}
