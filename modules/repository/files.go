package repository

import (
	"context"
	pathpkg "path"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Tree lists one page of the tree at in.Path of in.Ref (the default
// branch when empty), directories first, and how many entries there are.
func (s *Service) Tree(ctx context.Context, req Request, in TreeInput, pg domain.Page) ([]domain.TreeEntry, int, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return nil, 0, err
	}
	rev := in.Ref
	if rev == "" {
		rev = defaultRef(t.Project)
	}
	entries, err := s.p.Reader.Tree(ctx, repoOf(t.Project), rev, strings.Trim(in.Path, "/"), in.Recursive)
	if err != nil {
		return nil, 0, backendErr(err, "Tree", "read tree")
	}
	return pageOf(entries, pg), len(entries), nil
}

// File reads the file at path of in.Ref with the last commit that changed
// it: an unknown ref is 404 Commit, an unknown path 404 File (GitLab 9.x).
func (s *Service) File(ctx context.Context, req Request, path string, in FileReadInput) (domain.File, error) {
	repo, sha, err := s.fileRev(ctx, req, in)
	if err != nil {
		return domain.File{}, err
	}
	f, err := s.p.Reader.File(ctx, repo, sha, path)
	if err != nil {
		return domain.File{}, backendErr(err, "File", "read file")
	}
	return f, nil
}

// RawFile reads the content of the file at path of in.Ref, without the
// history walk File makes for LastCommitID (tens of milliseconds on a long
// history), which the raw endpoint does not show.
func (s *Service) RawFile(ctx context.Context, req Request, path string, in FileReadInput) (domain.File, error) {
	repo, sha, err := s.fileRev(ctx, req, in)
	if err != nil {
		return domain.File{}, err
	}
	dir, name := pathpkg.Split(path)
	entries, err := s.p.Reader.Tree(ctx, repo, sha, strings.TrimSuffix(dir, "/"), false)
	if err != nil {
		return domain.File{}, backendErr(err, "File", "read file")
	}
	for _, e := range entries {
		if e.Name != name || e.Type != "blob" {
			continue
		}
		b, err := s.p.Reader.Blob(ctx, repo, e.ID)
		if err != nil {
			return domain.File{}, backendErr(err, "File", "read file")
		}
		return domain.File{Path: path, Name: name, BlobID: e.ID, Mode: e.Mode, Size: b.Size, Content: b.Content, CommitID: sha}, nil
	}
	return domain.File{}, core.NotFound("File")
}

// fileRev is where both file reads start: the repository and the commit
// in.Ref names.
func (s *Service) fileRev(ctx context.Context, req Request, in FileReadInput) (repo, sha string, err error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return "", "", err
	}
	repo = repoOf(t.Project)
	sha, err = s.p.Reader.Resolve(ctx, repo, in.Ref)
	if err != nil {
		return "", "", backendErr(err, "Commit", "resolve ref")
	}
	return repo, sha, nil
}

// WriteFile creates, updates or deletes (action) the file at path in one
// commit on in.Branch.
func (s *Service) WriteFile(ctx context.Context, req Request, action, path string, in FileWriteInput) error {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return err
	}
	fa, err := fileAction(action, path, in)
	if err != nil {
		return err
	}
	fc := fileCommit{
		branch: in.Branch, startBranch: in.StartBranch, message: in.CommitMessage,
		authorName: in.AuthorName, authorEmail: in.AuthorEmail, actions: []domain.FileAction{fa},
	}
	if action == domain.FileUpdate {
		fc.lastCommitID = in.LastCommitID
	}
	_, err = s.commitFiles(ctx, t, fc)
	return err
}

// Blob reads a blob by its full or abbreviated object name.
func (s *Service) Blob(ctx context.Context, req Request, sha string) (domain.Blob, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return domain.Blob{}, err
	}
	if sha == "" {
		return domain.Blob{}, core.NotFound("Blob")
	}
	b, err := s.p.Reader.Blob(ctx, repoOf(t.Project), sha)
	if err != nil {
		return domain.Blob{}, backendErr(err, "Blob", "read blob")
	}
	return b, nil
}
