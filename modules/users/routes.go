package users

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// routes lists the module's endpoints under /api/v4. The user parameter is
// {id} everywhere, so patterns agree with other modules' /users/{id}/...
func routes(s *Service, clock ports.Clock) httpx.Routes {
	h := handlers{s: s, tokens: tokenPresenter{clock}}
	keys := owned[domain.SSHKey, SSHKey]{param: "key_id", what: "Key",
		list: s.Keys, get: s.UserKey, remove: s.DeleteKey, render: keyOf}
	emails := owned[domain.Email, Email]{param: "email_id", what: "Email",
		list: s.Emails, get: s.UserEmail, remove: s.DeleteEmail, render: emailOf}
	imp, pat := domain.TokenImpersonation, domain.TokenPersonal
	return httpx.Routes{Module: "users", Routes: []httpx.Route{
		{Method: http.MethodPost, Pattern: "/session", Handle: h.session},

		{Method: http.MethodGet, Pattern: "/user", Handle: h.currentUser},
		{Method: http.MethodGet, Pattern: "/user/keys", Handle: keys.index(true)},
		{Method: http.MethodPost, Pattern: "/user/keys", Handle: h.addKey(true)},
		{Method: http.MethodGet, Pattern: "/user/keys/{key_id}", Handle: keys.show},
		{Method: http.MethodDelete, Pattern: "/user/keys/{key_id}", Handle: keys.deleteOwn},
		{Method: http.MethodGet, Pattern: "/user/emails", Handle: emails.index(true)},
		{Method: http.MethodPost, Pattern: "/user/emails", Handle: h.addEmail(true)},
		{Method: http.MethodGet, Pattern: "/user/emails/{email_id}", Handle: emails.show},
		{Method: http.MethodDelete, Pattern: "/user/emails/{email_id}", Handle: emails.deleteOwn},
		{Method: http.MethodGet, Pattern: "/user/activities", Handle: h.activities},

		{Method: http.MethodGet, Pattern: "/keys/{id}", Handle: h.keyWithUser},

		{Method: http.MethodGet, Pattern: "/users", Handle: h.listUsers},
		{Method: http.MethodPost, Pattern: "/users", Handle: h.createUser},
		{Method: http.MethodGet, Pattern: "/users/{id}", Handle: h.getUser},
		{Method: http.MethodPut, Pattern: "/users/{id}", Handle: h.updateUser},
		{Method: http.MethodDelete, Pattern: "/users/{id}", Handle: h.deleteUser},
		{Method: http.MethodPost, Pattern: "/users/{id}/block", Handle: h.setBlocked(true)},
		{Method: http.MethodPost, Pattern: "/users/{id}/unblock", Handle: h.setBlocked(false)},
		{Method: http.MethodGet, Pattern: "/users/{id}/keys", Handle: keys.index(false)},
		{Method: http.MethodPost, Pattern: "/users/{id}/keys", Handle: h.addKey(false)},
		{Method: http.MethodDelete, Pattern: "/users/{id}/keys/{key_id}", Handle: keys.deleteOf},
		{Method: http.MethodGet, Pattern: "/users/{id}/emails", Handle: emails.index(false)},
		{Method: http.MethodPost, Pattern: "/users/{id}/emails", Handle: h.addEmail(false)},
		{Method: http.MethodDelete, Pattern: "/users/{id}/emails/{email_id}", Handle: emails.deleteOf},
		{Method: http.MethodGet, Pattern: "/users/{id}/impersonation_tokens", Handle: h.listTokens(imp)},
		{Method: http.MethodPost, Pattern: "/users/{id}/impersonation_tokens", Handle: h.createToken(imp)},
		{Method: http.MethodGet, Pattern: "/users/{id}/impersonation_tokens/{token_id}", Handle: h.getToken(imp)},
		{Method: http.MethodDelete, Pattern: "/users/{id}/impersonation_tokens/{token_id}", Handle: h.revokeToken(imp)},
		{Method: http.MethodGet, Pattern: "/users/{id}/personal_access_tokens", Handle: h.listTokens(pat)},
		{Method: http.MethodPost, Pattern: "/users/{id}/personal_access_tokens", Handle: h.createToken(pat)},
		{Method: http.MethodGet, Pattern: "/users/{id}/personal_access_tokens/{token_id}", Handle: h.getToken(pat)},
		{Method: http.MethodDelete, Pattern: "/users/{id}/personal_access_tokens/{token_id}", Handle: h.revokeToken(pat)},
	}}
}
