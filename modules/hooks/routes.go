package hooks

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4.
func routes(s *Service) httpx.Routes {
	h := handlers{s: s}
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	const one = "/projects/{id}/hooks/{hook_id}"
	return httpx.Routes{Module: "hooks", Routes: []httpx.Route{
		// System hooks (administrators).
		r(http.MethodGet, "/hooks", h.listSystem),
		r(http.MethodPost, "/hooks", h.createSystem),
		r(http.MethodGet, "/hooks/{id}", h.testSystem),
		r(http.MethodDelete, "/hooks/{id}", h.deleteSystem),
		r(http.MethodGet, "/projects/{id}/hooks", h.list),
		r(http.MethodPost, "/projects/{id}/hooks", h.create),
		r(http.MethodGet, one, h.get),
		r(http.MethodPut, one, h.update),
		r(http.MethodDelete, one, h.delete),
		// Recent deliveries, as later GitLab's hook events API.
		r(http.MethodGet, one+"/events", h.listDeliveries),
		r(http.MethodPost, one+"/events/{hook_log_id}/resend", h.resend),
		r(http.MethodPost, one+"/test/{trigger}", h.trigger),
	}}
}
