package backup

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/ports"
)

func timeUnix(sec int64) time.Time { return time.Unix(sec, 0) }

// Create writes a backup of the running server to w: the tables from one
// snapshot, then the repositories the snapshot knows (bundled after it, so
// every ref the database remembers is in them), then the blobs, then the
// manifest. Parts are spooled through temporary files in tmpDir ("" for
// the system's) because tar needs each part's size before its data.
func (s *Service) Create(ctx context.Context, w io.Writer, tmpDir string, progress Progress) (Manifest, error) {
	m := Manifest{Format: FormatVersion, HearthVersion: version(), CreatedAt: s.p.Clock.Now().UTC()}
	spool, err := os.MkdirTemp(tmpDir, "hearth-backup-")
	if err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	defer os.RemoveAll(spool)
	aw := newArchiveWriter(w)
	mod := m.CreatedAt.Unix()

	var repos, blobKeys []string
	var seqs map[string]int64
	err = s.p.Database.Export(ctx, func(snap ports.DatabaseSnapshot) error {
		m.Schema = snap.Schema()
		if len(m.Schema) > 0 {
			m.SchemaVersion = m.Schema[len(m.Schema)-1]
		}
		tables := snap.Tables()
		for i, t := range tables {
			progress.report("database: "+t, i, len(tables))
			name := tablePartPrefix + t + tablePartSuffix
			var rows int64
			err := spoolPart(spool, aw, name, mod, func(f io.Writer) error {
				zw := gzip.NewWriter(f)
				n, err := snap.WriteTable(ctx, t, zw)
				if err != nil {
					return err
				}
				rows = n
				return zw.Close()
			})
			if err != nil {
				return err
			}
			m.Tables = append(m.Tables, Table{Name: t, Rows: rows, Part: name})
		}
		progress.report("database", len(tables), len(tables))
		var err error
		if seqs, err = snap.Sequences(ctx); err != nil {
			return err
		}
		if repos, err = snap.Repositories(ctx); err != nil {
			return err
		}
		blobKeys, err = snap.BlobKeys(ctx)
		return err
	})
	if err != nil {
		return m, fmt.Errorf("backup: database: %w", err)
	}
	seqJSON, err := json.Marshal(seqs)
	if err != nil {
		return m, err
	}
	if _, err := aw.add(sequencesPart, int64(len(seqJSON)), bytes.NewReader(seqJSON), mod); err != nil {
		return m, err
	}

	// Repositories after the snapshot: git only moves ahead of the
	// database, so every ref and object the rows name is there.
	if len(repos) > 0 && s.p.Bundler == nil {
		return m, fmt.Errorf("backup: the git backend cannot write bundles: %w", core.ErrInvalid)
	}
	for i, repo := range repos {
		progress.report("repositories: "+repo, i, len(repos))
		r := Repository{Name: repo}
		branch, err := s.p.Reader.DefaultBranch(ctx, repo)
		if errors.Is(err, core.ErrNotFound) {
			// Deleted since the snapshot: restored empty.
			s.p.Log.Warn("repository gone since the snapshot; recorded empty")
			r.Empty = true
			m.Repositories = append(m.Repositories, r)
			continue
		}
		if err != nil {
			return m, fmt.Errorf("backup: repository %s: %w", repo, err)
		}
		r.DefaultBranch = branch
		name := repoPartPrefix + repo + repoPartSuffix
		var empty bool
		err = spoolPart(spool, aw, name, mod, func(f io.Writer) error {
			var err error
			empty, err = s.p.Bundler.Bundle(ctx, repo, f)
			if errors.Is(err, core.ErrNotFound) {
				empty, err = true, nil
			}
			return err
		})
		if errors.Is(err, errEmptyPart) || (err == nil && empty) {
			r.Empty = true
		} else if err != nil {
			return m, fmt.Errorf("backup: repository %s: %w", repo, err)
		} else {
			r.Part = name
		}
		m.Repositories = append(m.Repositories, r)
	}
	progress.report("repositories", len(repos), len(repos))

	for i, key := range blobKeys {
		progress.report("blobs: "+key, i, len(blobKeys))
		rc, size, err := s.p.Blobs.Open(ctx, key)
		if errors.Is(err, core.ErrNotFound) {
			continue // a trace not archived yet, or a blob deleted since
		}
		if err != nil {
			return m, fmt.Errorf("backup: blob %s: %w", key, err)
		}
		name := blobPartPrefix + key
		_, err = aw.add(name, size, rc, mod)
		rc.Close()
		if err != nil {
			return m, err
		}
		m.Blobs = append(m.Blobs, Blob{Key: key, Size: size, Part: name})
	}
	progress.report("blobs", len(blobKeys), len(blobKeys))

	m.Parts = aw.parts
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, err
	}
	if _, err := aw.add(manifestName, int64(len(body)), bytes.NewReader(body), mod); err != nil {
		return m, err
	}
	sum := sha256.Sum256(body)
	line := []byte(hex.EncodeToString(sum[:]) + "  " + manifestName + "\n")
	if _, err := aw.add(manifestSumName, int64(len(line)), bytes.NewReader(line), mod); err != nil {
		return m, err
	}
	m.Parts = aw.parts[:len(aw.parts)-2]
	if err := aw.close(); err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	return m, nil
}

// errEmptyPart is a spooled part that turned out to have nothing to add.
var errEmptyPart = errors.New("empty part")

// spoolPart writes a part through a temporary file (tar needs its size
// first) and adds it; a fill that writes nothing adds no part
// (errEmptyPart).
func spoolPart(dir string, aw *archiveWriter, name string, mod int64, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(dir, "part-*")
	if err != nil {
		return fmt.Errorf("backup: %s: %w", name, err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := fill(f); err != nil {
		return fmt.Errorf("backup: %s: %w", name, err)
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("backup: %s: %w", name, err)
	}
	if size == 0 {
		return errEmptyPart
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("backup: %s: %w", name, err)
	}
	_, err = aw.add(name, size, f, mod)
	return err
}
