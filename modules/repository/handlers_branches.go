package repository

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/repository/branches
func (h handlers) listBranches(w http.ResponseWriter, r *http.Request) error {
	var pg domain.Page
	q := decode(r, page(&pg))
	list, total, err := h.s.ListBranches(r.Context(), q, pg)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, mapAll(list, newBranchJSON), total, pg)
}

// GET /projects/:id/repository/branches/:branch
func (h handlers) getBranch(w http.ResponseWriter, r *http.Request) error {
	var name string
	q := decode(r, pathParam("branch", &name))
	b, err := h.s.GetBranch(r.Context(), q, name)
	if err != nil {
		return err
	}
	return httpx.OK(w, newBranchJSON(b))
}

// POST /projects/:id/repository/branches
func (h handlers) createBranch(w http.ResponseWriter, r *http.Request) error {
	var in CreateBranchInput
	q := decode(r, params(&in))
	b, err := h.s.CreateBranch(r.Context(), q, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newBranchJSON(b))
}

// DELETE /projects/:id/repository/branches/:branch
func (h handlers) deleteBranch(w http.ResponseWriter, r *http.Request) error {
	var name string
	q := decode(r, pathParam("branch", &name))
	if err := h.s.DeleteBranch(r.Context(), q, name); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// DELETE /projects/:id/repository/merged_branches answers 202 as GitLab
// does, though the branches are gone by then.
func (h handlers) deleteMergedBranches(w http.ResponseWriter, r *http.Request) error {
	q := decode(r)
	if err := h.s.DeleteMergedBranches(r.Context(), q); err != nil {
		return err
	}
	return httpx.JSON(w, http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// PUT /projects/:id/repository/branches/:branch/protect
func (h handlers) protectBranch(w http.ResponseWriter, r *http.Request) error {
	var in ProtectBranchInput
	var name string
	q := decode(r, params(&in), pathParam("branch", &name))
	b, err := h.s.ProtectBranch(r.Context(), q, name, in)
	if err != nil {
		return err
	}
	return httpx.OK(w, newBranchJSON(b))
}

// PUT /projects/:id/repository/branches/:branch/unprotect
func (h handlers) unprotectBranch(w http.ResponseWriter, r *http.Request) error {
	var name string
	q := decode(r, pathParam("branch", &name))
	b, err := h.s.UnprotectBranch(r.Context(), q, name)
	if err != nil {
		return err
	}
	return httpx.OK(w, newBranchJSON(b))
}
