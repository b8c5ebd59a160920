package hooks

import (
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/httpx"
)

// POST /projects/:id/hooks/:hook_id/test/:trigger (later GitLab versions'
// API::Hooks::TriggerTest): 201 {"message":"201 Created"} when the hook
// answered 2xx, else 422 with the hook's answer.
func (h handlers) trigger(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	trigger, err := httpx.PathParam(r, "trigger")
	if err != nil {
		return err
	}
	res, err := h.s.Test(r.Context(), httpx.CallerOf(r), ref, hookID(r), trigger)
	if err != nil {
		return err
	}
	if !res.OK {
		return core.Unprocessable(res.Message)
	}
	return httpx.Created(w, map[string]string{"message": "201 Created"})
}
