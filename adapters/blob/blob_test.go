package blob_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/adapters/blob"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/ports"
)

// openDir opens a file:// store over a directory that does not exist yet
// (Open creates it).
func openDir(t *testing.T, dir string) *blob.Store {
	t.Helper()
	u, err := blob.DirURL(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := blob.Open(t.Context(), u)
	if err != nil {
		t.Fatalf("Open(%s): %v", u, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestBlobSuite(t *testing.T) {
	contracttests.RunBlobSuite(t, func(t *testing.T) ports.BlobStore {
		return openDir(t, filepath.Join(t.TempDir(), "blobs"))
	})
}

// files lists the regular files under dir, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAbortedWritesLeaveNoFile looks at the directory itself: neither the
// file nor a temporary one is left by a write over the limit or from a
// failing reader, and a good write leaves exactly its file (no metadata
// sidecar).
func TestAbortedWritesLeaveNoFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "blobs")
	s := openDir(t, dir)
	if _, err := s.Write(t.Context(), "a/too-large", bytes.NewReader(make([]byte, 2048)), 1024); err == nil {
		t.Fatal("Write over the limit succeeded")
	}
	if _, err := s.Write(t.Context(), "a/failing", &failing{}, 0); err == nil {
		t.Fatal("Write from a failing reader succeeded")
	}
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("files left by aborted writes: %v", got)
	}
	if _, err := s.Write(t.Context(), "a/ok", strings.NewReader("ok"), 0); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); len(got) != 1 || got[0] != filepath.Join("a", "ok") {
		t.Errorf("files after one write: %v, want a/ok", got)
	}
}

type failing struct{ n int }

func (f *failing) Read(p []byte) (int, error) {
	if f.n > 3 {
		return 0, os.ErrClosed
	}
	f.n++
	return copy(p, "partial data "), nil
}

func TestOpenURLs(t *testing.T) {
	for _, u := range []string{"", "mem://", "http://example.com/bucket", "file://", "::bad"} {
		if s, err := blob.Open(t.Context(), u); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", u)
		}
	}
	// Options in the URL are kept.
	dir := filepath.Join(t.TempDir(), "blobs")
	u, _ := blob.DirURL(dir)
	s, err := blob.Open(t.Context(), u+"?dir_file_mode=0700")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("created directory: %v, %v; want mode 0700", fi, err)
	}
}
