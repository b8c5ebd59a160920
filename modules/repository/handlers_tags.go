package repository

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/repository/tags, newest name first.
func (h handlers) listTags(w http.ResponseWriter, r *http.Request) error {
	var pg domain.Page
	q := decode(r, page(&pg))
	list, total, err := h.s.ListTags(r.Context(), q, pg)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, mapAll(list, newTagJSON), total, pg)
}

// GET /projects/:id/repository/tags/:tag_name
func (h handlers) getTag(w http.ResponseWriter, r *http.Request) error {
	var name string
	q := decode(r, pathParam("tag_name", &name))
	t, err := h.s.GetTag(r.Context(), q, name)
	if err != nil {
		return err
	}
	return httpx.OK(w, newTagJSON(t))
}

// POST /projects/:id/repository/tags
func (h handlers) createTag(w http.ResponseWriter, r *http.Request) error {
	var in CreateTagInput
	q := decode(r, params(&in))
	t, err := h.s.CreateTag(r.Context(), q, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newTagJSON(t))
}

// DELETE /projects/:id/repository/tags/:tag_name
func (h handlers) deleteTag(w http.ResponseWriter, r *http.Request) error {
	var name string
	q := decode(r, pathParam("tag_name", &name))
	if err := h.s.DeleteTag(r.Context(), q, name); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// POST /projects/:id/repository/tags/:tag_name/release
func (h handlers) createRelease(w http.ResponseWriter, r *http.Request) error {
	var in ReleaseInput
	var name string
	q := decode(r, params(&in), pathParam("tag_name", &name))
	rel, err := h.s.CreateRelease(r.Context(), q, name, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newReleaseJSON(rel))
}

// PUT /projects/:id/repository/tags/:tag_name/release
func (h handlers) updateRelease(w http.ResponseWriter, r *http.Request) error {
	var in ReleaseInput
	var name string
	q := decode(r, params(&in), pathParam("tag_name", &name))
	rel, err := h.s.UpdateRelease(r.Context(), q, name, in)
	if err != nil {
		return err
	}
	return httpx.OK(w, newReleaseJSON(rel))
}
