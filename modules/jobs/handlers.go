package jobs

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call one use case and render. Writes refuse anonymous
// callers before reading the request, as GitLab authenticates first.
type handlers struct {
	s       *Service
	present presenter
}

// idParam reads a positive integer path parameter, 0 when it holds no id
// that can exist (the use case answers the 404 in GitLab's order).
func idParam(r *http.Request, name string) (int64, error) {
	id, err := httpx.IDParam(r, name, "Job")
	if errors.Is(err, core.ErrNotFound) {
		return 0, nil
	}
	return id, err
}

// jobPath reads {id} and {job_id}.
func jobPath(r *http.Request) (domain.IDOrPath, int64, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return ref, 0, err
	}
	id, err := idParam(r, "job_id")
	return ref, id, err
}

// listInput reads scope (scope=x or scope[]=x&scope[]=y) and the page.
func listInput(r *http.Request) ListInput {
	var in ListInput
	in.Invalid = httpx.Decode(r, &in)
	if in.Invalid == nil {
		in.Page, in.Invalid = httpx.PageOf(r)
	}
	return in
}

// renderList renders a page of jobs with their pipelines.
func (h handlers) renderList(w http.ResponseWriter, r *http.Request, l *Listed, pg domain.Page, opt apijson.JobOptions) error {
	out, err := h.present.jobs.Render(r.Context(), l.Jobs, opt)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, l.Total, pg)
}

// GET /projects/:id/jobs
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	in := listInput(r)
	l, err := h.s.List(r.Context(), httpx.CallerOf(r), ref, in)
	if err != nil {
		return err
	}
	return h.renderList(w, r, l, in.Page, apijson.JobOptions{Pipeline: true})
}

// GET /projects/:id/pipelines/:pipeline_id/jobs
func (h handlers) listOfPipeline(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	pid, err := idParam(r, "pipeline_id")
	if err != nil {
		return err
	}
	in := listInput(r)
	l, err := h.s.ListOfPipeline(r.Context(), httpx.CallerOf(r), ref, pid, in)
	if err != nil {
		return err
	}
	return h.renderList(w, r, l, in.Page, apijson.JobOptions{Pipeline: true})
}

// GET /projects/:id/jobs/:job_id
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	ref, id, err := jobPath(r)
	if err != nil {
		return err
	}
	f, err := h.s.Get(r.Context(), httpx.CallerOf(r), ref, id)
	if err != nil {
		return err
	}
	out, err := h.present.jobs.One(r.Context(), f.Job, apijson.JobOptions{Pipeline: true})
	if err != nil {
		return err
	}
	return httpx.OK(w, out)
}

// GET /projects/:id/jobs/:job_id/trace: text/plain, the whole log.
func (h handlers) trace(w http.ResponseWriter, r *http.Request) error {
	ref, id, err := jobPath(r)
	if err != nil {
		return err
	}
	d, err := h.s.Trace(r.Context(), httpx.CallerOf(r), ref, id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `infile; filename="`+d.Filename+`"`)
	return stream(w, "text/plain", d)
}

// GET /projects/:id/jobs/:job_id/artifacts
func (h handlers) artifacts(w http.ResponseWriter, r *http.Request) error {
	ref, id, err := jobPath(r)
	if err != nil {
		return err
	}
	d, err := h.s.Artifacts(r.Context(), httpx.CallerOf(r), ref, id)
	if err != nil {
		return err
	}
	return attachment(w, d)
}

// GET /projects/:id/jobs/artifacts/:ref_name/download?job=name
func (h handlers) artifactsOfRef(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	refName, err := httpx.PathParam(r, "ref_name") // a slash in it arrives encoded (%2F)
	if err != nil {
		return err
	}
	var in DownloadInput
	in.Invalid = httpx.Decode(r, &in)
	d, err := h.s.ArtifactsOfRef(r.Context(), httpx.CallerOf(r), ref, refName, in)
	if err != nil {
		return err
	}
	return attachment(w, d)
}

// attachment streams an artifacts archive as a download.
func attachment(w http.ResponseWriter, d *Download) error {
	w.Header().Set("Content-Disposition", "attachment; filename="+strconv.Quote(d.Filename))
	return stream(w, "application/octet-stream", d)
}

// stream copies the file to the client without holding it in memory.
func stream(w http.ResponseWriter, contentType string, d *Download) error {
	defer d.Body.Close()
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.FormatInt(d.Size, 10))
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, d.Body) // the status is sent: a broken copy only cuts the body
	return nil
}

// action runs a write on one job and renders the job without its
// pipeline (the spec's cancel, retry, erase, keep and play responses);
// download adds download_url (erase and keep); shown replaces the status
// shown (play's "started").
func (h handlers) action(w http.ResponseWriter, r *http.Request, status int, download bool,
	do func(r *http.Request, c *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error), shown ...string) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	ref, id, err := jobPath(r)
	if err != nil {
		return err
	}
	j, err := do(r, httpx.CallerOf(r), ref, id)
	if err != nil {
		return err
	}
	out, err := h.present.jobs.One(r.Context(), j, apijson.JobOptions{})
	if err != nil {
		return err
	}
	if len(shown) > 0 {
		out.Status = shown[0]
	}
	if download {
		return httpx.JSON(w, status, actionJSON{Job: *out})
	}
	return httpx.JSON(w, status, out)
}

// POST /projects/:id/jobs/:job_id/cancel: 201 with the job.
func (h handlers) cancel(w http.ResponseWriter, r *http.Request) error {
	return h.action(w, r, http.StatusCreated, false, func(r *http.Request, c *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
		return h.s.Cancel(r.Context(), c, ref, id)
	})
}

// POST /projects/:id/jobs/:job_id/retry: 201 with the new job.
func (h handlers) retry(w http.ResponseWriter, r *http.Request) error {
	return h.action(w, r, http.StatusCreated, false, func(r *http.Request, c *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
		return h.s.Retry(r.Context(), c, ref, id)
	})
}

// POST /projects/:id/jobs/:job_id/erase: 201 with the job.
func (h handlers) erase(w http.ResponseWriter, r *http.Request) error {
	return h.action(w, r, http.StatusCreated, true, func(r *http.Request, c *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
		return h.s.Erase(r.Context(), c, ref, id)
	})
}

// POST /projects/:id/jobs/:job_id/artifacts/keep: 200 with the job.
func (h handlers) keep(w http.ResponseWriter, r *http.Request) error {
	return h.action(w, r, http.StatusOK, true, func(r *http.Request, c *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
		return h.s.Keep(r.Context(), c, ref, id)
	})
}

// POST /projects/:id/jobs/:job_id/play: 200 with the job, whose status
// shows "started" (the spec: "a job response after play shows the status
// started"; the job itself is pending).
func (h handlers) play(w http.ResponseWriter, r *http.Request) error {
	return h.action(w, r, http.StatusOK, false, func(r *http.Request, c *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Job, error) {
		return h.s.Play(r.Context(), c, ref, id)
	}, "started")
}
