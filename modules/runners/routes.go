package runners

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the runner protocol (which authenticates runner and job
// tokens itself) and the runners API, under /api/v4.
func routes(s *Service, cfg config.Config) httpx.Routes {
	h := handlers{s: s}
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	runner := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn, SelfAuth: true}
	}
	trace := runner(http.MethodPatch, "/jobs/{job_id}/trace", h.patchTrace)
	trace.RawBody, trace.MaxBodyBytes = true, maxTracePatch
	upload := runner(http.MethodPost, "/jobs/{job_id}/artifacts", h.uploadArtifacts)
	// The multipart envelope adds a little to the file; the file itself is
	// capped exactly by the blob store's limit.
	upload.RawBody, upload.MaxBodyBytes = true, cfg.CI.MaxArtifactsBytes+multipartSlack
	return httpx.Routes{Module: "runners", Routes: []httpx.Route{
		runner(http.MethodPost, "/runners", h.register),
		runner(http.MethodDelete, "/runners", h.unregister),
		runner(http.MethodPost, "/runners/verify", h.verify),
		runner(http.MethodDelete, "/runners/managers", h.unregisterManager),
		runner(http.MethodPost, "/jobs/request", h.requestJob),
		runner(http.MethodPut, "/jobs/{job_id}", h.updateJob),
		trace,
		upload,
		runner(http.MethodGet, "/jobs/{job_id}/artifacts", h.downloadArtifacts),
		runner(http.MethodPost, "/jobs/{job_id}/artifacts/authorize", h.authorizeArtifacts),

		r(http.MethodGet, "/runners", h.listOwned),
		r(http.MethodGet, "/runners/all", h.listAll),
		r(http.MethodGet, "/runners/{runner_id}", h.get),
		r(http.MethodPut, "/runners/{runner_id}", h.update),
		r(http.MethodDelete, "/runners/{runner_id}", h.delete),
		r(http.MethodGet, "/projects/{id}/runners", h.projectRunners),
		r(http.MethodPost, "/projects/{id}/runners", h.enable),
		r(http.MethodDelete, "/projects/{id}/runners/{runner_id}", h.disable),
		r(http.MethodPost, "/projects/{id}/runners/reset_registration_token", h.resetRegistrationToken),
	}}
}
