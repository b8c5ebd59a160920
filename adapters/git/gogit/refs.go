package gogit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// listRefs lists every ref under prefix ("refs/" for all), loose refs
// overriding packed ones, sorted by name.
type refPair struct{ name, oid string }

func listRefs(gitDir, prefix string) ([]refPair, error) {
	refs, err := gitobject.ReadPackedRefs(gitDir)
	if err != nil {
		return nil, err
	}
	for name := range refs {
		if !strings.HasPrefix(name, prefix) {
			delete(refs, name)
		}
	}
	base := filepath.Join(gitDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(gitDir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if gitnames.CheckFullRef(name) != nil {
			return nil
		}
		oid, ok, err := gitobject.ReadRef(gitDir, name)
		if err != nil {
			return err
		}
		if ok {
			refs[name] = oid
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	out := make([]refPair, 0, len(refs))
	for n, o := range refs {
		out = append(out, refPair{n, o})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// lockFile takes git's lock on path (path + ".lock", created exclusively),
// retrying briefly like git's core.filesRefLockTimeout (100ms).
func lockFile(path string) (*os.File, error) {
	deadline := time.Now().Add(time.Second)
	for {
		f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) || time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// casRef moves ref from oldID to newID (ZeroID: create / delete) with
// git's lock-file protocol, or fails with core.ErrStale.
func casRef(gitDir, ref, newID, oldID string) error {
	path := filepath.Join(gitDir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		// A file where a directory is due: "refs/heads/a" blocks "a/b".
		return fmt.Errorf("gogit: update %s: %w", ref, core.ErrConflict)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("gogit: update %s: a ref directory is in the way: %w", ref, core.ErrConflict)
	}
	if conflictsWithPacked(gitDir, ref) {
		return fmt.Errorf("gogit: update %s: %w", ref, core.ErrConflict)
	}
	lock, err := lockFile(path)
	if err != nil {
		if cur, rerr := gitobject.CurrentRef(gitDir, ref); rerr == nil && cur != oldID {
			return fmt.Errorf("gogit: %s is at %s, not %s: %w", ref, cur, oldID, core.ErrStale)
		}
		return fmt.Errorf("gogit: lock %s: %w", ref, core.ErrConflict)
	}
	lockName := lock.Name()
	committed := false
	defer func() {
		if !committed {
			lock.Close()
			_ = os.Remove(lockName)
		}
	}()
	cur, err := gitobject.CurrentRef(gitDir, ref)
	if err != nil {
		return fmt.Errorf("gogit: update %s: %w", ref, err)
	}
	if cur != oldID {
		return fmt.Errorf("gogit: %s is at %s, not %s: %w", ref, cur, oldID, core.ErrStale)
	}
	if newID == domain.ZeroID {
		if err := deletePacked(gitDir, ref); err != nil {
			return fmt.Errorf("gogit: delete %s: %w", ref, err)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("gogit: delete %s: %w", ref, err)
		}
		lock.Close()
		committed = true
		_ = os.Remove(lockName)
		return gitdisk.Sync(filepath.Dir(path))
	}
	if _, err := lock.WriteString(newID + "\n"); err != nil {
		return fmt.Errorf("gogit: update %s: %w", ref, err)
	}
	if err := lock.Sync(); err != nil {
		return fmt.Errorf("gogit: update %s: %w", ref, err)
	}
	if err := lock.Close(); err != nil {
		return fmt.Errorf("gogit: update %s: %w", ref, err)
	}
	if err := os.Rename(lockName, path); err != nil {
		return fmt.Errorf("gogit: update %s: %w", ref, err)
	}
	committed = true
	return gitdisk.Sync(filepath.Dir(path))
}

// conflictsWithPacked reports whether a packed ref is a prefix directory
// of ref or has ref as a prefix directory (git's D/F ref conflict).
func conflictsWithPacked(gitDir, ref string) bool {
	refs, err := gitobject.ReadPackedRefs(gitDir)
	if err != nil {
		return false
	}
	for name := range refs {
		if strings.HasPrefix(name, ref+"/") || strings.HasPrefix(ref, name+"/") {
			return true
		}
	}
	return false
}

// deletePacked rewrites packed-refs without ref, under packed-refs.lock.
func deletePacked(gitDir, ref string) error {
	if _, ok, err := gitobject.ReadPackedRef(gitDir, ref); err != nil || !ok {
		return err
	}
	path := filepath.Join(gitDir, "packed-refs")
	lock, err := lockFile(path)
	if err != nil {
		return err
	}
	lockName := lock.Name()
	defer func() {
		lock.Close()
		_ = os.Remove(lockName)
	}()
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	skipPeeled := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "^") {
			if !skipPeeled {
				out.WriteString(line)
			}
			continue
		}
		skipPeeled = len(line) > 41 && line[0] != '#' && strings.TrimRight(line[41:], "\n") == ref
		if !skipPeeled {
			out.WriteString(line)
		}
	}
	if _, err := lock.Write(out.Bytes()); err != nil {
		return err
	}
	if err := lock.Sync(); err != nil {
		return err
	}
	if err := lock.Close(); err != nil {
		return err
	}
	if err := os.Rename(lockName, path); err != nil {
		return err
	}
	return gitdisk.Sync(gitDir)
}
