package gitobject

import (
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// GitLab's messages for file actions that do not fit the tree
// (Gitlab::Git::Index, 9.x).
const (
	msgFileExists  = "A file with this name already exists"
	msgFileMissing = "A file with this name doesn't exist"
	msgDirExists   = "A directory with this name already exists"
)

// FileEntry is one file of a tree being built.
type FileEntry struct {
	Mode string // as git prints it: "100644", "100755", "120000", "160000"
	ID   string
}

// FlatTree is a tree being built: every file by its full path, with a
// count of the files under every directory for directory/file checks.
// Backends fill it from a commit's tree, change it with Apply and write it
// back as tree objects, each in its own way.
type FlatTree struct {
	Files map[string]FileEntry
	dirs  map[string]int
}

// NewFlatTree is an empty tree.
func NewFlatTree() *FlatTree {
	return &FlatTree{Files: map[string]FileEntry{}, dirs: map[string]int{}}
}

// Add puts (or replaces) the file at p.
func (t *FlatTree) Add(p string, e FileEntry) {
	if _, ok := t.Files[p]; !ok {
		for d := parentDir(p); d != ""; d = parentDir(d) {
			t.dirs[d]++
		}
	}
	t.Files[p] = e
}

// Remove takes the file at p away, if there is one.
func (t *FlatTree) Remove(p string) {
	if _, ok := t.Files[p]; !ok {
		return
	}
	delete(t.Files, p)
	for d := parentDir(p); d != ""; d = parentDir(d) {
		if t.dirs[d]--; t.dirs[d] == 0 {
			delete(t.dirs, d)
		}
	}
}

// IsDir reports whether p is a directory: some file lies below it.
func (t *FlatTree) IsDir(p string) bool { return t.dirs[p] > 0 }

// fileAbove reports whether a proper prefix directory of p is a file.
func (t *FlatTree) fileAbove(p string) bool {
	for d := parentDir(p); d != ""; d = parentDir(d) {
		if _, ok := t.Files[d]; ok {
			return true
		}
	}
	return false
}

func parentDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

// Apply changes t as a (with clean paths) asks, with GitLab's errors
// (core.BadRequest) for a file that is or is not there, or a directory in
// the way. blob stores new content and returns its object name.
func (t *FlatTree) Apply(a domain.FileAction, blob func(content []byte) (string, error)) error {
	placeable := func(p string) error {
		if _, ok := t.Files[p]; ok {
			return core.BadRequest(msgFileExists)
		}
		if t.IsDir(p) {
			return core.BadRequest(msgDirExists)
		}
		if t.fileAbove(p) {
			return core.BadRequest(msgFileExists)
		}
		return nil
	}
	switch a.Action {
	case domain.FileCreate:
		if err := placeable(a.Path); err != nil {
			return err
		}
		id, err := blob(a.Content)
		if err != nil {
			return err
		}
		t.Add(a.Path, FileEntry{Mode: "100644", ID: id})
	case domain.FileUpdate:
		old, ok := t.Files[a.Path]
		if !ok {
			return core.BadRequest(msgFileMissing)
		}
		id, err := blob(a.Content)
		if err != nil {
			return err
		}
		mode := old.Mode
		if mode == "160000" {
			mode = "100644"
		}
		t.Add(a.Path, FileEntry{Mode: mode, ID: id})
	case domain.FileDelete:
		if _, ok := t.Files[a.Path]; !ok {
			return core.BadRequest(msgFileMissing)
		}
		t.Remove(a.Path)
	case domain.FileMove:
		old, ok := t.Files[a.PreviousPath]
		if !ok {
			return core.BadRequest(msgFileMissing)
		}
		t.Remove(a.PreviousPath)
		if err := placeable(a.Path); err != nil {
			return err
		}
		e := old
		if a.Content != nil {
			id, err := blob(a.Content)
			if err != nil {
				return err
			}
			e.ID = id
		}
		t.Add(a.Path, e)
	}
	return nil
}
