package members

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call the service and render. Reads are open to whoever
// may read the project or group, anonymous callers included for public
// ones; writes need a signed-in caller (401). Access checks come before
// parameter validation, so callers who may not use an endpoint learn
// nothing from its validation: an unreadable source is a 404, a readable
// one the caller may not manage a 403.
type handlers struct{ s *Service }

// source resolves the {id} path parameter for the caller; write routes
// require a signed-in caller first.
func (h handlers) source(r *http.Request, kind domain.MemberSource, write bool) (*domain.Caller, *Source, error) {
	caller := httpx.CallerOf(r)
	if write {
		var err error
		if caller, err = httpx.RequireUser(r); err != nil {
			return nil, nil, err
		}
	}
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return nil, nil, err
	}
	src, err := h.s.Source(r.Context(), caller, Ref{Kind: kind, ID: ref.ID, Path: ref.Path})
	if err != nil {
		return nil, nil, err
	}
	return caller, src, nil
}

// userIDParam reads {user_id}, an integer as GitLab declares it.
func userIDParam(r *http.Request) (int64, error) {
	s, err := httpx.PathParam(r, "user_id")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, core.InvalidParam("user_id")
	}
	return n, nil
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
	d := dateOf(t)
	return &d, nil
}

func (h handlers) list(kind domain.MemberSource, all bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, src, err := h.source(r, kind, false)
		if err != nil {
			return err
		}
		var in listParams
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		pg, err := httpx.PageOf(r)
		if err != nil {
			return err
		}
		query := strings.TrimSpace(in.Query)
		var entries []Entry
		var total int
		if all {
			entries, total, err = h.s.All(r.Context(), src, query, pg)
		} else {
			entries, total, err = h.s.List(r.Context(), src, query, pg)
		}
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, membersOf(httpx.BaseURL(r), entries), total, pg)
	}
}

func (h handlers) get(kind domain.MemberSource) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, src, err := h.source(r, kind, false)
		if err != nil {
			return err
		}
		uid, err := userIDParam(r)
		if err != nil {
			return err
		}
		e, err := h.s.Get(r.Context(), src, uid)
		if err != nil {
			return err
		}
		return httpx.OK(w, memberOf(httpx.BaseURL(r), e))
	}
}

func (h handlers) add(kind domain.MemberSource) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, src, err := h.source(r, kind, true)
		if err != nil {
			return err
		}
		if !src.CanManage() {
			return core.Forbidden("")
		}
		var in addParams
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		exp, err := parseExpiry(in.ExpiresAt)
		if err != nil {
			return err
		}
		e, err := h.s.Add(r.Context(), caller, src, AddInput{
			UserID:    in.UserID,
			Level:     domain.AccessLevel(in.AccessLevel),
			ExpiresAt: exp,
		})
		if err != nil {
			return err
		}
		return httpx.Created(w, memberOf(httpx.BaseURL(r), e))
	}
}

func (h handlers) update(kind domain.MemberSource) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, src, err := h.source(r, kind, true)
		if err != nil {
			return err
		}
		if !src.CanManage() {
			return core.Forbidden("")
		}
		uid, err := userIDParam(r)
		if err != nil {
			return err
		}
		var in updateParams
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		exp, err := parseExpiry(in.ExpiresAt)
		if err != nil {
			return err
		}
		e, err := h.s.Update(r.Context(), caller, src, uid, UpdateInput{
			Level:      domain.AccessLevel(in.AccessLevel),
			ExpiresAt:  exp,
			ExpiresSet: in.ExpiresAt != nil,
		})
		if err != nil {
			return err
		}
		return httpx.OK(w, memberOf(httpx.BaseURL(r), e))
	}
}

// remove answers 204, as GitLab 9.x's v4 API does for member removal.
func (h handlers) remove(kind domain.MemberSource) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, src, err := h.source(r, kind, true)
		if err != nil {
			return err
		}
		uid, err := userIDParam(r)
		if err != nil {
			return err
		}
		if err := h.s.Remove(r.Context(), caller, src, uid); err != nil {
			return err
		}
		return httpx.NoContent(w)
	}
}
