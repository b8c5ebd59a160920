package settings

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

type handlers struct{ s *Service }

// GET /application/settings
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	st, err := h.s.Get(r.Context(), httpx.CallerOf(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, settingsOf(st))
}

// PUT /application/settings: 200 with the settings saved.
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	var in Input
	if p, err := httpx.ParamsOf(r); err != nil {
		in.Invalid = err
	} else {
		in.Invalid = p.Decode(&in)
		in.Given = settingParams.given(p.Has)
	}
	st, err := h.s.Update(r.Context(), httpx.CallerOf(r), in)
	if err != nil {
		return err
	}
	return httpx.OK(w, settingsOf(st))
}
