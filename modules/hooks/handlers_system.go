package hooks

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// systemHookID reads {id}.
func systemHookID(r *http.Request) HookID { return pathID(r, "id") }

// decodeSystem reads a system hook's parameters; url is required.
func decodeSystem(r *http.Request) SystemInput {
	var in SystemInput
	in.Invalid = decodeHook(r, &in, &in.URL)
	return in
}

// GET /hooks
func (h handlers) listSystem(w http.ResponseWriter, r *http.Request) error {
	pg, perr := httpx.PageOf(r)
	l, err := h.s.ListSystem(r.Context(), httpx.CallerOf(r), pg, perr)
	if err != nil {
		return err
	}
	now := h.s.now()
	out := make([]systemHookJSON, 0, len(l.Hooks))
	for i := range l.Hooks {
		out = append(out, systemHookOf(&l.Hooks[i], now))
	}
	return httpx.Paginated(w, r, out, l.Total, pg)
}

// POST /hooks: 201 with the hook.
func (h handlers) createSystem(w http.ResponseWriter, r *http.Request) error {
	hook, err := h.s.CreateSystem(r.Context(), httpx.CallerOf(r), decodeSystem(r))
	if err != nil {
		return err
	}
	return httpx.Created(w, systemHookOf(hook, h.s.now()))
}

// GET /hooks/:id: tests the hook and answers with the sample it sent.
func (h handlers) testSystem(w http.ResponseWriter, r *http.Request) error {
	data, err := h.s.TestSystem(r.Context(), httpx.CallerOf(r), systemHookID(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, data)
}

// DELETE /hooks/:id: 200 with the deleted hook (9.x).
func (h handlers) deleteSystem(w http.ResponseWriter, r *http.Request) error {
	hook, err := h.s.DeleteSystem(r.Context(), httpx.CallerOf(r), systemHookID(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, systemHookOf(hook, h.s.now()))
}
