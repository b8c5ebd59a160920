package members

import (
	"net/http"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode the request into typed input, call one service method
// and render. One set serves projects and groups (kind). Parameter
// problems travel in the input (Invalid): the service reports them after its
// access checks.
type handlers struct{ s *Service }

// ref reads the {id} of the project or group.
func ref(r *http.Request, kind domain.MemberSource) (Ref, error) {
	id, err := httpx.RefParam(r, "id")
	return Ref{Kind: kind, Source: id}, err
}

// userRef reads {user_id}, an integer as GitLab declares it.
func userRef(r *http.Request) UserRef {
	n, err := httpx.IntPathParam(r, "user_id")
	return UserRef{ID: n, Invalid: err}
}

// parseExpiry reads expires_at (YYYY-MM-DD or a timestamp) as a date; an
// empty value is no date.
func parseExpiry(s *string) (*time.Time, error) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil, nil
	}
	t, err := httpx.ParseTime(*s)
	if err != nil {
		return nil, core.InvalidParam("expires_at")
	}
	d := domain.DateOf(t)
	return &d, nil
}

// list is GET .../members and, inherited, .../members/all.
func (h handlers) list(kind domain.MemberSource, inherited bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		src, err := ref(r, kind)
		if err != nil {
			return err
		}
		var params listParams
		bad := httpx.Decode(r, &params)
		pg, err := httpx.PageOf(r)
		if bad == nil {
			bad = err
		}
		in := ListInput{Query: strings.TrimSpace(params.Query), Page: pg, Invalid: bad}
		list := h.s.List
		if inherited {
			list = h.s.All
		}
		entries, total, err := list(r.Context(), httpx.CallerOf(r), src, in)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, membersOf(httpx.BaseURL(r), entries), total, in.Page)
	}
}

// get is GET .../members/:user_id.
func (h handlers) get(kind domain.MemberSource) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		src, err := ref(r, kind)
		if err != nil {
			return err
		}
		e, err := h.s.Get(r.Context(), httpx.CallerOf(r), src, userRef(r))
		if err != nil {
			return err
		}
		return httpx.OK(w, memberOf(httpx.BaseURL(r), e))
	}
}

// add is POST .../members: 201 with the member.
func (h handlers) add(kind domain.MemberSource) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		src, err := ref(r, kind)
		if err != nil {
			return err
		}
		var params addParams
		in := AddInput{Invalid: httpx.Decode(r, &params)}
		if in.Invalid == nil {
			in.ExpiresAt, in.Invalid = parseExpiry(params.ExpiresAt)
		}
		in.UserID, in.Level = params.UserID, domain.AccessLevel(params.AccessLevel)
		e, err := h.s.Add(r.Context(), httpx.CallerOf(r), src, in)
		if err != nil {
			return err
		}
		return httpx.Created(w, memberOf(httpx.BaseURL(r), e))
	}
}

// update is PUT .../members/:user_id.
func (h handlers) update(kind domain.MemberSource) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		src, err := ref(r, kind)
		if err != nil {
			return err
		}
		var params updateParams
		in := UpdateInput{Invalid: httpx.Decode(r, &params)}
		if in.Invalid == nil {
			in.ExpiresAt, in.Invalid = parseExpiry(params.ExpiresAt)
		}
		in.Level, in.ExpiresSet = domain.AccessLevel(params.AccessLevel), params.ExpiresAt != nil
		e, err := h.s.Update(r.Context(), httpx.CallerOf(r), src, userRef(r), in)
		if err != nil {
			return err
		}
		return httpx.OK(w, memberOf(httpx.BaseURL(r), e))
	}
}

// remove answers 204, as GitLab 9.x's v4 API does for member removal.
func (h handlers) remove(kind domain.MemberSource) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		src, err := ref(r, kind)
		if err != nil {
			return err
		}
		if err := h.s.Remove(r.Context(), httpx.CallerOf(r), src, userRef(r)); err != nil {
			return err
		}
		return httpx.NoContent(w)
	}
}
