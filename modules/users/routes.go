package users

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4. The user parameter is
// {id} everywhere, so patterns agree with other modules' /users/{id}/...
func routes(s *Service) httpx.Routes {
	h := handlers{s}
	imp, pat := domain.TokenImpersonation, domain.TokenPersonal
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: pattern, Handle: fn}
	}
	return httpx.Routes{Module: "users", Routes: []httpx.Route{
		r(http.MethodPost, "/session", h.session),

		r(http.MethodGet, "/user", h.currentUser),
		r(http.MethodGet, "/user/keys", h.listKeys(true)),
		r(http.MethodPost, "/user/keys", h.addKey(true)),
		r(http.MethodGet, "/user/keys/{key_id}", h.ownKey),
		r(http.MethodDelete, "/user/keys/{key_id}", h.deleteOwnKey),
		r(http.MethodGet, "/user/emails", h.listEmails(true)),
		r(http.MethodPost, "/user/emails", h.addEmail(true)),
		r(http.MethodGet, "/user/emails/{email_id}", h.ownEmail),
		r(http.MethodDelete, "/user/emails/{email_id}", h.deleteOwnEmail),
		r(http.MethodGet, "/user/activities", h.activities),

		r(http.MethodGet, "/keys/{id}", h.keyWithUser),

		r(http.MethodGet, "/users", h.listUsers),
		r(http.MethodPost, "/users", h.createUser),
		r(http.MethodGet, "/users/{id}", h.getUser),
		r(http.MethodPut, "/users/{id}", h.updateUser),
		r(http.MethodDelete, "/users/{id}", h.deleteUser),
		r(http.MethodPost, "/users/{id}/block", h.setBlocked(true)),
		r(http.MethodPost, "/users/{id}/unblock", h.setBlocked(false)),
		r(http.MethodGet, "/users/{id}/keys", h.listKeys(false)),
		r(http.MethodPost, "/users/{id}/keys", h.addKey(false)),
		r(http.MethodDelete, "/users/{id}/keys/{key_id}", h.deleteUserKey),
		r(http.MethodGet, "/users/{id}/emails", h.listEmails(false)),
		r(http.MethodPost, "/users/{id}/emails", h.addEmail(false)),
		r(http.MethodDelete, "/users/{id}/emails/{email_id}", h.deleteUserEmail),
		r(http.MethodGet, "/users/{id}/impersonation_tokens", h.listTokens(imp)),
		r(http.MethodPost, "/users/{id}/impersonation_tokens", h.createToken(imp)),
		r(http.MethodGet, "/users/{id}/impersonation_tokens/{token_id}", h.getToken(imp)),
		r(http.MethodDelete, "/users/{id}/impersonation_tokens/{token_id}", h.revokeToken(imp)),
		r(http.MethodGet, "/users/{id}/personal_access_tokens", h.listTokens(pat)),
		r(http.MethodPost, "/users/{id}/personal_access_tokens", h.createToken(pat)),
		r(http.MethodGet, "/users/{id}/personal_access_tokens/{token_id}", h.getToken(pat)),
		r(http.MethodDelete, "/users/{id}/personal_access_tokens/{token_id}", h.revokeToken(pat)),
	}}
}
