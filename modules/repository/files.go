package repository

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	pathpkg "path"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// fileRoutes lists the tree, file, blob, compare and archive endpoints.
func (h handlers) fileRoutes() []httpx.Route {
	const base = "/projects/{id}/repository"
	return []httpx.Route{
		{Method: http.MethodGet, Pattern: base + "/tree", Handle: h.tree},
		{Method: http.MethodGet, Pattern: base + "/files/{file_path}", Handle: h.getFile},
		{Method: http.MethodGet, Pattern: base + "/files/{file_path}/raw", Handle: h.rawFile},
		{Method: http.MethodPost, Pattern: base + "/files/{file_path}", Handle: h.createFile},
		{Method: http.MethodPut, Pattern: base + "/files/{file_path}", Handle: h.updateFile},
		{Method: http.MethodDelete, Pattern: base + "/files/{file_path}", Handle: h.deleteFile},
		{Method: http.MethodGet, Pattern: base + "/blobs/{sha}", Handle: h.getBlob},
		{Method: http.MethodGet, Pattern: base + "/blobs/{sha}/raw", Handle: h.rawBlob},
		{Method: http.MethodGet, Pattern: base + "/compare", Handle: h.compare},
		{Method: http.MethodGet, Pattern: base + "/archive", Handle: h.archive},
		{Method: http.MethodGet, Pattern: base + "/archive.{format}", Handle: h.archive},
	}
}

// GET /projects/:id/repository/tree
func (h handlers) tree(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	var in struct {
		Ref       string `param:"ref"`
		Path      string `param:"path"`
		Recursive bool   `param:"recursive"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	ref := in.Ref
	if ref == "" {
		ref = defaultRef(p)
	}
	entries, err := h.s.p.Repos.Tree(r.Context(), repoOf(p), ref, strings.Trim(in.Path, "/"), in.Recursive)
	if err != nil {
		return backendErr(err, "Tree", "read tree")
	}
	out := make([]treeEntryJSON, 0, len(entries))
	for _, e := range entries {
		out = append(out, newTreeEntryJSON(e))
	}
	return httpx.Paginated(w, r, pageOf(out, pg), len(out), pg)
}

// filePathParam reads the URL-encoded {file_path}.
func filePathParam(r *http.Request) (string, error) {
	s, err := httpx.PathParam(r, "file_path")
	if err != nil {
		return "", err
	}
	if s == "" || strings.ContainsRune(s, 0) {
		return "", core.InvalidParam("file_path")
	}
	return s, nil
}

// readFile is the preamble of the file reads: ref is required, an unknown
// ref is 404 Commit, an unknown path 404 File (GitLab 9.x).
func (h handlers) readFile(r *http.Request, withLastCommit bool) (domain.File, string, error) {
	p, _, err := h.readable(r)
	if err != nil {
		return domain.File{}, "", err
	}
	path, err := filePathParam(r)
	if err != nil {
		return domain.File{}, "", err
	}
	var in struct {
		Ref string `param:"ref,required"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return domain.File{}, "", err
	}
	ctx, repo := r.Context(), repoOf(p)
	sha, err := h.s.p.Repos.Resolve(ctx, repo, in.Ref)
	if err != nil {
		return domain.File{}, "", backendErr(err, "Commit", "resolve ref")
	}
	if !withLastCommit {
		f, err := h.s.blobAt(ctx, repo, sha, path)
		return f, in.Ref, err
	}
	f, err := h.s.p.Repos.File(ctx, repo, sha, path)
	if err != nil {
		return domain.File{}, "", backendErr(err, "File", "read file")
	}
	return f, in.Ref, nil
}

// blobAt reads the blob at path of commit sha through its directory's
// tree, without the history walk File makes for LastCommitID (tens of
// milliseconds on a long history), which the raw endpoint does not show.
func (s *Service) blobAt(ctx context.Context, repo, sha, filePath string) (domain.File, error) {
	dir, name := pathpkg.Split(filePath)
	entries, err := s.p.Repos.Tree(ctx, repo, sha, strings.TrimSuffix(dir, "/"), false)
	if err != nil {
		return domain.File{}, backendErr(err, "File", "read file")
	}
	for _, e := range entries {
		if e.Name != name || e.Type != "blob" {
			continue
		}
		b, err := s.p.Repos.Blob(ctx, repo, e.ID)
		if err != nil {
			return domain.File{}, backendErr(err, "File", "read file")
		}
		return domain.File{Path: filePath, Name: name, BlobID: e.ID, Mode: e.Mode, Size: b.Size, Content: b.Content, CommitID: sha}, nil
	}
	return domain.File{}, core.NotFound("File")
}

