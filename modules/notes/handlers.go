package notes

import (
	"errors"
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call one use case and render.
type handlers struct {
	s       *Service
	present presenter
}

// noteableRef reads the project and the noteable from the path. A key
// that cannot exist is 0: the use case answers the noteable's 404 once
// the project is resolved, as GitLab orders them.
func noteableRef(r *http.Request, k kind) (NoteableRef, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return NoteableRef{}, err
	}
	key, err := pathID(r, k.param)
	if err != nil {
		return NoteableRef{}, err
	}
	return NoteableRef{Project: ref, Type: k.typ, Key: key}, nil
}

// pathID is a positive integer path parameter, or 0 when it holds none.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := httpx.IDParam(r, name, "")
	if errors.Is(err, core.ErrNotFound) {
		return 0, nil
	}
	return id, err
}

// writeInput is what every write starts with: the signed-in caller (401
// before anything else), then the request's parameters into in, when
// given (400), then the path.
func writeInput(r *http.Request, k kind, in any) (NoteableRef, error) {
	if _, err := httpx.RequireUser(r); err != nil {
		return NoteableRef{}, err
	}
	if in != nil {
		if err := httpx.Decode(r, in); err != nil {
			return NoteableRef{}, err
		}
	}
	return noteableRef(r, k)
}

// GET .../notes
func (h handlers) list(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in ListInput
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
		ref, err := noteableRef(r, k)
		if err != nil {
			return err
		}
		l, err := h.s.List(r.Context(), httpx.CallerOf(r), ref, in, pg)
		if err != nil {
			return err
		}
		out, err := h.present.notes(r.Context(), l)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, out, l.Total, pg)
	}
}

// GET .../notes/:note_id; a snippet's note answers GitLab 9.x's
// snippet-shaped object.
func (h handlers) get(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ref, err := noteableRef(r, k)
		if err != nil {
			return err
		}
		id, err := pathID(r, "note_id")
		if err != nil {
			return err
		}
		n, nb, err := h.s.Get(r.Context(), httpx.CallerOf(r), ref, id)
		if err != nil {
			return err
		}
		out, err := h.present.note(r.Context(), n, nb, true)
		if err != nil {
			return err
		}
		return httpx.OK(w, out)
	}
}

// POST .../notes: a comment, or an award when the body is one emoji.
func (h handlers) create(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in CreateInput
		ref, err := writeInput(r, k, &in)
		if err != nil {
			return err
		}
		posted, err := h.s.Create(r.Context(), httpx.CallerOf(r), ref, in)
		if err != nil {
			return err
		}
		if posted.Award != nil {
			out, err := h.present.award(r.Context(), posted.Award)
			if err != nil {
				return err
			}
			return httpx.Created(w, out)
		}
		out, err := h.present.note(r.Context(), posted.Note, posted.Noteable, false)
		if err != nil {
			return err
		}
		return httpx.Created(w, out)
	}
}

// PUT .../notes/:note_id: the author, masters and admins.
func (h handlers) update(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in UpdateInput
		ref, err := writeInput(r, k, &in)
		if err != nil {
			return err
		}
		id, err := pathID(r, "note_id")
		if err != nil {
			return err
		}
		n, nb, err := h.s.Update(r.Context(), httpx.CallerOf(r), ref, id, in)
		if err != nil {
			return err
		}
		out, err := h.present.note(r.Context(), n, nb, false)
		if err != nil {
			return err
		}
		return httpx.OK(w, out)
	}
}

// DELETE .../notes/:note_id: the author, masters and admins; 204.
func (h handlers) delete(k kind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ref, err := writeInput(r, k, nil)
		if err != nil {
			return err
		}
		id, err := pathID(r, "note_id")
		if err != nil {
			return err
		}
		if err := h.s.Delete(r.Context(), httpx.CallerOf(r), ref, id); err != nil {
			return err
		}
		return httpx.NoContent(w)
	}
}
