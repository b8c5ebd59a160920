package meta

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// apiRoutes are under /api/v4.
func apiRoutes(p params) httpx.Routes {
	h := handlers{p}
	return httpx.Routes{Module: "meta", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/version", Handle: h.version},
	}}
}

// probeRoutes are at the root, for orchestrators.
func probeRoutes(p params) httpx.Routes {
	h := handlers{p}
	return httpx.Routes{Module: "meta-probes", Root: true, Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/-/health", Handle: h.ok},
		{Method: http.MethodGet, Pattern: "/-/liveness", Handle: h.ok},
		{Method: http.MethodGet, Pattern: "/-/readiness", Handle: h.ready},
	}}
}
