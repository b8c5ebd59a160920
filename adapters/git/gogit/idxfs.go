package gogit

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/util"
)

// idxFS hands go-git pack indexes read whole into memory. go-git decodes
// an index with hundreds of small reads (the fanout table a word at a
// time), each a system call on a plain file; with a few dozen packs
// (every push adds one) that dominated every request's first object
// lookup.
//
// loose, when not nil, is the set of loose objects ("objects/xx/yyyy")
// the repository held when it was opened: a bulk reader (openBulk) asks
// for every object as a loose one first, and a miss costs a path
// resolution of several system calls under osfs.BoundOS.
type idxFS struct {
	billy.Filesystem
	loose map[string]bool
}

func (f idxFS) Open(name string) (billy.File, error) {
	if f.loose != nil && len(name) == len("objects/xx/")+38 && strings.HasPrefix(name, "objects/") && !f.loose[name] {
		return nil, fs.ErrNotExist
	}
	if !strings.HasSuffix(name, ".idx") {
		return f.Filesystem.Open(name)
	}
	data, err := util.ReadFile(f.Filesystem, name)
	if err != nil {
		return nil, err
	}
	return &memFile{name: name, Reader: bytes.NewReader(data)}, nil
}

// looseObjects lists the loose objects under dir/objects.
func looseObjects(dir string) map[string]bool {
	out := map[string]bool{}
	fans, err := os.ReadDir(filepath.Join(dir, "objects"))
	if err != nil {
		return out
	}
	for _, fan := range fans {
		if len(fan.Name()) != 2 || !fan.IsDir() {
			continue
		}
		names, err := os.ReadDir(filepath.Join(dir, "objects", fan.Name()))
		if err != nil {
			continue
		}
		for _, n := range names {
			if len(n.Name()) == 38 {
				out["objects/"+fan.Name()+"/"+n.Name()] = true
			}
		}
	}
	return out
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
