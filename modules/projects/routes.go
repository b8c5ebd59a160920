package projects

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4. The project parameter
// is {id} (numeric ID or URL-encoded full path) everywhere, as in every
// module that shares /projects/{id}/...
func routes(s *Service) httpx.Routes {
	h := handlers{s}
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	return httpx.Routes{Module: "projects", Routes: []httpx.Route{
		r(http.MethodGet, "/projects", h.list),
		r(http.MethodPost, "/projects", h.create),
		r(http.MethodPost, "/projects/user/{user_id}", h.createForUser),
		r(http.MethodGet, "/users/{user_id}/projects", h.userProjects),
		r(http.MethodGet, "/projects/{id}", h.get),
		r(http.MethodPut, "/projects/{id}", h.update),
		r(http.MethodDelete, "/projects/{id}", h.remove),
		r(http.MethodGet, "/projects/{id}/users", h.users),
		r(http.MethodPost, "/projects/{id}/star", h.star(true)),
		r(http.MethodPost, "/projects/{id}/unstar", h.star(false)),
		r(http.MethodPost, "/projects/{id}/archive", h.archive(true)),
		r(http.MethodPost, "/projects/{id}/unarchive", h.archive(false)),
		r(http.MethodPost, "/projects/{id}/fork", h.fork),
		r(http.MethodPost, "/projects/{id}/share", h.share),
		r(http.MethodDelete, "/projects/{id}/share/{group_id}", h.unshare),
		r(http.MethodGet, "/namespaces", h.namespaces),
	}}
}
