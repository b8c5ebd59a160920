package backup

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/ports"
)

// Restore writes an archive into this server's database, repositories and
// blob store, which must be empty (no row in the database, none of the
// archive's repositories or blobs present) unless force is set: then the
// database's rows and those repositories and blobs are replaced. Every
// checksum is verified before anything is written. The schema is brought
// to the backup's version, the rows imported, then migrated forward when
// the backup is older than this build.
func (s *Service) Restore(ctx context.Context, r io.ReaderAt, size int64, force bool, progress Progress) (Manifest, error) {
	m, err := s.Verify(ctx, r, size, progress)
	if err != nil {
		return m, err
	}
	if len(m.Repositories) > 0 && s.p.Bundler == nil {
		return m, fmt.Errorf("backup: restore: the git backend cannot read bundles: %w", core.ErrInvalid)
	}
	occupied, err := s.occupied(ctx, m)
	if err != nil {
		return m, err
	}
	if len(occupied) > 0 && !force {
		return m, fmt.Errorf("backup: restore: the target is not empty (%s); restore into an empty database and data directory, or pass --force to replace what is there: %w",
			strings.Join(occupied, "; "), core.ErrConflict)
	}

	progress.report("database", 0, len(m.Tables))
	seqPart, _ := m.part(sequencesPart)
	var seqs map[string]int64
	if err := json.NewDecoder(io.LimitReader(dataOf(r, seqPart), maxSequencesBytes)).Decode(&seqs); err != nil {
		return m, fmt.Errorf("backup: part %s: %v: %w", sequencesPart, err, core.ErrInvalid)
	}
	in := ports.DatabaseImport{Schema: m.Schema, Sequences: seqs}
	parts := map[string]Part{}
	for _, t := range m.Tables {
		in.Tables = append(in.Tables, t.Name)
		parts[t.Name], _ = m.part(t.Part)
	}
	in.Open = func(table string) (io.ReadCloser, error) {
		p, ok := parts[table]
		if !ok {
			return nil, fmt.Errorf("backup: no part for table %s: %w", table, core.ErrInvalid)
		}
		progress.report("database: "+table, 0, 0)
		zr, err := gzip.NewReader(dataOf(r, p))
		if err != nil {
			return nil, fmt.Errorf("backup: part %s: %v: %w", p.Name, err, core.ErrInvalid)
		}
		return zr, nil
	}
	if err := s.p.Database.Import(ctx, in); err != nil {
		return m, fmt.Errorf("backup: restore database: %w", err)
	}
	progress.report("database", len(m.Tables), len(m.Tables))

	for i, repo := range m.Repositories {
		progress.report("repositories: "+repo.Name, i, len(m.Repositories))
		if force {
			if err := s.p.Repos.Delete(ctx, repo.Name); err != nil {
				return m, fmt.Errorf("backup: restore repository %s: %w", repo.Name, err)
			}
		}
		var body io.Reader
		if !repo.Empty {
			p, _ := m.part(repo.Part)
			body = dataOf(r, p)
		}
		branch := repo.DefaultBranch
		if branch == "" {
			branch = "main"
		}
		if err := s.p.Bundler.Unbundle(ctx, repo.Name, branch, body); err != nil {
			return m, fmt.Errorf("backup: restore repository %s: %w", repo.Name, err)
		}
	}
	progress.report("repositories", len(m.Repositories), len(m.Repositories))

	for i, b := range m.Blobs {
		progress.report("blobs: "+b.Key, i, len(m.Blobs))
		p, _ := m.part(b.Part)
		if _, err := s.p.Blobs.Write(ctx, b.Key, dataOf(r, p), 0); err != nil {
			return m, fmt.Errorf("backup: restore blob %s: %w", b.Key, err)
		}
	}
	progress.report("blobs", len(m.Blobs), len(m.Blobs))
	return m, nil
}

// occupied describes what of the archive's content the target already
// holds.
func (s *Service) occupied(ctx context.Context, m Manifest) ([]string, error) {
	var found []string
	empty, err := s.p.Database.Empty(ctx)
	if err != nil {
		return nil, fmt.Errorf("backup: restore: %w", err)
	}
	if !empty {
		found = append(found, "the database holds rows")
	}
	for _, repo := range m.Repositories {
		ok, err := s.p.Repos.Exists(ctx, repo.Name)
		if err != nil {
			return nil, fmt.Errorf("backup: restore: repository %s: %w", repo.Name, err)
		}
		if ok {
			found = append(found, "repository "+repo.Name+" exists")
			break
		}
	}
	for _, b := range m.Blobs {
		rc, _, err := s.p.Blobs.Open(ctx, b.Key)
		if errors.Is(err, core.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("backup: restore: blob %s: %w", b.Key, err)
		}
		rc.Close()
		found = append(found, "blob "+b.Key+" exists")
		break
	}
	return found, nil
}

// dataOf reads a part's data.
func dataOf(r io.ReaderAt, p Part) io.Reader { return io.NewSectionReader(r, p.DataOffset, p.Size) }
