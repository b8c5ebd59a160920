package deploykeys

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call one use case and render.
type handlers struct{ s *Service }

// projectPath reads {id} after refusing anonymous callers.
func projectPath(r *http.Request) (domain.IDOrPath, error) { return httpx.SignedInRef(r, "id") }

// keyID reads {key_id}; a bad one is reported after the access checks.
func keyID(r *http.Request) KeyID {
	n, err := httpx.IntPathParam(r, "key_id")
	return KeyID{ID: n, Invalid: err}
}

// GET /deploy_keys (administrators)
func (h handlers) listAll(w http.ResponseWriter, r *http.Request) error {
	pg, perr := httpx.PageOf(r)
	l, err := h.s.ListAll(r.Context(), httpx.CallerOf(r), pg, perr)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, keysOf(l.Keys), l.Total, pg)
}

// GET /projects/:id/deploy_keys
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
	return httpx.Paginated(w, r, keysOf(l.Keys), l.Total, pg)
}

// GET /projects/:id/deploy_keys/:key_id
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	k, err := h.s.Get(r.Context(), httpx.CallerOf(r), ref, keyID(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, keyOf(k))
}

// POST /projects/:id/deploy_keys: 201 with the key, new or reused.
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	var in CreateInput
	var p httpx.Problems
	if err := p.Decode(r, &in); err != nil {
		return err
	}
	in.Invalid = p.Err()
	k, err := h.s.Create(r.Context(), httpx.CallerOf(r), ref, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, keyOf(k))
}

// PUT /projects/:id/deploy_keys/:key_id: 200 with the key.
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	var in UpdateInput
	var p httpx.Problems
	if err := p.Decode(r, &in); err != nil {
		return err
	}
	if in.Title == nil && in.CanPush == nil {
		p.AtLeastOneOf(r, "title", "can_push")
	}
	in.Invalid = p.Err()
	k, err := h.s.Update(r.Context(), httpx.CallerOf(r), ref, keyID(r), in)
	if err != nil {
		return err
	}
	return httpx.OK(w, keyOf(k))
}

// DELETE /projects/:id/deploy_keys/:key_id: 204 (9.x's
// destroy_conditionally!).
func (h handlers) disable(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	if err := h.s.Disable(r.Context(), httpx.CallerOf(r), ref, keyID(r)); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// POST /projects/:id/deploy_keys/:key_id/enable: 201 with the key.
func (h handlers) enable(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	k, err := h.s.Enable(r.Context(), httpx.CallerOf(r), ref, keyID(r))
	if err != nil {
		return err
	}
	return httpx.Created(w, keyOf(k))
}
