package notes

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// awardableRef reads the noteable, and the note when the route names
// one, from the path.
func awardableRef(r *http.Request, k kind, onNote bool) (AwardableRef, error) {
	nr, err := noteableRef(r, k)
	if err != nil {
		return AwardableRef{}, err
	}
	ref := AwardableRef{NoteableRef: nr, OnNote: onNote}
	if onNote {
		if ref.NoteID, err = pathID(r, "note_id"); err != nil {
			return AwardableRef{}, err
		}
	}
	return ref, nil
}

// GET .../award_emoji
func (h handlers) listAwards(k kind, onNote bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := httpx.RequireUser(r); err != nil {
			return err
		}
		pg, err := httpx.PageOf(r)
		if err != nil {
			return err
		}
		ref, err := awardableRef(r, k, onNote)
		if err != nil {
			return err
		}
		l, err := h.s.ListAwards(r.Context(), httpx.CallerOf(r), ref, pg)
		if err != nil {
			return err
		}
		out, err := h.present.awards(r.Context(), l.Awards)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, out, l.Total, pg)
	}
}

// GET .../award_emoji/:award_id
func (h handlers) getAward(k kind, onNote bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := httpx.RequireUser(r); err != nil {
			return err
		}
		ref, err := awardableRef(r, k, onNote)
		if err != nil {
			return err
		}
		id, err := pathID(r, "award_id")
		if err != nil {
			return err
		}
		a, err := h.s.GetAward(r.Context(), httpx.CallerOf(r), ref, id)
		if err != nil {
			return err
		}
		out, err := h.present.award(r.Context(), a)
		if err != nil {
			return err
		}
		return httpx.OK(w, out)
	}
}

// POST .../award_emoji: 201 with the award.
func (h handlers) createAward(k kind, onNote bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := httpx.RequireUser(r); err != nil {
			return err
		}
		var in AwardInput
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		ref, err := awardableRef(r, k, onNote)
		if err != nil {
			return err
		}
		a, err := h.s.Award(r.Context(), httpx.CallerOf(r), ref, in)
		if err != nil {
			return err
		}
		out, err := h.present.award(r.Context(), a)
		if err != nil {
			return err
		}
		return httpx.Created(w, out)
	}
}

// DELETE .../award_emoji/:award_id: 204, as API v4's deletes answer.
func (h handlers) deleteAward(k kind, onNote bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := httpx.RequireUser(r); err != nil {
			return err
		}
		ref, err := awardableRef(r, k, onNote)
		if err != nil {
			return err
		}
		id, err := pathID(r, "award_id")
		if err != nil {
			return err
		}
		if err := h.s.Unaward(r.Context(), httpx.CallerOf(r), ref, id); err != nil {
			return err
		}
		return httpx.NoContent(w)
	}
}
