package hooks

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call one use case and render.
type handlers struct{ s *Service }

// projectPath reads {id} after refusing anonymous callers.
func projectPath(r *http.Request) (domain.IDOrPath, error) { return httpx.SignedInRef(r, "id") }

// pathID reads the integer path parameter name; a bad one is reported
// after the access checks.
func pathID(r *http.Request, name string) HookID {
	n, err := httpx.IntPathParam(r, name)
	return HookID{ID: n, Invalid: err}
}

// hookID reads {hook_id}.
func hookID(r *http.Request) HookID { return pathID(r, "hook_id") }

// decodeHook decodes r into in, a hook's parameters whose url (at *url
// once decoded) is required on create and update alike, and returns the
// request's problems, the missing url first.
func decodeHook(r *http.Request, in any, url **string) error {
	var p httpx.Problems
	if err := p.Decode(r, in); err != nil {
		return err
	}
	if *url == nil {
		p = append(httpx.Problems{"url is missing"}, p...)
	}
	return p.Err()
}

// decode reads a project hook's parameters.
func decode(r *http.Request) Input {
	var in Input
	in.Invalid = decodeHook(r, &in, &in.URL)
	return in
}

// GET /projects/:id/hooks
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	pg, perr := httpx.PageOf(r)
	l, err := h.s.List(r.Context(), httpx.CallerOf(r), ref, pg, perr)
	if err != nil {
		return err
	}
	out := make([]hookJSON, 0, len(l.Hooks))
	for i := range l.Hooks {
		out = append(out, hookOf(&l.Hooks[i], h.s.now()))
	}
	return httpx.Paginated(w, r, out, l.Total, pg)
}

// GET /projects/:id/hooks/:hook_id
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	hook, err := h.s.Get(r.Context(), httpx.CallerOf(r), ref, hookID(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, hookOf(hook, h.s.now()))
}

// POST /projects/:id/hooks: 201 with the hook.
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	hook, err := h.s.Create(r.Context(), httpx.CallerOf(r), ref, decode(r))
	if err != nil {
		return err
	}
	return httpx.Created(w, hookOf(hook, h.s.now()))
}

// PUT /projects/:id/hooks/:hook_id: 200 with the hook.
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	hook, err := h.s.Update(r.Context(), httpx.CallerOf(r), ref, hookID(r), decode(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, hookOf(hook, h.s.now()))
}

// DELETE /projects/:id/hooks/:hook_id: 204 (9.x's destroy_conditionally!).
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), httpx.CallerOf(r), ref, hookID(r)); err != nil {
		return err
	}
	return httpx.NoContent(w)
}
