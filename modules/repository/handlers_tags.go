package repository

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/repository/tags, newest name first.
func (h handlers) listTags(w http.ResponseWriter, r *http.Request) error {
	var pg domain.Page
	q, err := h.decode(r, toRead, page(&pg))
	if err != nil {
		return err
	}
	list, total, err := h.s.ListTags(r.Context(), q.caller, q.ref, pg)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, mapAll(list, newTagJSON), total, pg)
}

// GET /projects/:id/repository/tags/:tag_name
func (h handlers) getTag(w http.ResponseWriter, r *http.Request) error {
	var name string
	q, err := h.decode(r, toRead, pathParam("tag_name", &name))
	if err != nil {
		return err
	}
	t, err := h.s.GetTag(r.Context(), q.caller, q.ref, name)
	if err != nil {
		return err
	}
	return httpx.OK(w, newTagJSON(t))
}

// POST /projects/:id/repository/tags
func (h handlers) createTag(w http.ResponseWriter, r *http.Request) error {
	var in CreateTagInput
	q, err := h.decode(r, toPush, params(&in))
	if err != nil {
		return err
	}
	t, err := h.s.CreateTag(r.Context(), q.caller, q.ref, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newTagJSON(t))
}

// DELETE /projects/:id/repository/tags/:tag_name
func (h handlers) deleteTag(w http.ResponseWriter, r *http.Request) error {
	var name string
	q, err := h.decode(r, toPush, pathParam("tag_name", &name))
	if err != nil {
		return err
	}
	if err := h.s.DeleteTag(r.Context(), q.caller, q.ref, name); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// POST /projects/:id/repository/tags/:tag_name/release
func (h handlers) createRelease(w http.ResponseWriter, r *http.Request) error {
	var in ReleaseInput
	var name string
	q, err := h.decode(r, toPush, params(&in), pathParam("tag_name", &name))
	if err != nil {
		return err
	}
	rel, err := h.s.CreateRelease(r.Context(), q.caller, q.ref, name, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newReleaseJSON(rel))
}

// PUT /projects/:id/repository/tags/:tag_name/release
func (h handlers) updateRelease(w http.ResponseWriter, r *http.Request) error {
	var in ReleaseInput
	var name string
	q, err := h.decode(r, toPush, params(&in), pathParam("tag_name", &name))
	if err != nil {
		return err
	}
	rel, err := h.s.UpdateRelease(r.Context(), q.caller, q.ref, name, in)
	if err != nil {
		return err
	}
	return httpx.OK(w, newReleaseJSON(rel))
}
