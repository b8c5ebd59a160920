package ci

import (
	"errors"
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call one use case and render. Writes refuse anonymous
// callers before reading the request, as GitLab authenticates first.
type handlers struct {
	s       *Service
	present apijson.PipelinePresenter
}

// pipelineID reads {pipeline_id}; anything but a number is reported by
// the use case after its access checks.
func pipelineID(r *http.Request) PipelineID {
	n, err := httpx.IntPathParam(r, "pipeline_id")
	return PipelineID{ID: n, Invalid: err}
}

// reply renders one full pipeline.
func (h handlers) reply(w http.ResponseWriter, r *http.Request, status int, p *domain.Pipeline) error {
	out, err := h.present.Pipeline(r.Context(), p)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out)
}

// GET /projects/:id/pipelines
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in ListInput
	if err := in.Problems.Decode(r, &in); err != nil {
		return err
	}
	pg, perr := httpx.PageOf(r)
	var ce *core.Error
	if errors.As(perr, &ce) {
		in.Problems.Add(ce.Msg)
		pg = domain.Page{Page: 1, PerPage: httpx.DefaultPerPage}
	}
	in.Page = pg
	l, err := h.s.List(r.Context(), httpx.CallerOf(r), ref, in)
	if err != nil {
		return err
	}
	out := make([]apijson.PipelineBasic, 0, len(l.Pipelines))
	for i := range l.Pipelines {
		out = append(out, apijson.PipelineBasicOf(&l.Pipelines[i]))
	}
	return httpx.Paginated(w, r, out, l.Total, in.Page)
}

// GET /projects/:id/pipelines/:pipeline_id
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	p, err := h.s.Get(r.Context(), httpx.CallerOf(r), ref, pipelineID(r))
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, p)
}

// POST /projects/:id/pipeline?ref=
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in CreateInput
	in.Invalid = httpx.Decode(r, &in)
	p, err := h.s.Create(r.Context(), httpx.CallerOf(r), ref, in)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusCreated, p)
}

// writePath reads {id} after refusing anonymous callers.
func writePath(r *http.Request) (domain.IDOrPath, error) { return httpx.SignedInRef(r, "id") }

// POST /projects/:id/pipelines/:pipeline_id/retry: 201 with the pipeline.
func (h handlers) retry(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	p, err := h.s.Retry(r.Context(), httpx.CallerOf(r), ref, pipelineID(r))
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusCreated, p)
}

// POST /projects/:id/pipelines/:pipeline_id/cancel: 200 with the pipeline
// (GitLab sets the status explicitly).
func (h handlers) cancel(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	p, err := h.s.Cancel(r.Context(), httpx.CallerOf(r), ref, pipelineID(r))
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, p)
}

// DELETE /projects/:id/pipelines/:pipeline_id: 204.
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), httpx.CallerOf(r), ref, pipelineID(r)); err != nil {
		return err
	}
	return httpx.NoContent(w)
}
