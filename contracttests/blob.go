package contracttests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// RunBlobSuite checks that a ports.BlobStore behaves as core/ports
// documents: streamed writes of unknown length, size limits and aborted
// writes that leave nothing behind, reads with their size, idempotent
// deletes and keys that cannot escape the store. newBlob returns an empty
// store for each subtest (which run in parallel) and releases it with
// t.Cleanup.
func RunBlobSuite(t *testing.T, newBlob func(t *testing.T) ports.BlobStore) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, b ports.BlobStore)
	}{
		{"WriteOpen", blobWriteOpen},
		{"WriteReplaces", blobWriteReplaces},
		{"WriteEmpty", blobWriteEmpty},
		{"WriteStreamsUnknownLength", blobWriteStreamsUnknownLength},
		{"WriteAtLimit", blobWriteAtLimit},
		{"WriteTooLargeLeavesNothing", blobWriteTooLargeLeavesNothing},
		{"WriteCancelledLeavesNothing", blobWriteCancelledLeavesNothing},
		{"WriteReaderErrorLeavesNothing", blobWriteReaderErrorLeavesNothing},
		{"OpenMissing", blobOpenMissing},
		{"Delete", blobDelete},
		{"BadKeys", blobBadKeys},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newBlob(t))
		})
	}
}

// blobPattern yields n bytes of a repeating, position-dependent pattern
// without a known length (no Len, Size or Seek), as a request body does.
type blobPattern struct{ n, off int64 }

func (p *blobPattern) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	k := min(int64(len(b)), p.n-p.off)
	for i := range k {
		b[i] = byte((p.off + i) * 31 % 251)
	}
	p.off += k
	return int(k), nil
}

