package todos

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4. The handlers render
// todos with the shared presenter, which embeds their issues and merge
// requests.
func routes(s *Service, present *apijson.TodoPresenter) httpx.Routes {
	h := handlers{s: s, present: present}
	return httpx.Routes{Module: "todos", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/todos", Handle: h.list},
		{Method: http.MethodPost, Pattern: "/todos/mark_as_done", Handle: h.markAllDone},
		{Method: http.MethodPost, Pattern: "/todos/{id}/mark_as_done", Handle: h.markDone},
	}}
}
