package archive

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// maxLinkTarget bounds a symlink entry's content (PATH_MAX on Linux).
const maxLinkTarget = 4096

// member is a validated archive entry.
type member struct {
	f      *zip.File
	name   string // clean, slash-separated, relative
	kind   kind
	target string // for links
}

// Extract unzips the archive into dest (created if missing). Before writing
// anything it refuses the whole archive when an entry is absolute, has a
// ".." component, a backslash, a NUL or a drive letter, is stored twice, is a
// symlink pointing outside dest or is under a symlink or a file of the
// archive. While writing it refuses to go through a symlink already on disk,
// and an entry whose data exceeds its declared size (zip bombs). Every write
// goes through an os.Root on dest, so nothing can land outside it. Regular
// files get 0644 or 0755 (executable bits of the entry) and their
// modification time; setuid, setgid and sticky bits are dropped. Existing
// files and symlinks at an entry's path are replaced, like gitlab-runner
// does when restoring a cache over a checkout. Devices, pipes and sockets
// are skipped.
func Extract(r io.ReaderAt, size int64, dest string) error {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("archive: read zip: %w", err)
	}
	// ErrInsecurePath comes with a usable reader: validate() says which
	// entry is bad.
	members, err := validate(zr)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return fmt.Errorf("archive: create %s: %w", dest, err)
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return fmt.Errorf("archive: open %s: %w", dest, err)
	}
	defer root.Close()
	for _, m := range members {
		if err := extractMember(root, m); err != nil {
			return err
		}
	}
	return nil
}

// cleanName validates an entry name and returns it cleaned ("" for the
// archive's root directory).
func cleanName(raw string) (string, error) {
	switch {
	case raw == "":
		return "", errors.New("empty name")
	case strings.ContainsAny(raw, "\\\x00"):
		return "", errors.New("backslash or NUL in name")
	case strings.HasPrefix(raw, "/"):
		return "", errors.New("absolute path")
	case isDrive(raw):
		return "", errors.New("drive letter")
	}
	var parts []string
	for _, p := range strings.Split(raw, "/") {
		switch p {
		case "", ".":
		case "..":
			return "", errors.New(`".." in path`)
		default:
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/"), nil
}

// validate checks every entry against the archive as a whole before
// anything is written.
func validate(zr *zip.Reader) ([]member, error) {
	var members []member
	seen := map[string]kind{}
	for _, f := range zr.File {
		name, err := cleanName(f.Name)
		if err != nil {
			return nil, fmt.Errorf("archive: refusing entry %q: %w", f.Name, err)
		}
		mode := f.Mode()
		m := member{f: f, name: name}
		switch {
		case mode.IsDir() || strings.HasSuffix(f.Name, "/"):
			m.kind = kindDir
		case mode&fs.ModeSymlink != 0:
			m.kind = kindLink
		case mode.IsRegular():
			m.kind = kindFile
		default:
			continue
		}
		if name == "" {
			if m.kind == kindDir {
				continue
			}
			return nil, fmt.Errorf("archive: refusing entry %q: empty name", f.Name)
		}
		if prev, dup := seen[name]; dup && !(prev == kindDir && m.kind == kindDir) {
			return nil, fmt.Errorf("archive: refusing entry %q: duplicate of %q", f.Name, name)
		}
		seen[name] = m.kind
		if m.kind == kindLink {
			if m.target, err = readLink(f); err != nil {
				return nil, fmt.Errorf("archive: refusing entry %q: %w", f.Name, err)
			}
			if !safeLinkTarget(name, m.target) {
				return nil, fmt.Errorf("archive: refusing entry %q: symlink to %q leaves the destination", f.Name, m.target)
			}
		}
		members = append(members, m)
	}
	for _, m := range members {
		for d := path.Dir(m.name); d != "."; d = path.Dir(d) {
			if k := seen[d]; k != 0 && k != kindDir {
				return nil, fmt.Errorf("archive: refusing entry %q: under the non-directory entry %q", m.f.Name, d)
			}
		}
	}
	return members, nil
}

func readLink(f *zip.File) (string, error) {
	if f.UncompressedSize64 > maxLinkTarget {
		return "", errors.New("symlink target too long")
	}
	rc, err := f.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxLinkTarget+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxLinkTarget {
		return "", errors.New("symlink target too long")
	}
	return string(b), nil
}

func extractMember(root *os.Root, m member) error {
	switch m.kind {
	case kindDir:
		return ensureDir(root, m.name)
	case kindLink:
		if err := prepare(root, m.name); err != nil {
			return err
		}
		if err := root.Symlink(m.target, m.name); err != nil {
			return fmt.Errorf("archive: symlink %s: %w", m.name, err)
		}
		return nil
	default:
		if err := prepare(root, m.name); err != nil {
			return err
		}
		return extractFile(root, m)
	}
}

// ensureDir creates a directory and its parents, refusing to go through a
// symlink or a file.
func ensureDir(root *os.Root, name string) error {
	cur := ""
	for _, p := range strings.Split(name, "/") {
		cur = path.Join(cur, p)
		fi, err := root.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := root.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("archive: mkdir %s: %w", cur, err)
			}
			continue
		case err != nil:
			return fmt.Errorf("archive: stat %s: %w", cur, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("archive: refusing %s: %s is a symlink", name, cur)
		}
		if !fi.IsDir() {
			return fmt.Errorf("archive: refusing %s: %s is not a directory", name, cur)
		}
	}
	return nil
}

// prepare creates an entry's parent directories and removes a file or a
// symlink already at its path (never what the symlink points at).
func prepare(root *os.Root, name string) error {
	if d := path.Dir(name); d != "." {
		if err := ensureDir(root, d); err != nil {
			return err
		}
	}
	fi, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("archive: stat %s: %w", name, err)
	case fi.IsDir():
		return fmt.Errorf("archive: refusing %s: a directory is in the way", name)
	}
	if err := root.Remove(name); err != nil {
		return fmt.Errorf("archive: replace %s: %w", name, err)
	}
	return nil
}

func extractFile(root *os.Root, m member) (err error) {
	perm := fs.FileMode(0o644)
	if m.f.Mode()&0o111 != 0 {
		perm = 0o755
	}
	rc, err := m.f.Open()
	if err != nil {
		return fmt.Errorf("archive: open entry %s: %w", m.name, err)
	}
	defer rc.Close()
	// O_EXCL: a symlink planted at the path since prepare() is not followed.
	out, err := root.OpenFile(m.name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("archive: create %s: %w", m.name, err)
	}
	defer func() {
		if cerr := out.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("archive: close %s: %w", m.name, cerr)
		}
		if err != nil {
			_ = root.Remove(m.name)
		}
	}()
	declared := m.f.UncompressedSize64
	limit := int64(declared)
	if declared > 1<<62 {
		limit = 1 << 62
	}
	n, err := io.Copy(out, io.LimitReader(rc, limit+1))
	if err != nil {
		return fmt.Errorf("archive: extract %s: %w", m.name, err)
	}
	if n > limit {
		return fmt.Errorf("archive: refusing %s: more data than its declared %d bytes", m.name, declared)
	}
	// The umask may have narrowed perm; the entry's bits are wanted.
	if err := out.Chmod(perm); err != nil {
		return fmt.Errorf("archive: chmod %s: %w", m.name, err)
	}
	if mt := m.f.Modified; !mt.IsZero() {
		if err := root.Chtimes(m.name, mt, mt); err != nil {
			return fmt.Errorf("archive: chtimes %s: %w", m.name, err)
		}
	}
	return nil
}
