package ports

import (
	"context"
	"io"
)

// BlobStore keeps large files (artifacts, archived traces) by key, on the
// local file system or in object storage. Writes stream: nothing holds a
// whole file in memory.
type BlobStore interface {
	// Write stores what r yields under key, replacing any file there, and
	// returns its size. With maxBytes > 0 a longer stream is
	// core.ErrTooLarge and nothing is kept. A failed or cancelled write
	// leaves no partial file under key.
	Write(ctx context.Context, key string, r io.Reader, maxBytes int64) (int64, error)
	// Open returns the file under key and its size (core.ErrNotFound).
	Open(ctx context.Context, key string) (io.ReadCloser, int64, error)
	// Delete removes the file under key; a missing one is not an error.
	Delete(ctx context.Context, key string) error
}
