package users

import (
	"net/http"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers authenticate (the caller, or an administrator), decode the
// request into typed input, call one service method and render. Access
// checks come first, so callers who may not use an endpoint learn nothing
// from its validation.
type handlers struct {
	s      *Service
	tokens tokenPresenter
}

// decodeAll decodes every destination and reports all request-validation
// problems in one GitLab 400 ({"error":"a is missing, b is invalid"}),
// followed by those already in bad.
func decodeAll(r *http.Request, bad httpx.Problems, dsts ...any) error {
	var all httpx.Problems
	for _, d := range dsts {
		if err := all.Decode(r, d); err != nil {
			return err
		}
	}
	return append(all, bad...).Err()
}

// allOrNone is Grape's all_or_none_of for extern_uid and provider.
func allOrNone(r *http.Request) httpx.Problems {
	if httpx.Has(r, "extern_uid") != httpx.Has(r, "provider") {
		return httpx.Problems{"extern_uid, provider provide all or none of parameters"}
	}
	return nil
}

// emptyOK answers 200 without a body (idempotent deletes of absent things).
func emptyOK(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusOK)
	return nil
}

// ---- users ----

// listUsers is GET /users. Anonymous callers may only look a username up
// (GitLab 9.x's public profile lookup); filtering by identity or by
// external is for administrators, as in GitLab.
func (h handlers) listUsers(w http.ResponseWriter, r *http.Request) error {
	caller := httpx.CallerOf(r)
	anonymous := caller == nil || caller.User == nil
	if anonymous {
		p, err := httpx.ParamsOf(r)
		if err != nil {
			return err
		}
		if u, _ := p.Get("username"); strings.TrimSpace(u) == "" {
			return core.Unauthenticated()
		}
	}
	var in listUsersParams
	if err := decodeAll(r, allOrNone(r), &in); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	admin := caller.IsAdmin()
	if (in.ExternUID != "" || deref(in.External, false)) && !admin {
		if anonymous {
			return core.Unauthenticated()
		}
		return core.Forbidden("")
	}
	f := domain.UserFilter{
		Active:        deref(in.Active, false),
		Blocked:       deref(in.Blocked, false),
		Search:        strings.TrimSpace(in.Search),
		Username:      strings.TrimSpace(in.Username),
		ExternUID:     in.ExternUID,
		Provider:      in.Provider,
		External:      deref(in.External, false),
		CreatedBefore: in.CreatedBefore,
		CreatedAfter:  in.CreatedAfter,
		Page:          pg,
	}
	list, total, err := h.s.Users(r.Context(), f)
	if err != nil {
		return err
	}
	base := httpx.BaseURL(r)
	if admin {
		return httpx.Paginated(w, r, mapAll(list, func(u *domain.User) UserAdmin { return adminOf(u, base) }), total, pg)
	}
	return httpx.Paginated(w, r, mapAll(list, func(u *domain.User) UserBasic { return basicOf(u, base) }), total, pg)
}

// getUser is GET /users/:id: the public profile, or the full one for
// administrators. Anonymous callers see public profiles, as in GitLab 9.x.
func (h handlers) getUser(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.IDParam(r, "id", "User")
	if err != nil {
		return err
	}
	u, err := h.s.User(r.Context(), id)
	if err != nil {
		return err
	}
	if httpx.CallerOf(r).IsAdmin() {
		return httpx.OK(w, adminOf(u, httpx.BaseURL(r)))
	}
	return httpx.OK(w, publicOf(u, httpx.BaseURL(r)))
}

func (h handlers) createUser(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireAdmin(r)
	if err != nil {
		return err
	}
	var in createUserParams
	var opt Profile
	extra := allOrNone(r)
	extra.AtLeastOneOf(r, "password", "reset_password")
	if err := decodeAll(r, extra, &in, &opt); err != nil {
		return err
	}
	u, err := h.s.CreateUser(r.Context(), caller, CreateUserInput{Username: in.Username, Email: in.Email, Name: in.Name,
		Password: deref(in.Password, ""), ResetPassword: deref(in.ResetPassword, false), Confirm: in.Confirm, Profile: opt})
	if err != nil {
		return err
	}
	return httpx.Created(w, adminOf(u, httpx.BaseURL(r)))
}

