package jobs

import (
	"errors"
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /runners/:id/jobs
func (h handlers) runnerJobs(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "runner_id", "Runner")
	if errors.Is(err, core.ErrNotFound) {
		id, err = 0, nil
	}
	if err != nil {
		return err
	}
	var in RunnerJobsInput
	in.Invalid = httpx.Decode(r, &in)
	if in.Invalid == nil {
		in.Page, in.Invalid = httpx.PageOf(r)
	}
	l, err := h.s.RunnerJobs(r.Context(), httpx.CallerOf(r), id, in)
	if err != nil {
		return err
	}
	return h.renderList(w, r, l, in.Page, apijson.JobOptions{Pipeline: true, Project: true})
}
