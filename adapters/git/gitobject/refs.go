package gitobject

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// ReadRef reads the object a full ref name (or "HEAD") points at in the
// bare repository gitDir, as git stores refs: a loose ref file, else a
// line of packed-refs; symbolic refs are followed. ok is false when the
// ref does not exist.
func ReadRef(gitDir, ref string) (oid string, ok bool, err error) {
	return (*PackedRefs)(nil).ReadRef(gitDir, ref)
}

// ReadRef is the package's ReadRef with packed-refs read through p.
func (p *PackedRefs) ReadRef(gitDir, ref string) (oid string, ok bool, err error) {
	for range 5 {
		data, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref)))
		switch {
		case err == nil:
			s := strings.TrimSpace(string(data))
			if target, sym := strings.CutPrefix(s, "ref: "); sym {
				if gitnames.CheckFullRef(target) != nil && target != "HEAD" {
					return "", false, nil
				}
				ref = target
				continue
			}
			if !gitnames.IsOID(s) {
				return "", false, fmt.Errorf("ref %s holds %q", ref, s)
			}
			return s, true, nil
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR):
			return p.Lookup(gitDir, ref)
		default:
			return "", false, fmt.Errorf("read ref %s: %w", ref, err)
		}
	}
	return "", false, nil
}

// ReadPackedRef looks ref up in gitDir's packed-refs.
func ReadPackedRef(gitDir, ref string) (string, bool, error) {
	f, err := os.Open(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	suffix := []byte(" " + ref)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 41+len(ref) && bytes.HasSuffix(line, suffix) {
			return string(line[:40]), true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", false, fmt.Errorf("read packed-refs: %w", err)
	}
	return "", false, nil
}

// ExistingRef reads ref like ReadRef; one that does not exist is
// core.ErrNotFound.
func ExistingRef(gitDir, ref string) (string, error) {
	oid, ok, err := ReadRef(gitDir, ref)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", core.ErrNotFound
	}
	return oid, nil
}

// CurrentRef reads ref like ReadRef, domain.ZeroID when it does not exist
// (the old value of a ref about to be created).
func CurrentRef(gitDir, ref string) (string, error) {
	oid, ok, err := ReadRef(gitDir, ref)
	if err != nil {
		return "", err
	}
	if !ok {
		return domain.ZeroID, nil
	}
	return oid, nil
}

// HeadRef reads the ref HEAD names ("refs/heads/main"), even when that
// branch has no commits yet; "" when HEAD is detached.
func HeadRef(gitDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: ")
	if !ok {
		return "", nil
	}
	return target, nil
}

// ResolveRef finds the ref a revision (already gitnames.CheckRev'd) names,
// in git's order for the names Hearth accepts: "HEAD", a full ref name,
// else the branch, then the tag. ok is false when none exists; the
// revision may still be an object name, which is the backend's to expand.
func ResolveRef(gitDir, rev string) (oid string, ok bool, err error) {
	return (*PackedRefs)(nil).ResolveRef(gitDir, rev)
}

// ResolveRef is the package's ResolveRef with packed-refs read through p.
func (p *PackedRefs) ResolveRef(gitDir, rev string) (oid string, ok bool, err error) {
	var candidates []string
	switch {
	case rev == "HEAD":
		candidates = []string{"HEAD"}
	case strings.HasPrefix(rev, "refs/"):
		candidates = []string{rev}
	default:
		candidates = []string{domain.BranchPrefix + rev, domain.TagPrefix + rev}
	}
	for _, ref := range candidates {
		oid, ok, err := p.ReadRef(gitDir, ref)
		if err != nil || ok {
			return oid, ok, err
		}
	}
	return "", false, nil
}
