package users

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call the service and render. Access checks come first,
// so callers who may not use an endpoint learn nothing from its validation.
type handlers struct{ s *Service }

// decodeAll decodes every destination and reports all request-validation
// problems in one GitLab 400 ({"error":"a is missing, b is invalid"}),
// followed by the extra messages.
func decodeAll(r *http.Request, extra []string, dsts ...any) error {
	var msgs []string
	for _, d := range dsts {
		if err := httpx.Decode(r, d); err != nil {
			var e *core.Error
			if !errors.As(err, &e) || !e.Param {
				return err
			}
			msgs = append(msgs, e.Msg)
		}
	}
	msgs = append(msgs, extra...)
	if len(msgs) > 0 {
		return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(msgs, ", ")}
	}
	return nil
}

// has reports whether the request carries parameter name at all.
func has(r *http.Request, name string) bool {
	p, err := httpx.ParamsOf(r)
	return err == nil && p.Has(name)
}

// allOrNone is Grape's all_or_none_of message for extern_uid and provider.
func allOrNone(r *http.Request) []string {
	if has(r, "extern_uid") != has(r, "provider") {
		return []string{"extern_uid, provider provide all or none of parameters"}
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
		out := make([]UserAdmin, len(list))
		for i := range list {
			out[i] = adminOf(&list[i], base)
		}
		return httpx.Paginated(w, r, out, total, pg)
	}
	out := make([]UserBasic, len(list))
	for i := range list {
		out[i] = basicOf(&list[i], base)
	}
	return httpx.Paginated(w, r, out, total, pg)
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
	var opt userParams
	extra := allOrNone(r)
	if !has(r, "password") && !has(r, "reset_password") {
		extra = append(extra, "password, reset_password are missing, at least one parameter must be provided")
	}
	if err := decodeAll(r, extra, &in, &opt); err != nil {
		return err
	}
	u, err := h.s.CreateUser(r.Context(), caller, CreateUserInput{
		Username:       in.Username,
		Email:          in.Email,
		Name:           in.Name,
		Password:       deref(in.Password, ""),
		ResetPassword:  deref(in.ResetPassword, false),
		Skype:          deref(opt.Skype, ""),
		Linkedin:       deref(opt.Linkedin, ""),
		Twitter:        deref(opt.Twitter, ""),
		WebsiteURL:     deref(opt.WebsiteURL, ""),
		Organization:   deref(opt.Organization, ""),
		Bio:            deref(opt.Bio, ""),
		Location:       deref(opt.Location, ""),
		ExternUID:      deref(opt.ExternUID, ""),
		Provider:       deref(opt.Provider, ""),
		ProjectsLimit:  opt.ProjectsLimit,
		Admin:          opt.Admin,
		CanCreateGroup: opt.CanCreateGroup,
		Confirm:        in.Confirm,
		External:       opt.External,
	})
	if err != nil {
		return err
	}
	return httpx.Created(w, adminOf(u, httpx.BaseURL(r)))
}

func (h handlers) updateUser(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireAdmin(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "id", "User")
	if err != nil {
		return err
	}
	var in updateUserParams
	var opt userParams
	if err := decodeAll(r, allOrNone(r), &in, &opt); err != nil {
		return err
	}
	u, err := h.s.UpdateUser(r.Context(), caller, id, UpdateUserInput{
		Email:          in.Email,
		Username:       in.Username,
		Name:           in.Name,
		Password:       in.Password,
		Skype:          opt.Skype,
		Linkedin:       opt.Linkedin,
		Twitter:        opt.Twitter,
		WebsiteURL:     opt.WebsiteURL,
		Organization:   opt.Organization,
		Bio:            opt.Bio,
		Location:       opt.Location,
		ExternUID:      opt.ExternUID,
		Provider:       opt.Provider,
		ProjectsLimit:  opt.ProjectsLimit,
		Admin:          opt.Admin,
		CanCreateGroup: opt.CanCreateGroup,
		External:       opt.External,
	})
	if err != nil {
		return err
	}
	return httpx.OK(w, adminOf(u, httpx.BaseURL(r)))
}

