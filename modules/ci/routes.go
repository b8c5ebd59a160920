package ci

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// routes lists the module's endpoints under /api/v4.
func routes(s *Service, users ports.UserStore, cfg config.Config) httpx.Routes {
	h := handlers{s: s, present: apijson.PipelinePresenter{Users: users, Base: cfg.BaseURL()}}
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	const one = "/projects/{id}/pipelines/{pipeline_id}"
	return httpx.Routes{Module: "ci", Routes: []httpx.Route{
		r(http.MethodGet, "/projects/{id}/pipelines", h.list),
		r(http.MethodPost, "/projects/{id}/pipeline", h.create),
		r(http.MethodGet, one, h.get),
		r(http.MethodPost, one+"/retry", h.retry),
		r(http.MethodPost, one+"/cancel", h.cancel),
		r(http.MethodDelete, one, h.delete),
		r(http.MethodGet, "/projects/{id}/variables", h.variables),
		r(http.MethodPost, "/projects/{id}/variables", h.createVariable),
		r(http.MethodGet, "/projects/{id}/variables/{key}", h.variable),
		r(http.MethodPut, "/projects/{id}/variables/{key}", h.updateVariable),
		r(http.MethodDelete, "/projects/{id}/variables/{key}", h.deleteVariable),
		r(http.MethodGet, "/projects/{id}/triggers", h.triggers),
		r(http.MethodPost, "/projects/{id}/triggers", h.createTrigger),
		r(http.MethodGet, "/projects/{id}/triggers/{trigger_id}", h.trigger),
		r(http.MethodPut, "/projects/{id}/triggers/{trigger_id}", h.updateTrigger),
		r(http.MethodDelete, "/projects/{id}/triggers/{trigger_id}", h.deleteTrigger),
		r(http.MethodPost, "/projects/{id}/triggers/{trigger_id}/take_ownership", h.takeTriggerOwnership),
		r(http.MethodPost, "/projects/{id}/trigger/pipeline", h.runTrigger),
		r(http.MethodPost, "/projects/{id}/ref/{ref}/trigger/pipeline", h.runTrigger),
		r(http.MethodPost, "/ci/lint", h.lint),
	}}
}
