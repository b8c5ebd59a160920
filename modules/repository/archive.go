package repository

import (
	"context"
	"io"
	"strings"

	"github.com/hearth-forge/hearth/core"
)

// Archive is a repository archive ready to be written: its file name
// (without extension) and format ("tar.gz", "tar.bz2", "tar" or "zip",
// also the extension).
type Archive struct {
	Name   string
	Format string
	write  func(w io.Writer) error
}

// Write writes the archive to w; a failure before the first byte is a
// core error (404 File for what the backend cannot find).
func (a Archive) Write(w io.Writer) error { return a.write(w) }

// Archive prepares the archive of in.SHA (the default branch when empty).
// The format comes from the path suffix (an unknown one is 404 File) or
// the format parameter (an unknown one falls back to tar.gz, as GitLab's
// workhorse does).
func (s *Service) Archive(ctx context.Context, req Request, in ArchiveInput) (Archive, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return Archive{}, err
	}
	format := "tar.gz"
	if in.Suffix != "" {
		f, ok := archiveFormat(in.Suffix)
		if !ok {
			return Archive{}, core.NotFound("File")
		}
		format = f
	} else if f, ok := archiveFormat(in.Format); ok {
		format = f
	}
	rev := in.SHA
	if rev == "" {
		rev = defaultRef(t.Project)
	}
	repo := repoOf(t.Project)
	sha, err := s.p.Reader.Resolve(ctx, repo, rev)
	if err != nil {
		return Archive{}, backendErr(err, "File", "resolve archive ref")
	}
	name := safeFileName(t.Project.Path + "-" + strings.ReplaceAll(rev, "/", "-") + "-" + sha)
	return Archive{Name: name, Format: format, write: func(w io.Writer) error {
		if err := s.p.Reader.Archive(ctx, repo, sha, format, name, w); err != nil {
			return backendErr(err, "File", "archive")
		}
		return nil
	}}, nil
}
