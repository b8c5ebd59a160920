package todos

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4.
func routes(s *Service) httpx.Routes {
	h := handlers{s}
	return httpx.Routes{Module: "todos", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/todos", Handle: h.list},
		{Method: http.MethodPost, Pattern: "/todos/mark_as_done", Handle: h.markAllDone},
		{Method: http.MethodPost, Pattern: "/todos/{id}/mark_as_done", Handle: h.markDone},
	}}
}
