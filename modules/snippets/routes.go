package snippets

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// routes lists the module's endpoints under /api/v4.
func routes(s *Service, users ports.UserStore, namespaces ports.NamespaceStore, cfg config.Config) httpx.Routes {
	h := handlers{s: s, present: presenter{users: users, namespaces: namespaces, base: cfg.BaseURL()}}
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	return httpx.Routes{Module: "snippets", Routes: []httpx.Route{
		r(http.MethodGet, "/projects/{id}/snippets", h.list),
		r(http.MethodPost, "/projects/{id}/snippets", h.create),
		r(http.MethodGet, "/projects/{id}/snippets/{snippet_id}", h.get),
		r(http.MethodPut, "/projects/{id}/snippets/{snippet_id}", h.update),
		r(http.MethodDelete, "/projects/{id}/snippets/{snippet_id}", h.delete),
		r(http.MethodGet, "/projects/{id}/snippets/{snippet_id}/raw", h.raw),
		r(http.MethodGet, "/projects/{id}/snippets/{snippet_id}/user_agent_detail", h.userAgentDetail),
		// Personal snippets.
		r(http.MethodGet, "/snippets", h.listPersonal(false)),
		r(http.MethodGet, "/snippets/public", h.listPersonal(true)),
		r(http.MethodPost, "/snippets", h.createPersonal),
		r(http.MethodGet, "/snippets/{id}", h.getPersonal),
		r(http.MethodPut, "/snippets/{id}", h.updatePersonal),
		r(http.MethodDelete, "/snippets/{id}", h.deletePersonal),
		r(http.MethodGet, "/snippets/{id}/raw", h.rawPersonal),
		r(http.MethodGet, "/snippets/{id}/user_agent_detail", h.personalUserAgentDetail),
	}}
}
