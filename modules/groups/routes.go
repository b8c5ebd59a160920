package groups

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4. The group parameter
// is {id} (numeric ID or URL-encoded full path) everywhere, so patterns
// agree with other modules' /groups/{id}/... routes.
func routes(s *Service, pres *apijson.ProjectPresenter) httpx.Routes {
	h := handlers{s: s, pres: pres}
	return httpx.Routes{Module: "groups", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/groups", Handle: h.list},
		{Method: http.MethodPost, Pattern: "/groups", Handle: h.create},
		{Method: http.MethodGet, Pattern: "/groups/{id}", Handle: h.get},
		{Method: http.MethodPut, Pattern: "/groups/{id}", Handle: h.update},
		{Method: http.MethodDelete, Pattern: "/groups/{id}", Handle: h.remove},
		{Method: http.MethodGet, Pattern: "/groups/{id}/projects", Handle: h.projects},
		{Method: http.MethodPost, Pattern: "/groups/{id}/projects/{project_id}", Handle: h.transfer},
	}}
}