// GET /projects/:id/repository/files/:file_path
func (h handlers) getFile(w http.ResponseWriter, r *http.Request) error {
	f, ref, err := h.readFile(r, true)
	if err != nil {
		return err
	}
	return httpx.OK(w, newFileJSON(f, ref))
}

// GET /projects/:id/repository/files/:file_path/raw
func (h handlers) rawFile(w http.ResponseWriter, r *http.Request) error {
	f, _, err := h.readFile(r, false)
	if err != nil {
		return err
	}
	return rawBytes(w, f.Content)
}

// rawBytes serves file content as text/plain (API-CONVENTIONS), never
// sniffed by browsers.
func rawBytes(w http.ResponseWriter, b []byte) error {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	return httpx.Text(w, http.StatusOK, b)
}

// fileWrite decodes the parameters of a file write and makes the commit.
func (h handlers) fileWrite(r *http.Request, action string) (string, string, error) {
	caller, p, rights, err := h.writable(r, domain.Developer)
	if err != nil {
		return "", "", err
	}
	path, err := filePathParam(r)
	if err != nil {
		return "", "", err
	}
	var in struct {
		Branch        string  `param:"branch,required,nul"`
		CommitMessage string  `param:"commit_message,required"`
		Content       *string `param:"content"`
		Encoding      string  `param:"encoding"`
		StartBranch   string  `param:"start_branch"`
		AuthorEmail   string  `param:"author_email"`
		AuthorName    string  `param:"author_name"`
		LastCommitID  string  `param:"last_commit_id"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return "", "", err
	}
	fa := domain.FileAction{Action: action, Path: path}
	if action != domain.FileDelete {
		if in.Content == nil {
			return "", "", core.MissingParam("content")
		}
		fa.Content, err = decodeContent(*in.Content, in.Encoding, "content", "encoding")
		if err != nil {
			return "", "", err
		}
	}
	fc := fileCommit{
		branch: in.Branch, startBranch: in.StartBranch, message: in.CommitMessage,
		authorName: in.AuthorName, authorEmail: in.AuthorEmail, actions: []domain.FileAction{fa},
	}
	if action == domain.FileUpdate {
		fc.lastCommitID = in.LastCommitID
	}
	if _, err := h.s.commitFiles(r.Context(), caller, p, rights, fc); err != nil {
		return "", "", err
	}
	return path, in.Branch, nil
}

// POST /projects/:id/repository/files/:file_path
func (h handlers) createFile(w http.ResponseWriter, r *http.Request) error {
	path, branch, err := h.fileWrite(r, domain.FileCreate)
	if err != nil {
		return err
	}
	return httpx.Created(w, fileCommitJSON{FilePath: path, Branch: branch})
}

// PUT /projects/:id/repository/files/:file_path
func (h handlers) updateFile(w http.ResponseWriter, r *http.Request) error {
	path, branch, err := h.fileWrite(r, domain.FileUpdate)
	if err != nil {
		return err
	}
	return httpx.OK(w, fileCommitJSON{FilePath: path, Branch: branch})
}

// DELETE /projects/:id/repository/files/:file_path
func (h handlers) deleteFile(w http.ResponseWriter, r *http.Request) error {
	if _, _, err := h.fileWrite(r, domain.FileDelete); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// blobOf reads the blob {sha} names.
func (h handlers) blobOf(r *http.Request) (domain.Blob, error) {
	p, _, err := h.readable(r)
	if err != nil {
		return domain.Blob{}, err
	}
	sha, err := revParam(r, "sha", "Blob")
	if err != nil {
		return domain.Blob{}, err
	}
	b, err := h.s.p.Repos.Blob(r.Context(), repoOf(p), sha)
	if err != nil {
		return domain.Blob{}, backendErr(err, "Blob", "read blob")
	}
	return b, nil
}

// GET /projects/:id/repository/blobs/:sha
func (h handlers) getBlob(w http.ResponseWriter, r *http.Request) error {
	b, err := h.blobOf(r)
	if err != nil {
		return err
	}
	return httpx.OK(w, newBlobJSON(b))
}

// GET /projects/:id/repository/blobs/:sha/raw
func (h handlers) rawBlob(w http.ResponseWriter, r *http.Request) error {
	b, err := h.blobOf(r)
	if err != nil {
		return err
	}
	return rawBytes(w, b.Content)
}

// GET /projects/:id/repository/compare: the commits of `to` that `from`
// lacks (oldest first) and the diff from their merge base to `to`, as
// GitLab 9.x's Gitlab::Git::Compare; unknown refs compare as empty.
func (h handlers) compare(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	var in struct {
		From     string `param:"from,required"`
		To       string `param:"to,required"`
		Straight bool   `param:"straight"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	ctx, repo := r.Context(), repoOf(p)
	out := compareJSON{Commits: []commitJSON{}, Diffs: []diffJSON{}}
	from, err := h.s.p.Repos.Resolve(ctx, repo, strings.TrimSpace(in.From))
	if err == nil {
		var to string
		to, err = h.s.p.Repos.Resolve(ctx, repo, strings.TrimSpace(in.To))
		if err == nil {
			if from == to {
				out.CompareSameRef = true
				return httpx.OK(w, out)
			}
			return h.compareCommits(w, ctx, repo, from, to, in.Straight, out)
		}
	}
	if errors.Is(err, core.ErrNotFound) {
		return httpx.OK(w, out)
	}
	return backendErr(err, "Ref", "resolve compared ref")
}

func (h handlers) compareCommits(w http.ResponseWriter, ctx context.Context, repo, from, to string, straight bool, out compareJSON) error {
	commits, err := h.s.p.Repos.Log(ctx, repo, domain.LogQuery{Ref: to, Exclude: []string{from}})
	if err != nil {
		return backendErr(err, "Ref", "compare commits")
	}
	slices.Reverse(commits)
	for _, c := range commits {
		out.Commits = append(out.Commits, newCommitJSON(c))
	}
	if n := len(out.Commits); n > 0 {
		last := out.Commits[n-1]
		out.Commit = &last
	}
	base := from
	if !straight {
		mb, err := h.s.p.Repos.MergeBase(ctx, repo, from, to)
		if err != nil {
			return backendErr(err, "Ref", "merge base")
		}
		if mb != "" {
			base = mb
		}
	}
	diffs, err := h.s.p.Repos.Diff(ctx, repo, base, to)
	if err != nil {
		return backendErr(err, "Ref", "compare diff")
	}
	out.Diffs = newDiffsJSON(diffs)
	return httpx.OK(w, out)
}

// archiveFormat maps GitLab's archive format names and extensions to the
// backend's format, which is also the served file's extension.
func archiveFormat(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "tar.gz", "tgz", "gz":
		return "tar.gz", true
	case "tar.bz2", "tbz", "tbz2", "tb2", "bz2":
		return "tar.bz2", true
	case "tar":
		return "tar", true
	case "zip":
		return "zip", true
	}
	return "", false
}

