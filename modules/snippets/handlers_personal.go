package snippets

import (
	"errors"
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// The personal snippet handlers (/snippets and below). As in GitLab 9.x,
// lists and writes ask for a signed-in caller before reading anything
// else; reading one snippet follows its visibility, so a public one
// opens to anonymous callers too.

// personalID is {id}, or 0 when it holds no id that can exist (the use
// case answers the snippet's 404 in GitLab's order).
func personalID(r *http.Request) (int64, error) {
	id, err := httpx.IDParam(r, "id", "Snippet")
	if errors.Is(err, core.ErrNotFound) {
		return 0, nil
	}
	return id, err
}

// replyPersonal renders one personal snippet with status.
func (h handlers) replyPersonal(w http.ResponseWriter, r *http.Request, status int, sn *domain.Snippet) error {
	out, err := h.present.personalOne(r.Context(), sn)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out)
}

// listPersonal serves GET /snippets (own) and GET /snippets/public.
func (h handlers) listPersonal(public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := httpx.RequireUser(r); err != nil {
			return err
		}
		var in ListInput
		in.Page, in.Invalid = httpx.PageOf(r)
		list := h.s.ListOwn
		if public {
			list = h.s.ListPublic
		}
		l, err := list(r.Context(), httpx.CallerOf(r), in)
		if err != nil {
			return err
		}
		out, err := h.present.personal(r.Context(), l.Snippets)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, out, l.Total, in.Page)
	}
}

// foundPersonal reads the personal snippet {id} names.
func (h handlers) foundPersonal(r *http.Request) (*domain.Snippet, error) {
	id, err := personalID(r)
	if err != nil {
		return nil, err
	}
	return h.s.GetPersonal(r.Context(), httpx.CallerOf(r), id)
}

// GET /snippets/:id
func (h handlers) getPersonal(w http.ResponseWriter, r *http.Request) error {
	sn, err := h.foundPersonal(r)
	if err != nil {
		return err
	}
	return h.replyPersonal(w, r, http.StatusOK, sn)
}

// GET /snippets/:id/raw
func (h handlers) rawPersonal(w http.ResponseWriter, r *http.Request) error {
	sn, err := h.foundPersonal(r)
	if err != nil {
		return err
	}
	return httpx.Text(w, http.StatusOK, []byte(sn.Content))
}

// POST /snippets
func (h handlers) createPersonal(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	var in PersonalCreateInput
	in.Invalid = httpx.Decode(r, &in)
	sn, err := h.s.CreatePersonal(r.Context(), httpx.CallerOf(r), in, Origin{UserAgent: r.UserAgent(), IP: clientIP(r)})
	if err != nil {
		return err
	}
	return h.replyPersonal(w, r, http.StatusCreated, sn)
}

// PUT /snippets/:id
func (h handlers) updatePersonal(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	id, err := personalID(r)
	if err != nil {
		return err
	}
	var in PersonalUpdateInput
	in.Invalid = httpx.Decode(r, &in)
	sn, err := h.s.UpdatePersonal(r.Context(), httpx.CallerOf(r), id, in)
	if err != nil {
		return err
	}
	return h.replyPersonal(w, r, http.StatusOK, sn)
}

// DELETE /snippets/:id: 204, as GitLab 9.x's API v4 deletes answer.
func (h handlers) deletePersonal(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireUser(r); err != nil {
		return err
	}
	id, err := personalID(r)
	if err != nil {
		return err
	}
	if err := h.s.DeletePersonal(r.Context(), httpx.CallerOf(r), id); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// GET /snippets/:id/user_agent_detail: administrators only.
func (h handlers) personalUserAgentDetail(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireAdmin(r); err != nil {
		return err
	}
	id, err := personalID(r)
	if err != nil {
		return err
	}
	sn, err := h.s.PersonalUserAgentDetail(r.Context(), httpx.CallerOf(r), id)
	if err != nil {
		return err
	}
	return httpx.OK(w, newUserAgentDetailJSON(sn))
}
