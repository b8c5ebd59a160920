package gogit

import (
	"fmt"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
)

// readCommit reads the commit oid.
func (r *repoh) readCommit(oid string) (domain.Commit, error) {
	o, err := r.ReadObject(oid)
	if err != nil {
		return domain.Commit{}, err
	}
	if o.Type != "commit" {
		return domain.Commit{}, fmt.Errorf("object %s is a %s, not a commit", oid, o.Type)
	}
	return gitobject.ParseCommit(o.ID, o.Data)
}
