package repository

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/protected_branches
func (h handlers) listProtectedBranches(w http.ResponseWriter, r *http.Request) error {
	var pg domain.Page
	q := decode(r, page(&pg))
	list, total, err := h.s.ListProtectedBranches(r.Context(), q, pg)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, mapAll(list, newProtectedBranchJSON), total, pg)
}

// GET /projects/:id/protected_branches/:name
func (h handlers) getProtectedBranch(w http.ResponseWriter, r *http.Request) error {
	var name string
	q := decode(r, pathParam("name", &name))
	b, err := h.s.GetProtectedBranch(r.Context(), q, name)
	if err != nil {
		return err
	}
	return httpx.OK(w, newProtectedBranchJSON(b))
}

// POST /projects/:id/protected_branches
func (h handlers) createProtectedBranch(w http.ResponseWriter, r *http.Request) error {
	var in CreateProtectedBranchInput
	q := decode(r, params(&in))
	b, err := h.s.CreateProtectedBranch(r.Context(), q, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newProtectedBranchJSON(b))
}

// DELETE /projects/:id/protected_branches/:name answers 204.
func (h handlers) deleteProtectedBranch(w http.ResponseWriter, r *http.Request) error {
	var name string
	q := decode(r, pathParam("name", &name))
	if err := h.s.DeleteProtectedBranch(r.Context(), q, name); err != nil {
		return err
	}
	return httpx.NoContent(w)
}
