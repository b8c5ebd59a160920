package snippets

import (
	"errors"
	"net"
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call one use case and render. Writes refuse anonymous
// callers before reading the request, as GitLab authenticates first; the
// use cases check again for callers that are not HTTP.
type handlers struct {
	s       *Service
	present presenter
}

// snippetID is {snippet_id}, or 0 when it holds no id that can exist
// (the use case answers the snippet's 404 in GitLab's order).
func snippetID(r *http.Request) (int64, error) {
	id, err := httpx.IDParam(r, "snippet_id", "Snippet")
	if errors.Is(err, core.ErrNotFound) {
		return 0, nil
	}
	return id, err
}

// snippetRef is the project and the snippet a path names.
type snippetRef struct {
	project domain.IDOrPath
	id      int64
}

// path reads {id} and {snippet_id}.
func path(r *http.Request) (ref snippetRef, err error) {
	if ref.project, err = httpx.RefParam(r, "id"); err != nil {
		return ref, err
	}
	ref.id, err = snippetID(r)
	return ref, err
}

// writePath is path for writes: an anonymous caller gets the 401 before
// the path is read.
func writePath(r *http.Request) (snippetRef, error) {
	if _, err := httpx.RequireUser(r); err != nil {
		return snippetRef{}, err
	}
	return path(r)
}

// found reads the snippet the path names.
func (h handlers) found(r *http.Request) (*Found, error) {
	ref, err := path(r)
	if err != nil {
		return nil, err
	}
	return h.s.Get(r.Context(), httpx.CallerOf(r), ref.project, ref.id)
}

// reply renders one snippet with status.
func (h handlers) reply(w http.ResponseWriter, r *http.Request, status int, f *Found) error {
	out, err := h.present.snippet(r.Context(), f)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out)
}

// GET /projects/:id/snippets
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in ListInput
	in.Page, in.Invalid = httpx.PageOf(r)
	l, err := h.s.List(r.Context(), httpx.CallerOf(r), ref, in)
	if err != nil {
		return err
	}
	out, err := h.present.snippets(r.Context(), l.Project, l.Snippets)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, l.Total, in.Page)
}

// GET /projects/:id/snippets/:snippet_id
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	f, err := h.found(r)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, f)
}

// GET /projects/:id/snippets/:snippet_id/raw
func (h handlers) raw(w http.ResponseWriter, r *http.Request) error {
	f, err := h.found(r)
	if err != nil {
		return err
	}
	return httpx.Text(w, http.StatusOK, []byte(f.Snippet.Content))
}

// POST /projects/:id/snippets
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in CreateInput
	in.Invalid = httpx.Decode(r, &in)
	f, err := h.s.Create(r.Context(), httpx.CallerOf(r), ref, in, Origin{UserAgent: r.UserAgent(), IP: clientIP(r)})
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusCreated, f)
}

// PUT /projects/:id/snippets/:snippet_id
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	var in UpdateInput
	in.Invalid = httpx.Decode(r, &in)
	f, err := h.s.Update(r.Context(), httpx.CallerOf(r), ref.project, ref.id, in)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, f)
}

// DELETE /projects/:id/snippets/:snippet_id: 200 with the deleted
// snippet, and 200 without a body when there is none to delete (or none
// the caller may see).
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	f, err := h.s.Delete(r.Context(), httpx.CallerOf(r), ref.project, ref.id)
	if err != nil {
		return err
	}
	if f == nil {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	return h.reply(w, r, http.StatusOK, f)
}

// GET /projects/:id/snippets/:snippet_id/user_agent_detail: administrators
// only.
func (h handlers) userAgentDetail(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireAdmin(r); err != nil {
		return err
	}
	ref, err := path(r)
	if err != nil {
		return err
	}
	sn, err := h.s.UserAgentDetail(r.Context(), httpx.CallerOf(r), ref.project, ref.id)
	if err != nil {
		return err
	}
	return httpx.OK(w, newUserAgentDetailJSON(sn))
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
