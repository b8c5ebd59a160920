package broadcasts

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
	const one = "/broadcast_messages/{id}"
	return httpx.Routes{Module: "broadcasts", Routes: []httpx.Route{
		r(http.MethodGet, "/broadcast_messages", h.list),
		r(http.MethodPost, "/broadcast_messages", h.create),
		r(http.MethodGet, one, h.get),
		r(http.MethodPut, one, h.update),
		r(http.MethodDelete, one, h.delete),
	}}
}
