package gitobject

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// maxPackedRefs bounds the refs a PackedRefs keeps over all repositories
// (about 100 bytes each); past it the cache starts again empty.
const maxPackedRefs = 1 << 18

// PackedRefs keeps each repository's packed-refs parsed, so that resolving
// a branch or tag that lives there (every ref after git gc or pack-refs)
// does not scan the whole file, thousands of tags long, per request. A
// file is parsed again when it changed: git rewrites packed-refs by
// renaming a new file over it, so its inode, size or modification time
// differ. A nil *PackedRefs scans the file each time.
type PackedRefs struct {
	mu    sync.Mutex
	files map[string]*packedFile
	refs  int
}

type packedFile struct {
	ino   uint64
	size  int64
	mtime time.Time
	refs  map[string]string
}

// NewPackedRefs returns an empty cache.
func NewPackedRefs() *PackedRefs { return &PackedRefs{files: map[string]*packedFile{}} }

// Lookup looks ref up in gitDir's packed-refs.
func (p *PackedRefs) Lookup(gitDir, ref string) (string, bool, error) {
	if p == nil {
		return ReadPackedRef(gitDir, ref)
	}
	refs, err := p.Refs(gitDir)
	if err != nil {
		return "", false, err
	}
	oid, ok := refs[ref]
	return oid, ok, nil
}

// Refs is every ref of gitDir's packed-refs (ref name -> object name),
// empty when there is none. The map is shared: callers must not change it.
func (p *PackedRefs) Refs(gitDir string) (map[string]string, error) {
	if p == nil {
		return ReadPackedRefs(gitDir)
	}
	fi, err := os.Stat(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	p.mu.Lock()
	f := p.files[gitDir]
	p.mu.Unlock()
	if f != nil && f.ino == ino && f.size == fi.Size() && f.mtime.Equal(fi.ModTime()) {
		return f.refs, nil
	}
	// Parsed with the stat taken before the read: if the file is replaced
	// in between, the next call sees a new stat and reads it again.
	refs, err := ReadPackedRefs(gitDir)
	if err != nil {
		return nil, err
	}
	f = &packedFile{ino: ino, size: fi.Size(), mtime: fi.ModTime(), refs: refs}
	p.mu.Lock()
	if old := p.files[gitDir]; old != nil {
		p.refs -= len(old.refs)
	}
	if p.refs+len(refs) > maxPackedRefs {
		clear(p.files)
		p.refs = 0
	}
	p.files[gitDir] = f
	p.refs += len(refs)
	p.mu.Unlock()
	return refs, nil
}

// ReadPackedRefs reads every "<oid> <ref>" line of gitDir's packed-refs
// (peeled "^<oid>" lines and the header are skipped); empty when the file
// does not exist.
func ReadPackedRefs(gitDir string) (map[string]string, error) {
	file, err := os.Open(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	defer file.Close()
	refs := map[string]string{}
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 42 || line[40] != ' ' || line[0] == '#' || line[0] == '^' {
			continue
		}
		refs[string(line[41:])] = string(line[:40])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	return refs, nil
}