// deleteUser answers 200 with the deleted user, or 200 without a body when
// there was no such user. hard_delete is accepted; with no contributions to
// hand to a ghost user yet, both forms delete the same way.
func (h handlers) deleteUser(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireAdmin(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "id", "User")
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
		caller, err := httpx.RequireAdmin(r)
		if err != nil {
			return err
		}
		id, err := httpx.IDParam(r, "id", "User")
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
	var extra []string
	if !has(r, "login") && !has(r, "email") {
		extra = append(extra, "login, email are missing, at least one parameter must be provided")
	}
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
	out := make([]Activity, len(list))
	for i := range list {
		d := httpx.DatePtr(list[i].LastActivityOn)
		out[i] = Activity{Username: list[i].Username, LastActivityOn: d, LastActivityAt: d}
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// ---- SSH keys ----

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

func (h handlers) listKeys(own bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, uid, err := targetUser(r, own)
		if err != nil {
			return err
		}
		pg, err := httpx.PageOf(r)
		if err != nil {
			return err
		}
		keys, total, err := h.s.Keys(r.Context(), uid, pg)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, keysOf(keys), total, pg)
	}
}

func (h handlers) addKey(own bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, uid, err := targetUser(r, own)
		if err != nil {
			return err
		}
		var in keyParams
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		k, err := h.s.AddKey(r.Context(), uid, in.Title, in.Key)
		if err != nil {
			return err
		}
		return httpx.Created(w, keyOf(k))
	}
}

func (h handlers) ownKey(w http.ResponseWriter, r *http.Request) error {
	c, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "key_id", "Key")
	if err != nil {
		return err
	}
	k, err := h.s.UserKey(r.Context(), c.UserID(), id)
	if err != nil {
		return err
	}
	return httpx.OK(w, keyOf(k))
}

// deleteOwnKey is idempotent: 200 with the key, or 200 without a body.
func (h handlers) deleteOwnKey(w http.ResponseWriter, r *http.Request) error {
	c, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "key_id", "Key")
	if err != nil {
		return err
	}
	k, err := h.s.DeleteKey(r.Context(), c.UserID(), id)
	if errors.Is(err, core.ErrNotFound) {
		return emptyOK(w)
	}
	if err != nil {
		return err
	}
	return httpx.OK(w, keyOf(k))
}

// deleteUserKey answers 404 when the user or the key is missing.
func (h handlers) deleteUserKey(w http.ResponseWriter, r *http.Request) error {
	_, uid, err := targetUser(r, false)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "key_id", "Key")
	if err != nil {
		return err
	}
	if _, err := h.s.User(r.Context(), uid); err != nil {
		return err
	}
	k, err := h.s.DeleteKey(r.Context(), uid, id)
	if err != nil {
		return err
	}
	return httpx.OK(w, keyOf(k))
}

// keyWithUser is GET /keys/:id (administrators only).
func (h handlers) keyWithUser(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireAdmin(r); err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "id", "Key")
	if err != nil {
		return err
	}
	k, err := h.s.Key(r.Context(), id)
	if err != nil {
		return err
	}
	u, err := h.s.User(r.Context(), k.UserID)
	if err != nil {
		return core.NotFound("Key")
	}
	return httpx.OK(w, SSHKeyWithUser{SSHKey: keyOf(k), User: fullOf(u, httpx.BaseURL(r))})
}

// ---- emails ----

func (h handlers) listEmails(own bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, uid, err := targetUser(r, own)
		if err != nil {
			return err
		}
		pg, err := httpx.PageOf(r)
		if err != nil {
			return err
		}
		list, total, err := h.s.Emails(r.Context(), uid, pg)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, emailsOf(list), total, pg)
	}
}

