package repository

import (
	"fmt"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/repository/tree
func (h handlers) tree(w http.ResponseWriter, r *http.Request) error {
	var in TreeInput
	var pg domain.Page
	q := decode(r, params(&in), page(&pg))
	entries, total, err := h.s.Tree(r.Context(), q, in, pg)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, mapAll(entries, newTreeEntryJSON), total, pg)
}

// filePath decodes the URL-encoded {file_path}: neither empty nor holding
// a NUL byte.
func filePath(dst *string) decoder {
	return func(r *http.Request) error {
		s, err := httpx.PathParam(r, "file_path")
		if err != nil {
			return err
		}
		if s == "" || strings.ContainsRune(s, 0) {
			return core.InvalidParam("file_path")
		}
		*dst = s
		return nil
	}
}

// GET /projects/:id/repository/files/:file_path
func (h handlers) getFile(w http.ResponseWriter, r *http.Request) error {
	var path string
	var in FileReadInput
	q := decode(r, filePath(&path), params(&in))
	f, err := h.s.File(r.Context(), q, path, in)
	if err != nil {
		return err
	}
	return httpx.OK(w, newFileJSON(f, in.Ref))
}

// GET /projects/:id/repository/files/:file_path/raw
func (h handlers) rawFile(w http.ResponseWriter, r *http.Request) error {
	var path string
	var in FileReadInput
	q := decode(r, filePath(&path), params(&in))
	f, err := h.s.RawFile(r.Context(), q, path, in)
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

// fileWrite is how the files API answers one kind of write.
type fileWrite struct {
	action string
	status int // 0: 204 without a body
}

var (
	createFile = fileWrite{domain.FileCreate, http.StatusCreated}
	updateFile = fileWrite{domain.FileUpdate, http.StatusOK}
	deleteFile = fileWrite{domain.FileDelete, 0}
)

// POST, PUT and DELETE /projects/:id/repository/files/:file_path
func (h handlers) writeFile(fw fileWrite) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var path string
		var in FileWriteInput
		q := decode(r, filePath(&path), params(&in))
		if err := h.s.WriteFile(r.Context(), q, fw.action, path, in); err != nil {
			return err
		}
		if fw.status == 0 {
			return httpx.NoContent(w)
		}
		return httpx.JSON(w, fw.status, fileCommitJSON{FilePath: path, Branch: in.Branch})
	}
}

// GET /projects/:id/repository/blobs/:sha[/raw], rendered by render.
func (h handlers) blob(render func(http.ResponseWriter, domain.Blob) error) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var sha string
		q := decode(r, pathParam("sha", &sha))
		b, err := h.s.Blob(r.Context(), q, sha)
		if err != nil {
			return err
		}
		return render(w, b)
	}
}

// blobJSONOf renders a blob as GitLab's JSON, blobRaw as its bytes.
func blobJSONOf(w http.ResponseWriter, b domain.Blob) error { return httpx.OK(w, newBlobJSON(b)) }
func blobRaw(w http.ResponseWriter, b domain.Blob) error    { return rawBytes(w, b.Content) }

// GET /projects/:id/repository/compare
func (h handlers) compare(w http.ResponseWriter, r *http.Request) error {
	var in CompareInput
	q := decode(r, params(&in))
	c, err := h.s.Compare(r.Context(), q, in)
	if err != nil {
		return err
	}
	return httpx.OK(w, newCompareJSON(c))
}

// GET /projects/:id/repository/archive[.format] streams the archive. The
// headers go out with its first byte, so a backend failure before any
// output is still answered as an error; one midway leaves the client a
// truncated archive.
func (h handlers) archive(w http.ResponseWriter, r *http.Request) error {
	var in ArchiveInput
	q := decode(r, params(&in), pathParam("format", &in.Suffix))
	a, err := h.s.Archive(r.Context(), q, in)
	if err != nil {
		return err
	}
	aw := &archiveWriter{w: w, header: func() {
		w.Header().Set("Content-Type", archiveType(a.Format))
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.%s"`, a.Name, a.Format))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
	}}
	if err := a.Write(aw); err != nil {
		if !aw.started {
			return err
		}
		httpx.Logger(r).Error("archive failed midway", zap.String("archive", a.Name), zap.Error(err))
	}
	if !aw.started {
		aw.header()
	}
	return nil
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

// archiveWriter sends the headers with the first byte.
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

// GET /projects/:id/repository/contributors answers one page of the list,
// which GitLab builds whole and pages in memory.
func (h handlers) contributors(w http.ResponseWriter, r *http.Request) error {
	var in ContributorsInput
	var pg domain.Page
	q := decode(r, params(&in), page(&pg))
	list, err := h.s.Contributors(r.Context(), q, in)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, mapAll(pageOf(list, pg), newContributorJSON), len(list), pg)
}
