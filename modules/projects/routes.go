package projects

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4. The project parameter
// is {id} (numeric ID or URL-encoded full path) everywhere, as in every
// module that shares /projects/{id}/...
func routes(s *Service, pres *apijson.ProjectPresenter) httpx.Routes {
	h := handlers{s: s, pres: pres}
	return httpx.Routes{Module: "projects", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/projects", Handle: h.list},
		{Method: http.MethodPost, Pattern: "/projects", Handle: h.create},
		{Method: http.MethodPost, Pattern: "/projects/user/{user_id}", Handle: h.createForUser},
		{Method: http.MethodGet, Pattern: "/users/{user_id}/projects", Handle: h.userProjects},
		{Method: http.MethodGet, Pattern: "/projects/{id}", Handle: h.get},
		{Method: http.MethodPut, Pattern: "/projects/{id}", Handle: h.update},
		{Method: http.MethodDelete, Pattern: "/projects/{id}", Handle: h.remove},
		{Method: http.MethodGet, Pattern: "/projects/{id}/users", Handle: h.users},
		{Method: http.MethodPost, Pattern: "/projects/{id}/star", Handle: h.star(true)},
		{Method: http.MethodPost, Pattern: "/projects/{id}/unstar", Handle: h.star(false)},
		{Method: http.MethodPost, Pattern: "/projects/{id}/archive", Handle: h.archive(true)},
		{Method: http.MethodPost, Pattern: "/projects/{id}/unarchive", Handle: h.archive(false)},
		{Method: http.MethodPost, Pattern: "/projects/{id}/fork", Handle: h.fork},
		{Method: http.MethodPost, Pattern: "/projects/{id}/share", Handle: h.share},
		{Method: http.MethodDelete, Pattern: "/projects/{id}/share/{group_id}", Handle: h.unshare},
		{Method: http.MethodGet, Pattern: "/namespaces", Handle: h.namespaces},
	}}
}
