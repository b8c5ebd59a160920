// Package gitcli is the default ports.RepoBackend: bare repositories on the
// local file system, driven by the git command-line tool.
//
// Every repository is built in a temporary sibling directory and renamed
// into place, and removed by renaming it away first, so a reader (or a crash)
// never sees half a repository at its final path. Names starting with "."
// are reserved for those temporary directories and for the backend's own
// HOME, which is why repository names may not use them.
package gitcli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/ports"
)

var _ ports.RepoBackend = (*Backend)(nil)

// Backend stores bare repositories under a root directory.
type Backend struct {
	root string   // absolute
	home string   // empty directory used as HOME for every git process
	git  string   // absolute path of the git executable
	env  []string // the complete environment of every git process
	log  *zap.Logger
	cat  *catFilePool
	// hooks holds the pre-receive hook of ReceivePack (and only its).
	hooks string
}

// New opens (creating it if needed) the repository root. Repositories live
// at filepath.Join(root, repo). A nil log discards logging.
func New(root string, log *zap.Logger) (*Backend, error) {
	if root == "" {
		return nil, errors.New("gitcli: empty repository root")
	}
	if log == nil {
		log = zap.NewNop()
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("gitcli: resolve root %q: %w", root, err)
	}
	// Private by default: repositories of private projects must not be
	// readable by other local users.
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("gitcli: create root: %w", err)
	}
	home := filepath.Join(abs, homeDir)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("gitcli: create git home: %w", err)
	}
	hooks, err := installHooks(abs)
	if err != nil {
		return nil, fmt.Errorf("gitcli: install hooks: %w", err)
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("gitcli: find git executable: %w", err)
	}
	b := &Backend{
		root:  abs,
		home:  home,
		git:   gitPath,
		env:   gitEnv(abs, home),
		log:   log,
		hooks: hooks,
	}
	b.cat = newCatFilePool(b, catFileIdle)
	return b, nil
}

// Close stops the backend's long-lived git processes (the cat-file pool).
// Calls made after Close fail; Close may be called more than once.
func (b *Backend) Close() error {
	b.cat.close()
	return nil
}
