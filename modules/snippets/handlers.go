package snippets

import (
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call the service and render.
type handlers struct{ s *Service }

func (h handlers) routes() []httpx.Route {
	const base = "/projects/{id}/snippets"
	const one = base + "/{snippet_id}"
	return []httpx.Route{
		{Method: http.MethodGet, Pattern: base, Handle: h.list},
		{Method: http.MethodPost, Pattern: base, Handle: h.create},
		{Method: http.MethodGet, Pattern: one, Handle: h.get},
		{Method: http.MethodPut, Pattern: one, Handle: h.update},
		{Method: http.MethodDelete, Pattern: one, Handle: h.delete},
		{Method: http.MethodGet, Pattern: one + "/raw", Handle: h.raw},
		{Method: http.MethodGet, Pattern: one + "/user_agent_detail", Handle: h.userAgentDetail},
	}
}

// reply renders one snippet with status.
func (h handlers) reply(w http.ResponseWriter, r *http.Request, status int, t target, sn *domain.Snippet) error {
	out, err := h.s.render(r, t, []domain.Snippet{*sn})
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out[0])
}

// read resolves the project and the snippet for a read.
func (h handlers) read(r *http.Request) (target, *domain.Snippet, error) {
	t, err := h.s.project(r)
	if err != nil {
		return t, nil, err
	}
	sn, err := h.s.load(r, t)
	return t, sn, err
}

// GET /projects/:id/snippets
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.project(r)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.list(r.Context(), t, pg)
	if err != nil {
		return err
	}
	out, err := h.s.render(r, t, list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// GET /projects/:id/snippets/:snippet_id
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	t, sn, err := h.read(r)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, t, sn)
}

// GET /projects/:id/snippets/:snippet_id/raw
func (h handlers) raw(w http.ResponseWriter, r *http.Request) error {
	_, sn, err := h.read(r)
	if err != nil {
		return err
	}
	return httpx.Text(w, http.StatusOK, []byte(sn.Content))
}

// POST /projects/:id/snippets
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.signedIn(r)
	if err != nil {
		return err
	}
	var in createParams
	err = httpx.Decode(r, &in)
	var given *string
	if strings.TrimSpace(in.Visibility) != "" {
		given = &in.Visibility
	}
	if err := checkVisibility(in.code(err), given); err != nil {
		return err
	}
	sn, err := h.s.create(r.Context(), t, in, r.UserAgent(), clientIP(r))
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusCreated, t, sn)
}

// PUT /projects/:id/snippets/:snippet_id
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.signedIn(r)
	if err != nil {
		return err
	}
	var in updateParams
	if err := checkVisibility(httpx.Decode(r, &in), in.Visibility); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	sn, err := h.s.load(r, t)
	if err != nil {
		return err
	}
	if sn, err = h.s.update(r.Context(), t, sn, in); err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, t, sn)
}

// DELETE /projects/:id/snippets/:snippet_id: 200 with the deleted
// snippet, and 200 without a body when there is none to delete (or none
// the caller may see).
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.signedIn(r)
	if err != nil {
		return err
	}
	// Idempotence covers snippets that are gone, not ids that cannot be.
	if _, err := httpx.IDParam(r, "snippet_id", "Snippet"); err != nil {
		return err
	}
	sn, err := h.s.load(r, t)
	if errors.Is(err, core.ErrNotFound) {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	if err != nil {
		return err
	}
	if err := h.s.delete(r.Context(), t, sn); err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, t, sn)
}

// GET /projects/:id/snippets/:snippet_id/user_agent_detail: administrators
// only.
func (h handlers) userAgentDetail(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireAdmin(r); err != nil {
		return err
	}
	_, sn, err := h.read(r)
	if err != nil {
		return err
	}
	if sn.UserAgent == "" && sn.IPAddress == "" {
		return core.NotFound("UserAgentDetail")
	}
	return httpx.OK(w, userAgentDetailJSON{UserAgent: sn.UserAgent, IPAddress: sn.IPAddress,
		AkismetSubmitted: sn.AkismetSubmitted})
}

// clientIP is the host of the connection's remote address (the server
// trusts no forwarding header).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