// archiveType is the media type of an archive format.
func archiveType(format string) string {
	switch format {
	case "tar.bz2":
		return "application/x-bzip2"
	case "tar":
		return "application/x-tar"
	case "zip":
		return "application/zip"
	}
	return "application/gzip"
}

// GET /projects/:id/repository/archive[.format]: sha (default branch when
// omitted); format from the path suffix or the format parameter; unknown
// format parameters fall back to tar.gz as GitLab's workhorse does.
func (h handlers) archive(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	var in struct {
		SHA    string `param:"sha"`
		Format string `param:"format"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	format := "tar.gz"
	suffix, err := httpx.PathParam(r, "format")
	if err != nil {
		return err
	}
	if suffix != "" {
		f, ok := archiveFormat(suffix)
		if !ok {
			return core.NotFound("File")
		}
		format = f
	} else if f, ok := archiveFormat(in.Format); ok {
		format = f
	}
	ref := in.SHA
	if ref == "" {
		ref = defaultRef(p)
	}
	ctx, repo := r.Context(), repoOf(p)
	sha, err := h.s.p.Repos.Resolve(ctx, repo, ref)
	if err != nil {
		return backendErr(err, "File", "resolve archive ref")
	}
	name := safeFileName(p.Path + "-" + strings.ReplaceAll(ref, "/", "-") + "-" + sha)
	aw := &archiveWriter{w: w, header: func() {
		w.Header().Set("Content-Type", archiveType(format))
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.%s"`, name, format))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
	}}
	if err := h.s.p.Repos.Archive(ctx, repo, sha, format, name, aw); err != nil {
		if !aw.started {
			return backendErr(err, "File", "archive")
		}
		// The status is sent; the client sees a truncated archive.
		httpx.Logger(r).Error("archive failed midway", zap.Int64("project_id", p.ID), zap.Error(err))
	}
	if !aw.started {
		aw.header()
	}
	return nil
}

// archiveWriter sends the headers with the first byte, so a backend
// failure before any output can still be answered as an error.
type archiveWriter struct {
	w       http.ResponseWriter
	header  func()
	started bool
}

func (a *archiveWriter) Write(b []byte) (int, error) {
	if !a.started {
		a.started = true
		a.header()
	}
	return a.w.Write(b)
}

// safeFileName keeps an archive name to characters every client accepts
// in a Content-Disposition filename and a tar prefix.
func safeFileName(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			return c
		}
		return '-'
	}, s)
}
