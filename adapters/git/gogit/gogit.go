// Package gogit is a pure-Go ports.RepoBackend over go-git: the same bare
// repositories, layout and answers as the gitcli backend, without ever
// running a git executable.
//
// go-git reads objects (loose and packed); everything whose result must be
// byte-identical to git's is done here in git's own way: objects are
// encoded and written as loose objects (fsynced), refs are moved with git's
// lock-file protocol (so gitcli and gogit can share a repository), and
// diffs, merges and history walks follow git's algorithms.
package gogit

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
	"github.com/hearth-forge/hearth/adapters/git/gitinput"
	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/ports"
)

var _ ports.RepoBackend = (*Backend)(nil)

// check runs the request checks both backends share, naming this backend
// in its errors.
const check = gitinput.Checker("gogit")

// Backend stores bare repositories under a root directory.
type Backend struct {
	disk   *gitdisk.Root
	log    *zap.Logger
	limits Limits
}

// New opens (creating it if needed) the repository root. A nil log
// discards logging.
func New(root string, log *zap.Logger, opts ...Option) (*Backend, error) {
	if log == nil {
		log = zap.NewNop()
	}
	disk, err := gitdisk.Open("gogit", root, log)
	if err != nil {
		return nil, err
	}
	b := &Backend{disk: disk, log: log, limits: DefaultLimits()}
	for _, o := range opts {
		o(b)
	}
	return b, nil
}

// Close releases nothing: the backend holds no long-lived resources.
func (b *Backend) Close() error { return nil }

// repoh is one opened repository.
type repoh struct {
	dir string
	st  *filesystem.Storage
	// q is a pushed pack in quarantine, read before st (see ReceivePack).
	q *packfile.Packfile
}

// open validates repo and opens it; core.ErrNotFound when it is missing.
func (b *Backend) open(repo string) (*repoh, error) {
	dir, err := b.disk.Open(repo)
	if err != nil {
		return nil, err
	}
	return openDir(dir), nil
}

func openDir(dir string) *repoh {
	st := filesystem.NewStorageWithOptions(idxFS{Filesystem: osfs.New(dir, osfs.WithBoundOS())}, cache.NewObjectLRU(16<<20),
		filesystem.Options{})
	return &repoh{dir: dir, st: st}
}

// openBulk opens dir for reading many objects (a fetch, a push's checks):
// pack files stay open between reads instead of being opened for each
// object, and loose objects are listed once (one written later is not
// seen). The caller must close the storage.
func openBulk(dir string) *repoh {
	fsys := idxFS{osfs.New(dir, osfs.WithBoundOS()), looseObjects(dir)}
	st := filesystem.NewStorageWithOptions(fsys, cache.NewObjectLRU(32<<20),
		filesystem.Options{KeepDescriptors: true})
	return &repoh{dir: dir, st: st}
}

// ReadObject reads the object id (full name).
func (r *repoh) ReadObject(id string) (gitobject.Object, error) {
	if !gitnames.IsOID(id) {
		return gitobject.Object{}, fmt.Errorf("object %q: %w", id, core.ErrNotFound)
	}
	o, err := r.object(plumbing.AnyObject, plumbing.NewHash(id))
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return gitobject.Object{}, fmt.Errorf("object %s: %w (%w)", id, core.ErrNotFound, gitobject.ErrMissing)
		}
		return gitobject.Object{}, fmt.Errorf("read object %s: %w", id, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return gitobject.Object{}, fmt.Errorf("read object %s: %w", id, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return gitobject.Object{}, fmt.Errorf("read object %s: %w", id, err)
	}
	return gitobject.Object{ID: id, Type: o.Type().String(), Size: int64(len(data)), Data: data}, nil
}

// expand turns an abbreviated object name (at least 4 hex digits) into
// the full name; ok is false when none or several objects match.
func (r *repoh) expand(abbrev string) (string, bool, error) {
	abbrev = strings.ToLower(abbrev)
	if len(abbrev) == 40 {
		if _, err := r.st.EncodedObject(plumbing.AnyObject, plumbing.NewHash(abbrev)); err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				return "", false, nil
			}
			return "", false, err
		}
		return abbrev, true, nil
	}
	even := abbrev[:len(abbrev)/2*2]
	prefix, err := hex.DecodeString(even)
	if err != nil {
		return "", false, nil
	}
	hashes, err := r.st.HashesWithPrefix(prefix)
	if err != nil {
		return "", false, err
	}
	found := ""
	for _, h := range hashes {
		s := h.String()
		if strings.HasPrefix(s, abbrev) && s != found {
			if found != "" {
				return "", false, nil
			}
			found = s
		}
	}
	return found, found != "", nil
}

// hashObject is git's object name of typ with data.
func hashObject(typ string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typ, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// write stores an object as a loose object, durably: the compressed file
// is written under a temporary name, fsynced, and renamed into place.
func (r *repoh) write(typ string, data []byte) (string, error) {
	id := hashObject(typ, data)
	dir := filepath.Join(r.dir, "objects", id[:2])
	final := filepath.Join(dir, id[2:])
	if _, err := os.Stat(final); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write object: %w", err)
	}
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	fmt.Fprintf(zw, "%s %d\x00", typ, len(data))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("write object: %w", err)
	}
	if err := writeFileSync(dir, final, buf.Bytes(), 0o444); err != nil {
		return "", fmt.Errorf("write object %s: %w", id, err)
	}
	return id, nil
}

// writeFileSync writes data to final through a fsynced temporary file in
// dir and a rename, and syncs dir.
func writeFileSync(dir, final string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	ok = true
	return gitdisk.Sync(dir)
}
