package groups

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4. The group parameter
// is {id} (numeric ID or URL-encoded full path) everywhere, so patterns
// agree with other modules' /groups/{id}/... routes.
func routes(s *Service) httpx.Routes {
	h := handlers{s}
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	return httpx.Routes{Module: "groups", Routes: []httpx.Route{
		r(http.MethodGet, "/groups", h.list),
		r(http.MethodPost, "/groups", h.create),
		r(http.MethodGet, "/groups/{id}", h.get),
		r(http.MethodPut, "/groups/{id}", h.update),
		r(http.MethodDelete, "/groups/{id}", h.remove),
		r(http.MethodGet, "/groups/{id}/projects", h.projects),
		r(http.MethodPost, "/groups/{id}/projects/{project_id}", h.transfer),
	}}
}
