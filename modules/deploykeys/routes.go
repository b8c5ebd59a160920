package deploykeys

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
	const one = "/projects/{id}/deploy_keys/{key_id}"
	return httpx.Routes{Module: "deploykeys", Routes: []httpx.Route{
		r(http.MethodGet, "/deploy_keys", h.listAll),
		r(http.MethodGet, "/projects/{id}/deploy_keys", h.list),
		r(http.MethodPost, "/projects/{id}/deploy_keys", h.create),
		r(http.MethodGet, one, h.get),
		r(http.MethodPut, one, h.update),
		r(http.MethodDelete, one, h.disable),
		r(http.MethodPost, one+"/enable", h.enable),
	}}
}
