package jobs

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4.
func routes(s *Service, p presenter) httpx.Routes {
	h := handlers{s: s, present: p}
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	const one = "/projects/{id}/jobs/{job_id}"
	return httpx.Routes{Module: "jobs", Routes: []httpx.Route{
		r(http.MethodGet, "/projects/{id}/jobs", h.list),
		r(http.MethodGet, "/projects/{id}/pipelines/{pipeline_id}/jobs", h.listOfPipeline),
		r(http.MethodGet, one, h.get),
		r(http.MethodGet, one+"/artifacts", h.artifacts),
		r(http.MethodGet, "/projects/{id}/jobs/artifacts/{ref_name}/download", h.artifactsOfRef),
		r(http.MethodGet, one+"/trace", h.trace),
		r(http.MethodPost, one+"/cancel", h.cancel),
		r(http.MethodPost, one+"/retry", h.retry),
		r(http.MethodPost, one+"/erase", h.erase),
		r(http.MethodPost, one+"/artifacts/keep", h.keep),
		r(http.MethodPost, one+"/play", h.play),
		r(http.MethodGet, "/runners/{runner_id}/jobs", h.runnerJobs),
		r(http.MethodGet, "/projects/{id}/repository/commits/{sha}/statuses", h.statuses),
		r(http.MethodPost, "/projects/{id}/statuses/{sha}", h.postStatus),
	}}
}