// blobRead reads key back whole and checks the size Open reports.
func blobRead(t *testing.T, b ports.BlobStore, key string) []byte {
	t.Helper()
	rc, size, err := b.Open(t.Context(), key)
	if err != nil {
		t.Fatalf("Open(%s): %v", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	if size != int64(len(data)) {
		t.Errorf("Open(%s) size %d, read %d bytes", key, size, len(data))
	}
	return data
}

func blobWantMissing(t *testing.T, b ports.BlobStore, key, what string) {
	t.Helper()
	rc, _, err := b.Open(t.Context(), key)
	if err == nil {
		rc.Close()
	}
	storeWantKind(t, err, core.ErrNotFound, what)
}

func blobWriteOpen(t *testing.T, b ports.BlobStore) {
	for _, key := range []string{domain.TraceKey(1, 2), domain.ArtifactKey(1, 2, "archive"), "top-level.bin", "ünïcode dir/file name.zip"} {
		data := []byte("contents of " + key + "\x00\xff")
		n, err := b.Write(t.Context(), key, bytes.NewReader(data), 0)
		if err != nil || n != int64(len(data)) {
			t.Fatalf("Write(%s) = %d, %v; want %d", key, n, err, len(data))
		}
		if got := blobRead(t, b, key); !bytes.Equal(got, data) {
			t.Errorf("Open(%s) = %q, want %q", key, got, data)
		}
	}
}

func blobWriteReplaces(t *testing.T, b ports.BlobStore) {
	key := domain.ArtifactKey(1, 1, "archive")
	for _, data := range []string{"a longer first version", "short"} {
		if _, err := b.Write(t.Context(), key, bytes.NewReader([]byte(data)), 0); err != nil {
			t.Fatal(err)
		}
		if got := blobRead(t, b, key); string(got) != data {
			t.Errorf("after writing %q: %q", data, got)
		}
	}
}

func blobWriteEmpty(t *testing.T, b ports.BlobStore) {
	n, err := b.Write(t.Context(), "empty", bytes.NewReader(nil), 10)
	if err != nil || n != 0 {
		t.Fatalf("Write(empty) = %d, %v", n, err)
	}
	if got := blobRead(t, b, "empty"); len(got) != 0 {
		t.Errorf("empty file reads %q", got)
	}
}

// blobWriteStreamsUnknownLength writes 8 MiB through a pipe: no length is
// known in advance, and the bytes read back are the bytes written.
func blobWriteStreamsUnknownLength(t *testing.T, b ports.BlobStore) {
	const size = 8 << 20
	pr, pw := io.Pipe()
	want := sha256.New()
	go func() {
		_, err := io.Copy(io.MultiWriter(pw, want), &blobPattern{n: size})
		pw.CloseWithError(err)
	}()
	n, err := b.Write(t.Context(), "big/stream.bin", pr, size)
	if err != nil || n != size {
		t.Fatalf("Write = %d, %v; want %d", n, err, size)
	}
	rc, gotSize, err := b.Open(t.Context(), "big/stream.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got := sha256.New()
	if _, err := io.Copy(got, rc); err != nil {
		t.Fatal(err)
	}
	if gotSize != size || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Errorf("read back %d bytes with another digest, want %d", gotSize, size)
	}
}

func blobWriteAtLimit(t *testing.T, b ports.BlobStore) {
	n, err := b.Write(t.Context(), "exact", &blobPattern{n: 4096}, 4096)
	if err != nil || n != 4096 {
		t.Fatalf("Write of exactly maxBytes = %d, %v", n, err)
	}
}

func blobWriteTooLargeLeavesNothing(t *testing.T, b ports.BlobStore) {
	const limit = 64 << 10
	_, err := b.Write(t.Context(), "too/large.zip", &blobPattern{n: 4 * limit}, limit)
	storeWantKind(t, err, core.ErrTooLarge, "Write over maxBytes")
	blobWantMissing(t, b, "too/large.zip", "a file over maxBytes")
	_, err = b.Write(t.Context(), "just-over", &blobPattern{n: limit + 1}, limit)
	storeWantKind(t, err, core.ErrTooLarge, "Write of maxBytes+1")
	blobWantMissing(t, b, "just-over", "a file of maxBytes+1")
}

// blobCancelling cancels the write's context once it has read after
// bytes, and then goes on yielding data.
type blobCancelling struct {
	blobPattern
	after  int64
	cancel context.CancelFunc
}

func (c *blobCancelling) Read(p []byte) (int, error) {
	if c.off >= c.after {
		c.cancel()
	}
	return c.blobPattern.Read(p)
}

func blobWriteCancelledLeavesNothing(t *testing.T, b ports.BlobStore) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := &blobCancelling{blobPattern: blobPattern{n: 1 << 20}, after: 64 << 10, cancel: cancel}
	if _, err := b.Write(ctx, "cancelled", r, 0); err == nil {
		t.Fatal("a cancelled Write succeeded")
	}
	blobWantMissing(t, b, "cancelled", "a cancelled write")
}

// blobFailing yields some bytes, then an error (a client that went away).
type blobFailing struct{ blobPattern }

var errBlobClientGone = errors.New("client went away")

func (f *blobFailing) Read(p []byte) (int, error) {
	if f.off >= f.n {
		return 0, errBlobClientGone
	}
	return f.blobPattern.Read(p)
}

func blobWriteReaderErrorLeavesNothing(t *testing.T, b ports.BlobStore) {
	_, err := b.Write(t.Context(), "failed", &blobFailing{blobPattern{n: 100 << 10}}, 0)
	if !errors.Is(err, errBlobClientGone) {
		t.Fatalf("Write from a failing reader = %v, want its error", err)
	}
	blobWantMissing(t, b, "failed", "a failed write")
}

func blobOpenMissing(t *testing.T, b ports.BlobStore) {
	blobWantMissing(t, b, "nothing/here", "Open of a missing key")
}

func blobDelete(t *testing.T, b ports.BlobStore) {
	key := domain.TraceKey(3, 4)
	if _, err := b.Write(t.Context(), key, bytes.NewReader([]byte("log")), 0); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := b.Delete(t.Context(), key); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
		blobWantMissing(t, b, key, "a deleted file")
	}
	if err := b.Delete(t.Context(), "never/written"); err != nil {
		t.Errorf("Delete of a missing key: %v", err)
	}
}

func blobBadKeys(t *testing.T, b ports.BlobStore) {
	for _, key := range []string{"", "../escape", "a/../../escape", "/etc/passwd", "a/./b", "a//b", "a/", ".", "..",
		"a\x00b", "line\nbreak", "tab\there", "del\x7f", `back\slash`, "bad\xffutf8"} {
		_, err := b.Write(t.Context(), key, bytes.NewReader([]byte("x")), 0)
		storeWantKind(t, err, core.ErrInvalid, fmt.Sprintf("Write(%q)", key))
		_, _, err = b.Open(t.Context(), key)
		storeWantKind(t, err, core.ErrInvalid, fmt.Sprintf("Open(%q)", key))
		storeWantKind(t, b.Delete(t.Context(), key), core.ErrInvalid, fmt.Sprintf("Delete(%q)", key))
	}
}
