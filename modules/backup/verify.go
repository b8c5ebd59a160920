package backup

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hearth-forge/hearth/core"
)

// entry is a file of the tar as read back.
type entry struct {
	name       string
	dataOffset int64
	size       int64
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Verify checks an archive without restoring anything: the manifest
// against its checksum, then every part's bytes (its tar header and
// padding included) against the manifest. A damaged archive is
// core.ErrInvalid naming the part that fails.
func (s *Service) Verify(ctx context.Context, r io.ReaderAt, size int64, progress Progress) (Manifest, error) {
	return Verify(ctx, r, size, progress)
}

// Verify is Service.Verify, which needs no port: an archive is checked
// without a server.
func Verify(ctx context.Context, r io.ReaderAt, size int64, progress Progress) (Manifest, error) {
	var m Manifest
	entries, manifest, manifestSum, err := walk(r, size)
	if err != nil {
		return m, err
	}
	if manifest == nil || manifestSum == nil {
		return m, fmt.Errorf("backup: part %s: missing (not a complete Hearth backup): %w", manifestName, core.ErrInvalid)
	}
	sum := sha256.Sum256(manifest)
	want, _, _ := strings.Cut(string(manifestSum), " ")
	if hex.EncodeToString(sum[:]) != strings.TrimSpace(want) {
		return m, fmt.Errorf("backup: part %s: checksum mismatch: %w", manifestName, core.ErrInvalid)
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return m, fmt.Errorf("backup: part %s: %v: %w", manifestName, err, core.ErrInvalid)
	}
	if m.Format != FormatVersion {
		return m, fmt.Errorf("backup: archive format %d, this build reads %d: %w", m.Format, FormatVersion, core.ErrInvalid)
	}
	byName := map[string]entry{}
	for _, e := range entries {
		byName[e.name] = e
	}
	listed := map[string]bool{manifestName: true, manifestSumName: true}
	for i, p := range m.Parts {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		progress.report("verify: "+p.Name, i, len(m.Parts))
		listed[p.Name] = true
		e, ok := byName[p.Name]
		if !ok {
			return m, fmt.Errorf("backup: part %s: missing from the archive: %w", p.Name, core.ErrInvalid)
		}
		if e.dataOffset != p.DataOffset || e.size != p.Size || p.End < p.DataOffset+p.Size {
			return m, fmt.Errorf("backup: part %s: not where the manifest puts it: %w", p.Name, core.ErrInvalid)
		}
		if err := checkPart(r, p); err != nil {
			return m, err
		}
	}
	progress.report("verify", len(m.Parts), len(m.Parts))
	for _, e := range entries {
		if !listed[e.name] {
			return m, fmt.Errorf("backup: part %s: not in the manifest: %w", e.name, core.ErrInvalid)
		}
	}
	refs := []string{sequencesPart}
	for _, t := range m.Tables {
		refs = append(refs, t.Part)
	}
	for _, repo := range m.Repositories {
		if !repo.Empty {
			refs = append(refs, repo.Part)
		}
	}
	for _, b := range m.Blobs {
		refs = append(refs, b.Part)
	}
	for _, name := range refs {
		if _, ok := m.part(name); !ok {
			return m, fmt.Errorf("backup: part %s: named by the manifest but not listed: %w", name, core.ErrInvalid)
		}
	}
	return m, nil
}

// checkPart hashes the part's whole span and its data in one read.
func checkPart(r io.ReaderAt, p Part) error {
	span, data := sha256.New(), sha256.New()
	copyRange := func(w io.Writer, from, to int64) error {
		_, err := io.Copy(w, io.NewSectionReader(r, from, to-from))
		return err
	}
	err := copyRange(span, p.Offset, p.DataOffset)
	if err == nil {
		err = copyRange(io.MultiWriter(span, data), p.DataOffset, p.DataOffset+p.Size)
	}
	if err == nil {
		err = copyRange(span, p.DataOffset+p.Size, p.End)
	}
	if err != nil {
		return fmt.Errorf("backup: part %s: %w", p.Name, err)
	}
	if hex.EncodeToString(data.Sum(nil)) != p.SHA256 {
		return fmt.Errorf("backup: part %s: checksum mismatch (data): %w", p.Name, core.ErrInvalid)
	}
	if hex.EncodeToString(span.Sum(nil)) != p.SpanSHA256 {
		return fmt.Errorf("backup: part %s: checksum mismatch (tar header or padding): %w", p.Name, core.ErrInvalid)
	}
	return nil
}

// walk reads the tar's headers, and the manifest and its checksum. A
// header tar cannot read is reported with the name it appears to carry
// and the last part read before it.
func walk(r io.ReaderAt, size int64) (entries []entry, manifest, manifestSum []byte, err error) {
	cr := &countingReader{r: io.NewSectionReader(r, 0, size)}
	tr := tar.NewReader(cr)
	last := "(none: the first part)"
	for {
		off := cr.n
		h, err := tr.Next()
		if err == io.EOF {
			return entries, manifest, manifestSum, nil
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("backup: part %s: unreadable tar header at offset %d (the part after %s): %v: %w",
				headerName(r, off), off, last, err, core.ErrInvalid)
		}
		e := entry{name: h.Name, dataOffset: cr.n, size: h.Size}
		entries = append(entries, e)
		last = h.Name
		switch h.Name {
		case manifestName, manifestSumName:
			limit := int64(maxManifestBytes)
			if h.Name == manifestSumName {
				limit = manifestSumMaxSize
			}
			if h.Size > limit {
				return nil, nil, nil, fmt.Errorf("backup: part %s: too large: %w", h.Name, core.ErrInvalid)
			}
			body, err := io.ReadAll(tr)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("backup: part %s: %v: %w", h.Name, err, core.ErrInvalid)
			}
			if h.Name == manifestName {
				manifest = body
			} else {
				manifestSum = body
			}
		}
	}
}

// headerName is the name field of the (damaged) tar header at off, as far
// as it reads.
func headerName(r io.ReaderAt, off int64) string {
	buf := make([]byte, 100)
	n, _ := r.ReadAt(buf, off)
	name, _, _ := bytes.Cut(buf[:n], []byte{0})
	if len(name) == 0 {
		return "(unnamed)"
	}
	return fmt.Sprintf("%q", name)
}
