package notes

import (
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call the service and render.
type handlers struct{ s *Service }

func (h handlers) routes() []httpx.Route {
	var out []httpx.Route
	for _, k := range kinds {
		base := "/projects/{id}/" + k.segment + "/{" + k.param + "}/notes"
		one := base + "/{note_id}"
		out = append(out,
			httpx.Route{Method: http.MethodGet, Pattern: base, Handle: h.list(k)},
			httpx.Route{Method: http.MethodPost, Pattern: base, Handle: h.create(k)},
			httpx.Route{Method: http.MethodGet, Pattern: one, Handle: h.get(k)},
			httpx.Route{Method: http.MethodPut, Pattern: one, Handle: h.update(k)},
			httpx.Route{Method: http.MethodDelete, Pattern: one, Handle: h.delete(k)},
		)
	}
	return out
}

// read resolves the project and the noteable for a read (404s only).
func (h handlers) read(r *http.Request, k kind) (target, *noteable, error) {
	t, err := h.s.project(r)
	if err != nil {
		return t, nil, err
	}
	nb, err := h.s.noteable(r, t, k)
	return t, nb, err
}

// write is read for writes: 401 first, then the request's parameters
// (400), then 404s; archived projects take no notes (403).
func (h handlers) write(r *http.Request, k kind, params any) (target, *noteable, error) {
	if _, err := httpx.RequireUser(r); err != nil {
		return target{}, nil, err
	}
	if params != nil {
		if err := httpx.Decode(r, params); err != nil {
			return target{}, nil, err
		}
	}
	t, nb, err := h.read(r, k)
	if err != nil {
		return t, nil, err
	}
	if t.project.Archived {
		return t, nil, core.Forbidden("")
	}
	return t, nb, nil
}

// GET .../notes
func (h handlers) list(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in listParams
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		if err := in.validate(); err != nil {
			return err
		}
		pg, err := httpx.PageOf(r)
		if err != nil {
			return err
		}
		_, nb, err := h.read(r, k)
		if err != nil {
			return err
		}
		list, total, err := h.s.list(r.Context(), nb, in, pg)
		if err != nil {
			return err
		}
		ids := make([]int64, len(list))
		for i, n := range list {
			ids[i] = n.AuthorID
		}
		u, err := h.s.users(r.Context(), httpx.BaseURL(r), ids...)
		if err != nil {
			return err
		}
		out := make([]noteJSON, len(list))
		for i, n := range list {
			out[i] = newNoteJSON(n, nb, u)
		}
		return httpx.Paginated(w, r, out, total, pg)
	}
}

// GET .../notes/:note_id; a snippet's note answers GitLab 9.x's
// snippet-shaped object.
func (h handlers) get(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, nb, err := h.read(r, k)
		if err != nil {
			return err
		}
		n, err := h.s.note(r, nb)
		if err != nil {
			return err
		}
		u, err := h.s.users(r.Context(), httpx.BaseURL(r), n.AuthorID)
		if err != nil {
			return err
		}
		if k.typ == domain.TargetSnippet {
			return httpx.OK(w, newSnippetNoteJSON(*n, u))
		}
		return httpx.OK(w, newNoteJSON(*n, nb, u))
	}
}

// POST .../notes: a comment, or an award when the body is one emoji.
func (h handlers) create(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in createParams
		t, nb, err := h.write(r, k, &in)
		if err != nil {
			return err
		}
		ctx, base := r.Context(), httpx.BaseURL(r)
		if name, ok := awardName(in.Body); ok {
			a, err := h.s.award(ctx, t, nb, name)
			if err != nil {
				return err
			}
			u, err := h.s.users(ctx, base, a.UserID)
			if err != nil {
				return err
			}
			return httpx.Created(w, newAwardJSON(*a, u))
		}
		n, err := h.s.create(ctx, t, nb, in)
		if err != nil {
			return err
		}
		u, err := h.s.users(ctx, base, n.AuthorID)
		if err != nil {
			return err
		}
		return httpx.Created(w, newNoteJSON(*n, nb, u))
	}
}

// PUT .../notes/:note_id: the author, masters and admins.
func (h handlers) update(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in updateParams
		t, nb, err := h.write(r, k, &in)
		if err != nil {
			return err
		}
		n, err := h.s.note(r, nb)
		if err != nil {
			return err
		}
		if !t.canAdmin(n) {
			return core.Forbidden("")
		}
		if n, err = h.s.update(r.Context(), nb, n, in.Body); err != nil {
			return err
		}
		u, err := h.s.users(r.Context(), httpx.BaseURL(r), n.AuthorID)
		if err != nil {
			return err
		}
		return httpx.OK(w, newNoteJSON(*n, nb, u))
	}
}

// DELETE .../notes/:note_id: the author, masters and admins; 204.
func (h handlers) delete(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, nb, err := h.write(r, k, nil)
		if err != nil {
			return err
		}
		n, err := h.s.note(r, nb)
		if err != nil {
			return err
		}
		if !t.canAdmin(n) {
			return core.Forbidden("")
		}
		if err := h.s.delete(r.Context(), nb, n); err != nil {
			return err
		}
		return httpx.NoContent(w)
	}
}
