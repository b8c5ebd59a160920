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

// Verify checks an archive without restoring anything: the manifest
// (found from the end of the archive) against its checksum, then every
// part's bytes, its tar header and padding included, against the
// manifest, and that the parts cover the archive up to the manifest with
// no gap. A damaged archive is core.ErrInvalid naming the part that fails.
func (s *Service) Verify(ctx context.Context, r io.ReaderAt, size int64, progress Progress) (Manifest, error) {
	return Verify(ctx, r, size, progress)
}

// Verify is Service.Verify, which needs no port: an archive is checked
// without a server.
func Verify(ctx context.Context, r io.ReaderAt, size int64, progress Progress) (Manifest, error) {
	var m Manifest
	manifest, manifestSum, manifestAt, err := findManifest(r, size)
	if err != nil {
		return m, err
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
	var end int64
	for i, p := range m.Parts {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		progress.report("verify: "+p.Name, i, len(m.Parts))
		if p.Offset != end || p.DataOffset < p.Offset || p.End < p.DataOffset+p.Size || p.End > manifestAt {
			return m, fmt.Errorf("backup: part %s: not where the manifest puts it: %w", p.Name, core.ErrInvalid)
		}
		if err := checkPart(r, p); err != nil {
			return m, err
		}
		end = p.End
	}
	if end != manifestAt {
		return m, fmt.Errorf("backup: %d bytes before the manifest belong to no part: %w", manifestAt-end, core.ErrInvalid)
	}
	progress.report("verify", len(m.Parts), len(m.Parts))
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

// findManifest finds the manifest's tar header among the last blocks of
// the archive (tar headers start on 512-byte blocks) and reads it and
// its checksum, which follows it. Nothing before it is read: a damaged
// part cannot hide the manifest.
func findManifest(r io.ReaderAt, size int64) (manifest, sum []byte, at int64, err error) {
	const block = 512
	prefix := []byte(manifestName + "\x00")
	buf := make([]byte, block)
	for off := size/block*block - block; off >= 0 && size-off <= maxManifestBytes+64<<10; off -= block {
		if _, err := r.ReadAt(buf, off); err != nil {
			return nil, nil, 0, fmt.Errorf("backup: read the archive: %w", err)
		}
		if !bytes.HasPrefix(buf, prefix) {
			continue
		}
		tr := tar.NewReader(io.NewSectionReader(r, off, size-off))
		h, err := tr.Next()
		if err != nil || h.Name != manifestName || h.Size > maxManifestBytes {
			continue
		}
		if manifest, err = io.ReadAll(tr); err != nil {
			return nil, nil, 0, fmt.Errorf("backup: part %s: %v: %w", manifestName, err, core.ErrInvalid)
		}
		h, err = tr.Next()
		if err != nil || h.Name != manifestSumName || h.Size > manifestSumMaxSize {
			return nil, nil, 0, fmt.Errorf("backup: part %s: missing or unreadable (%v): %w", manifestSumName, err, core.ErrInvalid)
		}
		if sum, err = io.ReadAll(tr); err != nil {
			return nil, nil, 0, fmt.Errorf("backup: part %s: %v: %w", manifestSumName, err, core.ErrInvalid)
		}
		return manifest, sum, off, nil
	}
	return nil, nil, 0, fmt.Errorf("backup: part %s: not found (not a complete Hearth backup, or its header is damaged): %w", manifestName, core.ErrInvalid)
}
