package notes

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// kind is a noteable kind as the routes name it: its type and the path
// parameter holding its IID (ID for snippets).
type kind struct {
	typ   string // domain.TargetIssue, TargetMergeRequest or TargetSnippet
	param string
}

// routes lists the module's endpoints under /api/v4: the same five notes
// routes for every noteable kind, and the award emoji API on each
// noteable and on its notes.
func routes(s *Service, users ports.UserStore, cfg config.Config) httpx.Routes {
	h := handlers{s: s, present: presenter{users: users, base: cfg.BaseURL()}}
	is := kind{typ: domain.TargetIssue, param: "issue_iid"}
	mr := kind{typ: domain.TargetMergeRequest, param: "merge_request_iid"}
	sn := kind{typ: domain.TargetSnippet, param: "snippet_id"}
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	routes := []httpx.Route{
		r(http.MethodGet, "/projects/{id}/issues/{issue_iid}/notes", h.list(is)),
		r(http.MethodPost, "/projects/{id}/issues/{issue_iid}/notes", h.create(is)),
		r(http.MethodGet, "/projects/{id}/issues/{issue_iid}/notes/{note_id}", h.get(is)),
		r(http.MethodPut, "/projects/{id}/issues/{issue_iid}/notes/{note_id}", h.update(is)),
		r(http.MethodDelete, "/projects/{id}/issues/{issue_iid}/notes/{note_id}", h.delete(is)),

		r(http.MethodGet, "/projects/{id}/merge_requests/{merge_request_iid}/notes", h.list(mr)),
		r(http.MethodPost, "/projects/{id}/merge_requests/{merge_request_iid}/notes", h.create(mr)),
		r(http.MethodGet, "/projects/{id}/merge_requests/{merge_request_iid}/notes/{note_id}", h.get(mr)),
		r(http.MethodPut, "/projects/{id}/merge_requests/{merge_request_iid}/notes/{note_id}", h.update(mr)),
		r(http.MethodDelete, "/projects/{id}/merge_requests/{merge_request_iid}/notes/{note_id}", h.delete(mr)),

		r(http.MethodGet, "/projects/{id}/snippets/{snippet_id}/notes", h.list(sn)),
		r(http.MethodPost, "/projects/{id}/snippets/{snippet_id}/notes", h.create(sn)),
		r(http.MethodGet, "/projects/{id}/snippets/{snippet_id}/notes/{note_id}", h.get(sn)),
		r(http.MethodPut, "/projects/{id}/snippets/{snippet_id}/notes/{note_id}", h.update(sn)),
		r(http.MethodDelete, "/projects/{id}/snippets/{snippet_id}/notes/{note_id}", h.delete(sn)),
	}
	for _, k := range []struct {
		kind
		base string
	}{
		{is, "/projects/{id}/issues/{issue_iid}"},
		{mr, "/projects/{id}/merge_requests/{merge_request_iid}"},
		{sn, "/projects/{id}/snippets/{snippet_id}"},
	} {
		for _, onNote := range []bool{false, true} {
			awards := k.base + "/award_emoji"
			if onNote {
				awards = k.base + "/notes/{note_id}/award_emoji"
			}
			routes = append(routes,
				r(http.MethodGet, awards, h.listAwards(k.kind, onNote)),
				r(http.MethodPost, awards, h.createAward(k.kind, onNote)),
				r(http.MethodGet, awards+"/{award_id}", h.getAward(k.kind, onNote)),
				r(http.MethodDelete, awards+"/{award_id}", h.deleteAward(k.kind, onNote)),
			)
		}
	}
	return httpx.Routes{Module: "notes", Routes: routes}
}
