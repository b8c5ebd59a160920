package meta

import (
	"context"
	"net/http"
	"time"

	"github.com/hearth-forge/hearth/core/httpx"
)

// readinessTimeout bounds the database ping of GET /-/readiness.
const readinessTimeout = 2 * time.Second

type handlers struct{ p params }

// version is GET /version (signed-in callers, as in GitLab).
func (h handlers) version(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	rev := h.p.Build.Revision
	if rev == "" {
		rev = "unknown"
	}
	return httpx.OK(w, map[string]string{"version": Version, "revision": rev})
}

// ok answers the liveness probes: the process serves requests.
func (h handlers) ok(w http.ResponseWriter, _ *http.Request) error {
	return httpx.OK(w, map[string]string{"status": "ok"})
}

// ready is GET /-/readiness: 503 while the database does not answer.
func (h handlers) ready(w http.ResponseWriter, r *http.Request) error {
	if h.p.Pinger != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readinessTimeout)
		defer cancel()
		if err := h.p.Pinger.Ping(ctx); err != nil {
			httpx.Logger(r).Warn("readiness: database does not answer")
			return httpx.JSON(w, http.StatusServiceUnavailable, map[string]any{
				"status": "failed", "checks": map[string]string{"db": "failed"}})
		}
	}
	return httpx.OK(w, map[string]any{"status": "ok", "checks": map[string]string{"db": "ok"}})
}
