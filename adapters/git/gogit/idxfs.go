package gogit

import (
	"bytes"
	"errors"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/util"
)

// idxFS hands go-git pack indexes read whole into memory. go-git decodes
// an index with hundreds of small reads (the fanout table a word at a
// time), each a system call on a plain file; with a few dozen packs
// (every push adds one) that dominated every request's first object
// lookup.
type idxFS struct{ billy.Filesystem }

func (f idxFS) Open(name string) (billy.File, error) {
	if !strings.HasSuffix(name, ".idx") {
		return f.Filesystem.Open(name)
	}
	data, err := util.ReadFile(f.Filesystem, name)
	if err != nil {
		return nil, err
	}
	return &memFile{name: name, Reader: bytes.NewReader(data)}, nil
}

// memFile is a read-only billy.File over bytes.
type memFile struct {
	name string
	*bytes.Reader
}

var errReadOnly = errors.New("gogit: read-only file")

func (m *memFile) Name() string              { return m.name }
func (m *memFile) Write([]byte) (int, error) { return 0, errReadOnly }
func (m *memFile) Close() error              { return nil }
func (m *memFile) Lock() error               { return nil }
func (m *memFile) Unlock() error             { return nil }
func (m *memFile) Truncate(int64) error      { return errReadOnly }
