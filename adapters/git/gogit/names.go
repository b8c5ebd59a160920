package gogit

import (
	"path/filepath"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
)

// path validates repo (gitnames.CheckRepo, shared by both backends so they
// accept exactly the same names) and returns its location under the root.
func (b *Backend) path(repo string) (string, error) {
	if err := gitnames.CheckRepo(repo); err != nil {
		return "", err
	}
	return filepath.Join(b.root, filepath.FromSlash(repo)), nil
}
