package users

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// Impersonation and personal access tokens of /users/:id (administrators).

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
		return httpx.Paginated(w, r, h.tokens.list(list), total, pg)
	}
}

func (h handlers) createToken(kind domain.TokenKind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, uid, err := targetUser(r, false)
		if err != nil {
			return err
		}
		var in tokenParams
		var extra httpx.Problems
		if !httpx.Has(r, "scopes") {
			extra.Add("scopes is missing")
		}
		if err := decodeAll(r, extra, &in); err != nil {
			return err
		}
		t, secret, err := h.s.CreateToken(r.Context(), caller, uid, kind, TokenInput{Name: in.Name, Scopes: in.Scopes, ExpiresAt: in.ExpiresAt})
		if err != nil {
			return err
		}
		out := h.tokens.one(t)
		out.Token = &secret
		return httpx.Created(w, out)
	}
}

func (h handlers) getToken(kind domain.TokenKind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, uid, id, err := tokenOfUser(r, kind)
		if err != nil {
			return err
		}
		t, err := h.s.Token(r.Context(), caller, uid, kind, id)
		if err != nil {
			return err
		}
		return httpx.OK(w, h.tokens.one(t))
	}
}

// revokeToken answers 204 No Content, as GitLab 9.x does.
func (h handlers) revokeToken(kind domain.TokenKind) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, uid, id, err := tokenOfUser(r, kind)
		if err != nil {
			return err
		}
		if err := h.s.RevokeToken(r.Context(), caller, uid, kind, id); err != nil {
			return err
		}
		return httpx.NoContent(w)
	}
}

// tokenOfUser reads /users/:id/<tokens>/:token_id (administrators).
func tokenOfUser(r *http.Request, kind domain.TokenKind) (caller *domain.Caller, userID, id int64, err error) {
	if caller, userID, err = targetUser(r, false); err != nil {
		return nil, 0, 0, err
	}
	id, err = httpx.IDParam(r, "token_id", tokenWhat(kind))
	return caller, userID, id, err
}
