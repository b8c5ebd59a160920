// Package meta serves what clients and orchestrators ask about the server
// itself: GET /api/v4/version and the /-/health, /-/readiness and /-/liveness probes.
package meta

import (
	"context"
	"net/http"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Version is what GET /version reports: GitLab's API level with Hearth's suffix.
const Version = "9.5.10-hearth"

// Build carries the source revision; the app sets it from build info.
type Build struct{ Revision string }

// Module registers the meta routes.
var Module = fx.Module("meta",
	fx.Provide(
		httpx.AsRoutes(apiRoutes),
		httpx.AsRoutes(probeRoutes),
	),
)

type params struct {
	fx.In
	Build  Build        `optional:"true"`
	Pinger ports.Pinger `optional:"true"`
}

func apiRoutes(p params) httpx.Routes {
	return httpx.Routes{Module: "meta", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/version", Handle: func(w http.ResponseWriter, r *http.Request) error {
			if _, err := httpx.RequireUser(r); err != nil {
				return err
			}
			rev := p.Build.Revision
			if rev == "" {
				rev = "unknown"
			}
			return httpx.OK(w, map[string]string{"version": Version, "revision": rev})
		}},
	}}
}

func probeRoutes(p params) httpx.Routes {
	ok := func(w http.ResponseWriter, _ *http.Request) error {
		return httpx.OK(w, map[string]string{"status": "ok"})
	}
	ready := func(w http.ResponseWriter, r *http.Request) error {
		if p.Pinger != nil {
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			defer cancel()
			if err := p.Pinger.Ping(ctx); err != nil {
				httpx.Logger(r).Warn("readiness: database does not answer")
				return httpx.JSON(w, http.StatusServiceUnavailable, map[string]any{
					"status": "failed", "checks": map[string]string{"db": "failed"}})
			}
		}
		return httpx.OK(w, map[string]any{"status": "ok", "checks": map[string]string{"db": "ok"}})
	}
	return httpx.Routes{Module: "meta-probes", Root: true, Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/-/health", Handle: ok},
		{Method: http.MethodGet, Pattern: "/-/liveness", Handle: ok},
		{Method: http.MethodGet, Pattern: "/-/readiness", Handle: ready},
	}}
}
