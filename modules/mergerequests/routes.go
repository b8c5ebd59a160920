package mergerequests

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// routes lists the module's endpoints under /api/v4.
func routes(s *Service, mrs *apijson.MergeRequestPresenter, issues *apijson.IssuePresenter, todos *apijson.TodoPresenter) httpx.Routes {
	h := handlers{s: s, mrs: mrs, issues: issues, todos: todos}
	const (
		list = "/projects/{id}/merge_requests"
		one  = list + "/{merge_request_iid}"
	)
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	return httpx.Routes{Module: "mergerequests", Routes: []httpx.Route{
		r(http.MethodGet, "/merge_requests", h.listAll),
		r(http.MethodGet, list, h.list),
		r(http.MethodPost, list, h.create),
		r(http.MethodGet, one, h.get),
		r(http.MethodPut, one, h.update),
		r(http.MethodDelete, one, h.delete),
		r(http.MethodGet, one+"/commits", h.commits),
		r(http.MethodGet, one+"/changes", h.changes),
		r(http.MethodPut, one+"/merge", h.merge),
		r(http.MethodPut, one+"/cancel_merge_when_pipeline_succeeds", h.cancelMerge),
		// Later GitLab releases, and go-gitlab, cancel with POST.
		r(http.MethodPost, one+"/cancel_merge_when_pipeline_succeeds", h.cancelMerge),
		r(http.MethodGet, one+"/closes_issues", h.closesIssues),
		r(http.MethodPost, one+"/subscribe", h.subscribe(true)),
		r(http.MethodPost, one+"/unsubscribe", h.subscribe(false)),
		r(http.MethodPost, one+"/todo", h.todo),
		r(http.MethodPost, one+"/time_estimate", h.trackTime(issuable.SetEstimate, http.StatusOK)),
		r(http.MethodPost, one+"/reset_time_estimate", h.trackTime(issuable.ResetEstimate, http.StatusOK)),
		r(http.MethodPost, one+"/add_spent_time", h.trackTime(issuable.AddSpent, http.StatusCreated)),
		r(http.MethodPost, one+"/reset_spent_time", h.trackTime(issuable.ResetSpent, http.StatusOK)),
		r(http.MethodGet, one+"/time_stats", h.timeStats),
	}}
}