func (h handlers) updateUser(w http.ResponseWriter, r *http.Request) error {
	caller, id, err := targetUser(r, false)
	if err != nil {
		return err
	}
	var in updateUserParams
	var opt Profile
	if err := decodeAll(r, allOrNone(r), &in, &opt); err != nil {
		return err
	}
	u, err := h.s.UpdateUser(r.Context(), caller, id, UpdateUserInput{Email: in.Email, Username: in.Username,
		Name: in.Name, Password: in.Password, Profile: opt})
	if err != nil {
		return err
	}
	return httpx.OK(w, adminOf(u, httpx.BaseURL(r)))
}

// deleteUser answers 200 with the deleted user, or 200 without a body when
// there was no such user. hard_delete is accepted; with no contributions to
// hand to a ghost user yet, both forms delete the same way.
func (h handlers) deleteUser(w http.ResponseWriter, r *http.Request) error {
	caller, id, err := targetUser(r, false)
	if err != nil {
		return err
	}
	var in struct {
		HardDelete *bool `param:"hard_delete"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	u, err := h.s.DeleteUser(r.Context(), caller, id)
	if err != nil {
		return err
	}
	if u == nil {
		return emptyOK(w)
	}
	return httpx.OK(w, adminOf(u, httpx.BaseURL(r)))
}

func (h handlers) setBlocked(blocked bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, id, err := targetUser(r, false)
		if err != nil {
			return err
		}
		if _, err := h.s.SetBlocked(r.Context(), caller, id, blocked); err != nil {
			return err
		}
		return httpx.Created(w, true)
	}
}

// currentUser is GET /user: the caller's full view; administrators also get
// is_admin and private_token, the token they presented (only digests are
// stored, so under sudo it is null).
func (h handlers) currentUser(w http.ResponseWriter, r *http.Request) error {
	c, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	base := httpx.BaseURL(r)
	if c.User.Admin {
		secret := ""
		if c.Sudoer == nil {
			secret = c.Secret
		}
		return httpx.OK(w, privateOf(c.User, base, secret))
	}
	return httpx.OK(w, fullOf(c.User, base))
}

// session is POST /session: login (or email) and password for a new
// private token.
func (h handlers) session(w http.ResponseWriter, r *http.Request) error {
	var in sessionParams
	var extra httpx.Problems
	extra.AtLeastOneOf(r, "login", "email")
	if err := decodeAll(r, extra, &in); err != nil {
		return err
	}
	login := in.Email
	if strings.TrimSpace(login) == "" {
		login = in.Login
	}
	u, secret, err := h.s.SignIn(r.Context(), login, in.Password)
	if err != nil {
		return err
	}
	return httpx.Created(w, privateOf(u, httpx.BaseURL(r), secret))
}

// activities is GET /user/activities.
func (h handlers) activities(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireAdmin(r)
	if err != nil {
		return err
	}
	var in struct {
		From *time.Time `param:"from"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.Activities(r.Context(), caller, in.From, pg)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, mapAll(list, activityOf), total, pg)
}

// targetUser is the user a route is about: the caller for /user/...,
// the {id} user (administrators only) for /users/{id}/....
func targetUser(r *http.Request, own bool) (*domain.Caller, int64, error) {
	if own {
		c, err := httpx.RequireUser(r)
		if err != nil {
			return nil, 0, err
		}
		return c, c.UserID(), nil
	}
	c, err := httpx.RequireAdmin(r)
	if err != nil {
		return nil, 0, err
	}
	id, err := httpx.IDParam(r, "id", "User")
	return c, id, err
}
