package issues

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// routes lists the module's endpoints under /api/v4.
func routes(s *Service, issues *apijson.IssuePresenter, mrs *apijson.MergeRequestPresenter, todos *apijson.TodoPresenter) httpx.Routes {
	h := handlers{s: s, issues: issues, mrs: mrs, todos: todos}
	const (
		list       = "/projects/{id}/issues"
		one        = list + "/{issue_iid}"
		milestones = "/projects/{id}/milestones"
		milestone  = milestones + "/{milestone_id}"
		labels     = "/projects/{id}/labels"
	)
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	return httpx.Routes{Module: "issues", Routes: []httpx.Route{
		r(http.MethodGet, "/issues", h.listAll),
		r(http.MethodGet, "/groups/{id}/issues", h.listGroup),
		r(http.MethodGet, list, h.list),
		r(http.MethodPost, list, h.create),
		r(http.MethodGet, one, h.get),
		r(http.MethodPut, one, h.update),
		r(http.MethodDelete, one, h.delete),
		r(http.MethodPost, one+"/move", h.move),
		r(http.MethodPost, one+"/subscribe", h.subscribe(true)),
		r(http.MethodPost, one+"/unsubscribe", h.subscribe(false)),
		r(http.MethodPost, one+"/todo", h.todo),
		r(http.MethodPost, one+"/time_estimate", h.trackTime(issuable.SetEstimate, http.StatusOK)),
		r(http.MethodPost, one+"/reset_time_estimate", h.trackTime(issuable.ResetEstimate, http.StatusOK)),
		r(http.MethodPost, one+"/add_spent_time", h.trackTime(issuable.AddSpent, http.StatusCreated)),
		r(http.MethodPost, one+"/reset_spent_time", h.trackTime(issuable.ResetSpent, http.StatusOK)),
		r(http.MethodGet, one+"/time_stats", h.timeStats),

		r(http.MethodGet, milestones, h.listMilestones),
		r(http.MethodPost, milestones, h.createMilestone),
		r(http.MethodGet, milestone, h.getMilestone),
		r(http.MethodPut, milestone, h.updateMilestone),
		r(http.MethodDelete, milestone, h.deleteMilestone),
		r(http.MethodGet, milestone+"/issues", h.milestoneIssues),
		r(http.MethodGet, milestone+"/merge_requests", h.milestoneMergeRequests),

		r(http.MethodGet, labels, h.listLabels),
		r(http.MethodPost, labels, h.createLabel),
		r(http.MethodPut, labels, h.updateLabel),
		r(http.MethodDelete, labels, h.deleteLabel),
	}}
}
