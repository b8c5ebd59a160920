package backup

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"runtime/debug"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the ports backups read and write. Bundler is optional: a
// git backend without bundles cannot back up or restore repositories.
type Params struct {
	fx.In
	Database ports.DatabaseBackup
	Bundler  ports.RepoBundler `optional:"true"`
	Repos    ports.RepoStorage
	Reader   ports.RepoReader
	Blobs    ports.BlobStore
	Clock    ports.Clock
	Log      *zap.Logger
}

// Service creates, verifies and restores backups.
type Service struct {
	p Params
}

// NewService returns the backup service.
func NewService(p Params) *Service {
	p.Log = p.Log.Named("backup")
	return &Service{p: p}
}

// Progress is told of each step: what is being done, and how far along
// (done of total items; total 0 when unknown).
type Progress func(step string, done, total int)

func (p Progress) report(step string, done, total int) {
	if p != nil {
		p(step, done, total)
	}
}

// version is Hearth's module version and VCS revision, when the binary
// knows them.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			v += " (" + s.Value + ")"
		}
	}
	return v
}

// archiveWriter writes the tar and records where every part lands and the
// digest of its whole span.
type archiveWriter struct {
	w     *countingWriter
	tw    *tar.Writer
	parts []Part
}

type countingWriter struct {
	w    io.Writer
	n    int64
	span hash.Hash
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.span.Write(p[:n])
	return n, err
}

func newArchiveWriter(w io.Writer) *archiveWriter {
	cw := &countingWriter{w: w, span: sha256.New()}
	return &archiveWriter{w: cw, tw: tar.NewWriter(cw)}
}

// add writes one part of size bytes read from r.
func (a *archiveWriter) add(name string, size int64, r io.Reader, modTime int64) (Part, error) {
	if err := a.tw.Flush(); err != nil {
		return Part{}, err
	}
	a.w.span.Reset()
	p := Part{Name: name, Size: size, Offset: a.w.n}
	hdr := &tar.Header{Name: name, Mode: 0o600, Size: size, Typeflag: tar.TypeReg}
	if modTime > 0 {
		hdr.ModTime = timeUnix(modTime)
	}
	if err := a.tw.WriteHeader(hdr); err != nil {
		return Part{}, fmt.Errorf("backup: write %s: %w", name, err)
	}
	p.DataOffset = a.w.n
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(a.tw, sum), r)
	if err != nil {
		return Part{}, fmt.Errorf("backup: write %s: %w", name, err)
	}
	if n != size {
		return Part{}, fmt.Errorf("backup: write %s: %d bytes, expected %d", name, n, size)
	}
	// Flush writes the padding, which belongs to the span.
	if err := a.tw.Flush(); err != nil {
		return Part{}, fmt.Errorf("backup: write %s: %w", name, err)
	}
	p.End = a.w.n
	p.SHA256 = hex.EncodeToString(sum.Sum(nil))
	p.SpanSHA256 = hex.EncodeToString(a.w.span.Sum(nil))
	a.parts = append(a.parts, p)
	return p, nil
}

func (a *archiveWriter) close() error { return a.tw.Close() }
