package events

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call one use case and render; base is the external
// URL the rendered users link to.
type handlers struct {
	s    *Service
	base string
}

// filter decodes the feed's filters and page; the use case checks their
// values.
func filter(r *http.Request) (FeedInput, error) {
	var in FeedInput
	if err := httpx.Decode(r, &in); err != nil {
		return in, err
	}
	var err error
	in.Page, err = httpx.PageOf(r)
	return in, err
}

// GET /events: the caller's own events.
func (h handlers) own(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	in, err := filter(r)
	if err != nil {
		return err
	}
	feed, err := h.s.ForCaller(r.Context(), caller, in)
	if err != nil {
		return err
	}
	return h.render(w, r, feed, in)
}

// GET /users/:id/events: a user's events, by ID or username.
func (h handlers) user(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.PathParam(r, "id")
	if err != nil {
		return err
	}
	in, err := filter(r)
	if err != nil {
		return err
	}
	feed, err := h.s.ForUser(r.Context(), httpx.CallerOf(r), ref, in)
	if err != nil {
		return err
	}
	return h.render(w, r, feed, in)
}

// GET /projects/:id/events
func (h handlers) project(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	in, err := filter(r)
	if err != nil {
		return err
	}
	feed, err := h.s.ForProject(r.Context(), httpx.CallerOf(r), ref, in)
	if err != nil {
		return err
	}
	return h.render(w, r, feed, in)
}

func (h handlers) render(w http.ResponseWriter, r *http.Request, feed *Feed, in FeedInput) error {
	out := make([]eventJSON, 0, len(feed.Events))
	for _, e := range feed.Events {
		out = append(out, toJSON(h.base, e, feed))
	}
	return httpx.Paginated(w, r, out, feed.Total, in.Page)
}
