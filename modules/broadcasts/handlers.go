package broadcasts

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call one use case and render.
type handlers struct{ s *Service }

// messageID reads {id}; a bad one is reported after the access checks.
func messageID(r *http.Request) MessageID {
	n, err := httpx.IntPathParam(r, "id")
	return MessageID{ID: n, Invalid: err}
}

// decodeInput reads a message's parameters; requireMessage is POST's
// `requires :message`.
func decodeInput(r *http.Request, requireMessage bool) Input {
	var in Input
	var p httpx.Problems
	if err := p.Decode(r, &in); err != nil {
		in.Invalid = err
		return in
	}
	if requireMessage && in.Message == nil {
		p = append(httpx.Problems{"message is missing"}, p...)
	}
	in.BlankStartsAt = in.StartsAt == nil && httpx.Has(r, "starts_at")
	in.BlankEndsAt = in.EndsAt == nil && httpx.Has(r, "ends_at")
	in.Invalid = p.Err()
	return in
}

// GET /broadcast_messages
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	pg, perr := httpx.PageOf(r)
	l, err := h.s.List(r.Context(), httpx.CallerOf(r), pg, perr)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, messagesOf(l.Messages, h.s.now()), l.Total, pg)
}

// POST /broadcast_messages: 201 with the message.
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	m, err := h.s.Create(r.Context(), httpx.CallerOf(r), decodeInput(r, true))
	if err != nil {
		return err
	}
	return httpx.Created(w, messageOf(m, h.s.now()))
}

// GET /broadcast_messages/:id
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	m, err := h.s.Get(r.Context(), httpx.CallerOf(r), messageID(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, messageOf(m, h.s.now()))
}

// PUT /broadcast_messages/:id
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	m, err := h.s.Update(r.Context(), httpx.CallerOf(r), messageID(r), decodeInput(r, false))
	if err != nil {
		return err
	}
	return httpx.OK(w, messageOf(m, h.s.now()))
}

// DELETE /broadcast_messages/:id: 200 with the deleted message (9.x).
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	m, err := h.s.Delete(r.Context(), httpx.CallerOf(r), messageID(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, messageOf(m, h.s.now()))
}