func (h handlers) addEmail(own bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, uid, err := targetUser(r, own)
		if err != nil {
			return err
		}
		var in emailParams
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		e, err := h.s.AddEmail(r.Context(), uid, in.Email)
		if err != nil {
			return err
		}
		return httpx.Created(w, emailOf(e))
	}
}

func (h handlers) ownEmail(w http.ResponseWriter, r *http.Request) error {
	c, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "email_id", "Email")
	if err != nil {
		return err
	}
	e, err := h.s.UserEmail(r.Context(), c.UserID(), id)
	if err != nil {
		return err
	}
	return httpx.OK(w, emailOf(e))
}

func (h handlers) deleteOwnEmail(w http.ResponseWriter, r *http.Request) error {
	c, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "email_id", "Email")
	if err != nil {
		return err
	}
	e, err := h.s.DeleteEmail(r.Context(), c.UserID(), id)
	if errors.Is(err, core.ErrNotFound) {
		return emptyOK(w)
	}
	if err != nil {
		return err
	}
	return httpx.OK(w, emailOf(e))
}

func (h handlers) deleteUserEmail(w http.ResponseWriter, r *http.Request) error {
	_, uid, err := targetUser(r, false)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "email_id", "Email")
	if err != nil {
		return err
	}
	if _, err := h.s.User(r.Context(), uid); err != nil {
		return err
	}
	e, err := h.s.DeleteEmail(r.Context(), uid, id)
	if err != nil {
		return err
	}
	return httpx.OK(w, emailOf(e))
}

// ---- impersonation and personal access tokens ----

func (h handlers) listTokens(kind domain.TokenKind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, uid, err := targetUser(r, false)
		if err != nil {
			return err
		}
		var in struct {
			State string `param:"state"`
		}
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		pg, err := httpx.PageOf(r)
		if err != nil {
			return err
		}
		list, total, err := h.s.Tokens(r.Context(), caller, uid, kind, domain.TokenState(in.State), pg)
		if err != nil {
			return err
		}
		now := h.s.now()
		out := make([]AccessToken, len(list))
		for i := range list {
			out[i] = tokenOf(&list[i], now)
		}
		return httpx.Paginated(w, r, out, total, pg)
	}
}

func (h handlers) createToken(kind domain.TokenKind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, uid, err := targetUser(r, false)
		if err != nil {
			return err
		}
		var in tokenParams
		var extra []string
		if !has(r, "scopes") {
			extra = append(extra, "scopes is missing")
		}
		if err := decodeAll(r, extra, &in); err != nil {
			return err
		}
		t, secret, err := h.s.createToken(r.Context(), caller, uid, kind, TokenInput{Name: in.Name, Scopes: in.Scopes, ExpiresAt: in.ExpiresAt})
		if err != nil {
			return err
		}
		out := tokenOf(t, h.s.now())
		out.Token = &secret
		return httpx.Created(w, out)
	}
}

func (h handlers) getToken(kind domain.TokenKind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, uid, err := targetUser(r, false)
		if err != nil {
			return err
		}
		id, err := httpx.IDParam(r, "token_id", tokenWhat(kind))
		if err != nil {
			return err
		}
		t, err := h.s.Token(r.Context(), caller, uid, kind, id)
		if err != nil {
			return err
		}
		return httpx.OK(w, tokenOf(t, h.s.now()))
	}
}

// revokeToken answers 204 No Content, as GitLab 9.x does.
func (h handlers) revokeToken(kind domain.TokenKind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, uid, err := targetUser(r, false)
		if err != nil {
			return err
		}
		id, err := httpx.IDParam(r, "token_id", tokenWhat(kind))
		if err != nil {
			return err
		}
		if err := h.s.RevokeToken(r.Context(), caller, uid, kind, id); err != nil {
			return err
		}
		return httpx.NoContent(w)
	}
}
