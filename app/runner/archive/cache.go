package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultCacheKey is GitLab's cache key when the job sets none.
const DefaultCacheKey = "default"

// Cache keeps one zip per cache key under Dir (the runner's local cache).
type Cache struct{ Dir string }

// file returns the archive's path for a key. Keys are user input ("../x",
// "a/b"), so every byte outside [A-Za-z0-9_-] is percent-encoded: the name
// is a single safe path component and two keys never share a file. Very long
// keys are hashed to stay under the file name limit.
func (c Cache) file(key string) (string, error) {
	if c.Dir == "" {
		return "", errors.New("archive: cache directory not configured")
	}
	return filepath.Join(c.Dir, cacheFileName(key)), nil
}

func cacheFileName(key string) string {
	if key == "" {
		key = DefaultCacheKey
	}
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		ch := key[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-' {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	name := b.String()
	if len(name) > 200 {
		sum := sha256.Sum256([]byte(key))
		name = "sha256-" + hex.EncodeToString(sum[:])
	}
	return name + ".zip"
}

// Restore extracts the cache of key into root; found is false (and nothing
// changes) when there is no cache for key yet.
func (c Cache) Restore(ctx context.Context, key, root string) (found bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	name, err := c.file(key)
	if err != nil {
		return false, err
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("archive: open cache: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("archive: stat cache: %w", err)
	}
	if err := Extract(f, fi.Size(), root); err != nil {
		return true, fmt.Errorf("archive: restore cache %q: %w", key, err)
	}
	return true, nil
}

// Save zips paths (and the untracked files when untracked) of root as the
// cache of key. The zip is written to a temporary file renamed over the old
// one, so a concurrent Restore sees either cache whole. When nothing
// matches, the previous cache is kept, as gitlab-runner does not upload an
// empty cache either.
func (c Cache) Save(ctx context.Context, key, root string, paths []string, untracked bool) (err error) {
	name, err := c.file(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("archive: create cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(c.Dir, ".tmp-*.zip")
	if err != nil {
		return fmt.Errorf("archive: create cache file: %w", err)
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	files, err := Create(ctx, tmp, root, paths, nil, untracked)
	if err != nil {
		return fmt.Errorf("archive: save cache %q: %w", key, err)
	}
	if files == 0 {
		return nil
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("archive: sync cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("archive: close cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		_ = os.Remove(tmp.Name())
		renamed = true
		return fmt.Errorf("archive: store cache: %w", err)
	}
	renamed = true
	return nil
}
