// Package blob implements ports.BlobStore over gocloud.dev/blob: job
// artifacts and archived traces on the local file system (fileblob, the
// default, under <data_dir>/blobs) or in object storage (s3blob, gcsblob),
// chosen by URL so that several Hearth nodes share one bucket:
//
//	file:///var/lib/hearth/blobs
//	s3://bucket?region=eu-west-1      (credentials: the AWS SDK's chain)
//	gs://bucket                       (credentials: Application Default Credentials)
//
// Writes stream from the reader to the bucket (fileblob: a temporary file
// renamed on success), so no whole file is held in memory, and a write that
// fails, is cancelled or exceeds its limit is aborted: nothing appears
// under the key.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf8"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/ports"
)

// schemes are the URL schemes Open accepts, each served by the gocloud
// driver imported above (their URL openers register with gocloud's default
// mux).
var schemes = map[string]bool{fileblob.Scheme: true, s3blob.Scheme: true, gcsblob.Scheme: true}

// maxKeyBytes bounds a key (S3's limit).
const maxKeyBytes = 1024

// Store is a ports.BlobStore over one bucket.
type Store struct {
	bucket *gcblob.Bucket
}

// Open opens the bucket rawURL names. A file:// directory is created when
// missing; temporary files are written next to the final ones (so the
// rename never crosses file systems) and no metadata sidecar files are
// kept, unless the URL says otherwise.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob: parse url: %w", err)
	}
	if !schemes[u.Scheme] {
		return nil, fmt.Errorf("blob: unsupported url scheme %q (use file://, s3:// or gs://)", u.Scheme)
	}
	if u.Scheme == fileblob.Scheme {
		if u.Path == "" {
			return nil, errors.New("blob: a file:// url needs an absolute directory path")
		}
		q := u.Query()
		for k, v := range map[string]string{"create_dir": "true", "no_tmp_dir": "true", "metadata": "skip"} {
			if !q.Has(k) {
				q.Set(k, v)
			}
		}
		u.RawQuery = q.Encode()
	}
	b, err := gcblob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("blob: open %s bucket: %w", u.Scheme, err)
	}
	return &Store{bucket: b}, nil
}

// Close releases the bucket.
func (s *Store) Close() error {
	if err := s.bucket.Close(); err != nil {
		return fmt.Errorf("blob: close: %w", err)
	}
	return nil
}

// checkKey refuses keys that are not plain relative paths: empty, too
// long, absolute, with empty, "." or ".." segments, backslashes, control
// bytes or invalid UTF-8. Keys come from domain.TraceKey and ArtifactKey,
// but a bad one must never reach outside the bucket.
func checkKey(key string) error {
	bad := key == "" || len(key) > maxKeyBytes || !utf8.ValidString(key) || strings.ContainsRune(key, '\\')
	for _, c := range key {
		if c < 0x20 || c == 0x7f {
			bad = true
		}
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			bad = true
		}
	}
	if bad {
		return core.BadRequest(fmt.Sprintf("invalid blob key %q", key))
	}
	return nil
}

// Write streams r into key. The write runs under a context of its own,
// cancelled on any failure, so that gocloud aborts it instead of
// committing a partial file.
func (s *Store) Write(ctx context.Context, key string, r io.Reader, maxBytes int64) (int64, error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, key, &gcblob.WriterOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return 0, fmt.Errorf("blob: write %s: %w", key, err)
	}
	src := r
	if maxBytes > 0 {
		src = io.LimitReader(r, maxBytes+1)
	}
	n, err := io.Copy(w, src)
	if err == nil && maxBytes > 0 && n > maxBytes {
		err = &core.Error{Kind: core.ErrTooLarge, Msg: fmt.Sprintf("file is larger than %d bytes", maxBytes)}
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		_ = w.Close() // aborted: nothing is written
		return 0, fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("blob: write %s: %w", key, err)
	}
	return n, nil
}

// Open returns a reader of key and its size.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	if err := checkKey(key); err != nil {
		return nil, 0, err
	}
	rd, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			err = core.NotFound("File")
		}
		return nil, 0, fmt.Errorf("blob: open %s: %w", key, err)
	}
	return rd, rd.Size(), nil
}

// Delete removes key; a missing one is no error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// DirURL is the file:// URL of a local directory (the default store is
// <data_dir>/blobs); a relative dir is taken from the working directory.
func DirURL(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("blob: empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("blob: %w", err)
	}
	return (&url.URL{Scheme: fileblob.Scheme, Path: filepath.ToSlash(abs)}).String(), nil
}

var _ ports.BlobStore = (*Store)(nil)
