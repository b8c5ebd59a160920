package issues

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// GET /projects/:id/milestones
func (h handlers) listMilestones(w http.ResponseWriter, r *http.Request) error {
	var in MilestoneListInput
	pg, pgErr := httpx.PageOf(r)
	in.Page, in.Invalid = pg, issuable.FirstError(httpx.Decode(r, &in), pgErr)
	list, total, err := h.s.ListMilestones(r.Context(), httpx.CallerOf(r), refOf(r), in)
	if err != nil {
		return err
	}
	out := make([]*apijson.Milestone, 0, len(list))
	for i := range list {
		out = append(out, apijson.MilestoneOf(&list[i]))
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// GET /projects/:id/milestones/:milestone_id
func (h handlers) getMilestone(w http.ResponseWriter, r *http.Request) error {
	m, err := h.s.GetMilestone(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "milestone_id"))
	return replyMilestone(w, http.StatusOK, m, err)
}

// POST /projects/:id/milestones
func (h handlers) createMilestone(w http.ResponseWriter, r *http.Request) error {
	var in MilestoneCreateInput
	in.Invalid = httpx.Decode(r, &in)
	m, err := h.s.CreateMilestone(r.Context(), httpx.CallerOf(r), refOf(r), in)
	return replyMilestone(w, http.StatusCreated, m, err)
}

// PUT /projects/:id/milestones/:milestone_id
func (h handlers) updateMilestone(w http.ResponseWriter, r *http.Request) error {
	var in MilestoneUpdateInput
	in.Invalid = httpx.Decode(r, &in)
	m, err := h.s.UpdateMilestone(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "milestone_id"), in)
	return replyMilestone(w, http.StatusOK, m, err)
}

// DELETE /projects/:id/milestones/:milestone_id
func (h handlers) deleteMilestone(w http.ResponseWriter, r *http.Request) error {
	if err := h.s.DeleteMilestone(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "milestone_id")); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// GET /projects/:id/milestones/:milestone_id/issues
func (h handlers) milestoneIssues(w http.ResponseWriter, r *http.Request) error {
	in := pageOf(r)
	list, total, err := h.s.MilestoneIssues(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "milestone_id"), in)
	return h.replyList(w, r, list, total, in.Page, err)
}

// GET /projects/:id/milestones/:milestone_id/merge_requests
func (h handlers) milestoneMergeRequests(w http.ResponseWriter, r *http.Request) error {
	in := pageOf(r)
	list, total, err := h.s.MilestoneMergeRequests(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "milestone_id"), in)
	if err != nil {
		return err
	}
	out, err := h.mrs.Render(r.Context(), httpx.CallerOf(r), list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, in.Page)
}

func replyMilestone(w http.ResponseWriter, status int, m *domain.Milestone, err error) error {
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, apijson.MilestoneOf(m))
}

func pageOf(r *http.Request) issuable.PageInput {
	pg, err := httpx.PageOf(r)
	return issuable.PageInput{Page: pg, Invalid: err}
}
