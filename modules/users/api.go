package users

import (
	"time"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// GitLab 9.x entities. Embedded structs flatten into one JSON object, so
// each view is the previous one plus its own fields, as in GitLab's
// UserBasic < User < UserPublic < UserWithAdmin < UserWithPrivateDetails.

// UserBasic is "User (brief)", shared with every module that embeds users.
type UserBasic = apijson.UserBasic

// UserPublic is "User (public single)".
type UserPublic struct {
	UserBasic
	CreatedAt    httpx.Time `json:"created_at"`
	Bio          *string    `json:"bio"`
	Location     *string    `json:"location"`
	Skype        string     `json:"skype"`
	Linkedin     string     `json:"linkedin"`
	Twitter      string     `json:"twitter"`
	WebsiteURL   string     `json:"website_url"`
	Organization string     `json:"organization"`
}

// Identity is an external identity of a user.
type Identity struct {
	Provider  string `json:"provider"`
	ExternUID string `json:"extern_uid"`
}

// UserFull is "User (full)" without administrator fields: what a user sees
// of themself.
type UserFull struct {
	UserPublic
	LastSignInAt     *httpx.Time `json:"last_sign_in_at"`
	ConfirmedAt      *httpx.Time `json:"confirmed_at"`
	LastActivityOn   *httpx.Date `json:"last_activity_on"`
	Email            string      `json:"email"`
	ColorSchemeID    int         `json:"color_scheme_id"`
	ProjectsLimit    int         `json:"projects_limit"`
	CurrentSignInAt  *httpx.Time `json:"current_sign_in_at"`
	Identities       []Identity  `json:"identities"`
	CanCreateGroup   bool        `json:"can_create_group"`
	CanCreateProject bool        `json:"can_create_project"`
	TwoFactorEnabled bool        `json:"two_factor_enabled"`
	External         bool        `json:"external"`
}

// UserAdmin is the full user in administrator views, with is_admin.
type UserAdmin struct {
	UserFull
	IsAdmin bool `json:"is_admin"`
}

// UserPrivate adds private_token: GET /user for administrators and the
// POST /session response.
type UserPrivate struct {
	UserAdmin
	PrivateToken *string `json:"private_token"`
}

func stateOf(u *domain.User) string { return apijson.UserState(u) }

func nullable(s string) *string { return apijson.NullString(s) }

// basicOf maps a user to the brief view; base is the external URL.
func basicOf(u *domain.User, base string) UserBasic { return apijson.UserBasicOf(base, u) }

func publicOf(u *domain.User, base string) UserPublic {
	return UserPublic{
		UserBasic:    basicOf(u, base),
		CreatedAt:    httpx.TimeOf(u.CreatedAt),
		Bio:          nullable(u.Bio),
		Location:     nullable(u.Location),
		Skype:        u.Skype,
		Linkedin:     u.Linkedin,
		Twitter:      u.Twitter,
		WebsiteURL:   u.WebsiteURL,
		Organization: u.Organization,
	}
}

func fullOf(u *domain.User, base string) UserFull {
	ids := []Identity{}
	if u.Provider != "" || u.ExternUID != "" {
		ids = append(ids, Identity{Provider: u.Provider, ExternUID: u.ExternUID})
	}
	return UserFull{
		UserPublic:       publicOf(u, base),
		LastSignInAt:     httpx.TimePtr(u.LastSignInAt),
		ConfirmedAt:      httpx.TimePtr(u.ConfirmedAt),
		LastActivityOn:   httpx.DatePtr(u.LastActivityOn),
		Email:            u.Email,
		ColorSchemeID:    u.ColorSchemeID,
		ProjectsLimit:    u.ProjectsLimit,
		CurrentSignInAt:  httpx.TimePtr(u.CurrentSignInAt),
		Identities:       ids,
		CanCreateGroup:   u.CanCreateGroup,
		CanCreateProject: u.ProjectsLimit > 0,
		TwoFactorEnabled: u.TwoFactorEnabled,
		External:         u.External,
	}
}

func adminOf(u *domain.User, base string) UserAdmin {
	return UserAdmin{UserFull: fullOf(u, base), IsAdmin: u.Admin}
}

func privateOf(u *domain.User, base string, token string) UserPrivate {
	return UserPrivate{UserAdmin: adminOf(u, base), PrivateToken: nullable(token)}
}

// SSHKey is GitLab's SSH key entity.
type SSHKey struct {
	ID        int64      `json:"id"`
	Title     string     `json:"title"`
	Key       string     `json:"key"`
	CreatedAt httpx.Time `json:"created_at"`
}

// SSHKeyWithUser is GET /keys/:id.
type SSHKeyWithUser struct {
	SSHKey
	User UserFull `json:"user"`
}

func keyOf(k *domain.SSHKey) SSHKey {
	return SSHKey{ID: k.ID, Title: k.Title, Key: k.Key, CreatedAt: httpx.TimeOf(k.CreatedAt)}
}

// mapAll renders every item of a list.
func mapAll[T, J any](list []T, render func(*T) J) []J {
	out := make([]J, len(list))
	for i := range list {
		out[i] = render(&list[i])
	}
	return out
}

// Email is GitLab's email entity.
type Email struct {
	ID    int64  `json:"id"`
	Email string `json:"email"`
}

func emailOf(e *domain.Email) Email { return Email{ID: e.ID, Email: e.Email} }

// AccessToken is GitLab's impersonation token entity, used for personal
// access tokens too (impersonation false). Token is set only on creation.
type AccessToken struct {
	ID            int64       `json:"id"`
	Name          string      `json:"name"`
	UserID        int64       `json:"user_id"`
	Active        bool        `json:"active"`
	Revoked       bool        `json:"revoked"`
	Scopes        []string    `json:"scopes"`
	Impersonation bool        `json:"impersonation"`
	CreatedAt     httpx.Time  `json:"created_at"`
	ExpiresAt     *httpx.Date `json:"expires_at"`
	Token         *string     `json:"token,omitempty"`
}

func tokenOf(t *domain.Token, now time.Time) AccessToken {
	scopes := t.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	return AccessToken{
		ID:            t.ID,
		Name:          t.Name,
		UserID:        t.UserID,
		Active:        t.Active(now),
		Revoked:       t.Revoked,
		Scopes:        scopes,
		Impersonation: t.Kind == domain.TokenImpersonation,
		CreatedAt:     httpx.TimeOf(t.CreatedAt),
		ExpiresAt:     httpx.DatePtr(t.ExpiresAt),
	}
}

// tokenPresenter renders tokens: whether one is active depends on when
// it is asked.
type tokenPresenter struct{ clock ports.Clock }

func (p tokenPresenter) one(t *domain.Token) AccessToken { return tokenOf(t, p.clock.Now()) }

func (p tokenPresenter) list(ts []domain.Token) []AccessToken {
	now := p.clock.Now()
	return mapAll(ts, func(t *domain.Token) AccessToken { return tokenOf(t, now) })
}

// Activity is a GET /user/activities entry; last_activity_at is GitLab's
// deprecated twin of last_activity_on.
type Activity struct {
	Username       string      `json:"username"`
	LastActivityOn *httpx.Date `json:"last_activity_on"`
	LastActivityAt *httpx.Date `json:"last_activity_at"`
}

func activityOf(u *domain.User) Activity {
	d := httpx.DatePtr(u.LastActivityOn)
	return Activity{Username: u.Username, LastActivityOn: d, LastActivityAt: d}
}

// ---- request parameters ----

// Profile are the optional account attributes POST and PUT /users share:
// nil fields take their defaults on creation and stay as they are on
// update.
type Profile struct {
	Skype          *string `param:"skype"`
	Linkedin       *string `param:"linkedin"`
	Twitter        *string `param:"twitter"`
	WebsiteURL     *string `param:"website_url"`
	Organization   *string `param:"organization"`
	ProjectsLimit  *int    `param:"projects_limit"`
	ExternUID      *string `param:"extern_uid"`
	Provider       *string `param:"provider"`
	Bio            *string `param:"bio"`
	Location       *string `param:"location"`
	Admin          *bool   `param:"admin"`
	CanCreateGroup *bool   `param:"can_create_group"`
	External       *bool   `param:"external"`
}

type createUserParams struct {
	Email         string  `param:"email,required"`
	Username      string  `param:"username,required"`
	Name          string  `param:"name,required"`
	Password      *string `param:"password"`
	ResetPassword *bool   `param:"reset_password"`
	Confirm       *bool   `param:"confirm"`
}

type updateUserParams struct {
	Email    *string `param:"email"`
	Username *string `param:"username"`
	Name     *string `param:"name"`
	Password *string `param:"password"`
}

type listUsersParams struct {
	Active        *bool      `param:"active"`
	Blocked       *bool      `param:"blocked"`
	Search        string     `param:"search"`
	Username      string     `param:"username"`
	ExternUID     string     `param:"extern_uid"`
	Provider      string     `param:"provider"`
	External      *bool      `param:"external"`
	CreatedBefore *time.Time `param:"created_before"`
	CreatedAfter  *time.Time `param:"created_after"`
}

type keyParams struct {
	Title string `param:"title,required"`
	Key   string `param:"key,required"`
}

type emailParams struct {
	Email string `param:"email,required"`
}

type tokenParams struct {
	Name      string     `param:"name,required"`
	Scopes    []string   `param:"scopes"`
	ExpiresAt *time.Time `param:"expires_at"`
}

type sessionParams struct {
	Login    string `param:"login"`
	Email    string `param:"email"`
	Password string `param:"password,required"`
}
