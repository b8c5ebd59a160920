package repository

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/repository/branches
func (h handlers) listBranches(w http.ResponseWriter, r *http.Request) error {
	var pg domain.Page
	q, err := h.decode(r, toRead, page(&pg))
	if err != nil {
		return err
	}
	list, total, err := h.s.ListBranches(r.Context(), q.caller, q.ref, pg)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, mapAll(list, newBranchJSON), total, pg)
}

// GET /projects/:id/repository/branches/:branch
func (h handlers) getBranch(w http.ResponseWriter, r *http.Request) error {
	var name string
	q, err := h.decode(r, toRead, pathParam("branch", &name))
	if err != nil {
		return err
	}
	b, err := h.s.GetBranch(r.Context(), q.caller, q.ref, name)
	if err != nil {
		return err
	}
	return httpx.OK(w, newBranchJSON(b))
}

// POST /projects/:id/repository/branches
func (h handlers) createBranch(w http.ResponseWriter, r *http.Request) error {
	var in CreateBranchInput
	q, err := h.decode(r, toPush, params(&in))
	if err != nil {
		return err
	}
	b, err := h.s.CreateBranch(r.Context(), q.caller, q.ref, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newBranchJSON(b))
}

// DELETE /projects/:id/repository/branches/:branch
func (h handlers) deleteBranch(w http.ResponseWriter, r *http.Request) error {
	var name string
	q, err := h.decode(r, toPush, pathParam("branch", &name))
	if err != nil {
		return err
	}
	if err := h.s.DeleteBranch(r.Context(), q.caller, q.ref, name); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// DELETE /projects/:id/repository/merged_branches answers 202 as GitLab
// does, though the branches are gone by then.
func (h handlers) deleteMergedBranches(w http.ResponseWriter, r *http.Request) error {
	q, err := h.decode(r, toPush)
	if err != nil {
		return err
	}
	if err := h.s.DeleteMergedBranches(r.Context(), q.caller, q.ref); err != nil {
		return err
	}
	return httpx.JSON(w, http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// PUT /projects/:id/repository/branches/:branch/protect
func (h handlers) protectBranch(w http.ResponseWriter, r *http.Request) error {
	var in ProtectBranchInput
	var name string
	q, err := h.decode(r, toAdmin, params(&in), pathParam("branch", &name))
	if err != nil {
		return err
	}
	b, err := h.s.ProtectBranch(r.Context(), q.caller, q.ref, name, in)
	if err != nil {
		return err
	}
	return httpx.OK(w, newBranchJSON(b))
}

// PUT /projects/:id/repository/branches/:branch/unprotect
func (h handlers) unprotectBranch(w http.ResponseWriter, r *http.Request) error {
	var name string
	q, err := h.decode(r, toAdmin, pathParam("branch", &name))
	if err != nil {
		return err
	}
	b, err := h.s.UnprotectBranch(r.Context(), q.caller, q.ref, name)
	if err != nil {
		return err
	}
	return httpx.OK(w, newBranchJSON(b))
}
