package events

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4.
func routes(s *Service, cfg config.Config) httpx.Routes {
	h := handlers{s: s, base: cfg.BaseURL()}
	return httpx.Routes{Module: "events", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/events", Handle: h.own},
		{Method: http.MethodGet, Pattern: "/users/{id}/events", Handle: h.user},
		{Method: http.MethodGet, Pattern: "/projects/{id}/events", Handle: h.project},
	}}
}
