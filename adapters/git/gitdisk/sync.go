package gitdisk

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SyncTree fsyncs every file and directory under dir (dir included), so
// that renaming dir into place publishes a repository that survives a
// crash.
func SyncTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() && !d.IsDir() {
			return nil
		}
		return Sync(path)
	})
}

// Sync fsyncs the file or directory at path; for a directory, that makes
// a rename or removal inside it durable.
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// Size sums the sizes of the regular files under dir. Files that vanish
// during the walk (a concurrent repack) are skipped rather than failing.
func Size(dir string) (int64, error) {
	var size int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path != dir {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		size += info.Size()
		return nil
	})
	return size, err
}
