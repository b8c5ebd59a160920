package gogit

import (
	"fmt"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
)

// readCommit reads the commit oid.
func (r *repoh) readCommit(oid string) (domain.Commit, error) {
	o, err := r.read(oid)
	if err != nil {
		return domain.Commit{}, err
	}
	if o.Type != "commit" {
		return domain.Commit{}, fmt.Errorf("object %s is a %s, not a commit", oid, o.Type)
	}
	return gitobject.ParseCommit(o.ID, o.Data)
}

// readTree reads the tree object id.
func (r *repoh) readTree(id string) ([]gitobject.TreeEntry, error) {
	if id == gitobject.EmptyTree {
		return nil, nil
	}
	o, err := r.read(id)
	if err != nil {
		return nil, err
	}
	if o.Type != "tree" {
		return nil, fmt.Errorf("object %s is a %s, not a tree", id, o.Type)
	}
	return gitobject.ParseTree(o.ID, o.Data)
}
