package jobs

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/repository/commits/:sha/statuses
func (h handlers) statuses(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	sha, err := httpx.PathParam(r, "sha")
	if err != nil {
		return err
	}
	var in StatusesInput
	in.Invalid = httpx.Decode(r, &in)
	if in.Invalid == nil {
		in.Page, in.Invalid = httpx.PageOf(r)
	}
	l, err := h.s.Statuses(r.Context(), httpx.CallerOf(r), ref, sha, in)
	if err != nil {
		return err
	}
	out, err := h.present.statuses(r.Context(), l.Jobs)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, l.Total, in.Page)
}

// POST /projects/:id/statuses/:sha: 201 with the status.
func (h handlers) postStatus(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	sha, err := httpx.PathParam(r, "sha")
	if err != nil {
		return err
	}
	var in StatusInput
	in.Invalid = httpx.Decode(r, &in)
	j, err := h.s.PostStatus(r.Context(), httpx.CallerOf(r), ref, sha, in)
	if err != nil {
		return err
	}
	out, err := h.present.statuses(r.Context(), []domain.Job{*j})
	if err != nil {
		return err
	}
	return httpx.Created(w, out[0])
}
