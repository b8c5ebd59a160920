package users

import (
	"errors"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestTokenExpiry(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "trent")
	tomorrow := domain.DateOf(f.clock.Now()).AddDate(0, 0, 1)
	tok, secret, err := f.svc.CreateImpersonationToken(ctx, f.admin, u.ID, TokenInput{Name: "imp", Scopes: []string{"api"}, ExpiresAt: &tomorrow})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Digest != domain.TokenDigest(secret) || tok.Digest == secret {
		t.Error("only the digest is stored")
	}
	c, err := f.auth.Token(ctx, secret)
	if err != nil || c.User.ID != u.ID || !c.Impersonated() || c.Secret != secret {
		t.Fatalf("impersonation acts as the user: %v %+v", err, c)
	}
	// Works through the day before its date, not on it.
	f.clock.Advance(11*time.Hour + 59*time.Minute) // 23:59 today
	if _, err := f.auth.Token(ctx, secret); err != nil {
		t.Errorf("last minute before expiry: %v", err)
	}
	f.clock.Advance(time.Minute)
	if _, err := f.auth.Token(ctx, secret); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("on the expiry date: %v", err)
	}
	list, total, err := f.svc.Tokens(ctx, f.admin, u.ID, domain.TokenImpersonation, domain.TokensInactive, domain.Page{Page: 1, PerPage: 20})
	if err != nil || total != 1 || list[0].ID != tok.ID {
		t.Errorf("inactive list: %v %d", err, total)
	}
}

func TestTokenValidation(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "uma")
	yesterday := domain.DateOf(f.clock.Now()).AddDate(0, 0, -1)
	cases := []struct {
		kind domain.TokenKind
		in   TokenInput
		msg  string
	}{
		{domain.TokenImpersonation, TokenInput{Name: "x"}, "scopes is missing"},
		{domain.TokenImpersonation, TokenInput{Name: "x", Scopes: []string{" ", ""}}, "scopes is missing"},
		{domain.TokenImpersonation, TokenInput{Name: "x", Scopes: []string{"sudo"}}, "scopes does not have a valid value"},
		{domain.TokenPersonal, TokenInput{Name: "x", Scopes: []string{"root"}}, "scopes does not have a valid value"},
		{domain.TokenPersonal, TokenInput{Name: " ", Scopes: []string{"api"}}, "name is missing"},
	}
	for _, c := range cases {
		_, _, err := f.svc.CreateToken(ctx, f.admin, u.ID, c.kind, c.in)
		wantKind(t, err, core.ErrInvalid, c.msg)
	}
	_, _, err := f.svc.CreatePersonalToken(ctx, f.admin, u.ID, "x", []string{"api"}, &yesterday)
	wantFields(t, err, map[string]string{"expires_at": "cannot be a date in the past"})
	_, _, err = f.svc.CreatePersonalToken(ctx, f.admin, 999, "x", []string{"api"}, nil)
	wantKind(t, err, core.ErrNotFound, "404 User Not Found")
	tok, _, err := f.svc.CreatePersonalToken(ctx, nil, u.ID, "cli", []string{"api", "api", "sudo"}, nil)
	if err != nil || len(tok.Scopes) != 2 {
		t.Fatalf("scopes are deduplicated: %v %+v", err, tok)
	}
	_, _, err = f.svc.Tokens(ctx, f.admin, u.ID, domain.TokenPersonal, "sleepy", domain.Page{Page: 1, PerPage: 20})
	wantKind(t, err, core.ErrInvalid, "state does not have a valid value")
}

func TestTokenListsSeparateKinds(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "wes") // has one personal token
	imp, _, err := f.svc.CreateImpersonationToken(ctx, f.admin, u.ID, TokenInput{Name: "imp", Scopes: []string{"read_user"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.SignIn(ctx, "wes", "secret-wes"); err != nil {
		t.Fatal(err)
	}
	page := domain.Page{Page: 1, PerPage: 20}
	personal, _, _ := f.svc.Tokens(ctx, f.admin, u.ID, domain.TokenPersonal, "", page)
	if len(personal) != 1 || personal[0].Kind != domain.TokenPersonal {
		t.Errorf("personal list %+v", personal)
	}
	imps, _, _ := f.svc.Tokens(ctx, f.admin, u.ID, domain.TokenImpersonation, domain.TokensAll, page)
	if len(imps) != 1 || imps[0].ID != imp.ID {
		t.Errorf("impersonation list %+v", imps)
	}
	// Each kind's endpoints only see their own kind.
	_, err = f.svc.Token(ctx, f.admin, u.ID, domain.TokenPersonal, imp.ID)
	wantKind(t, err, core.ErrNotFound, "404 Personal Access Token Not Found")
	err = f.svc.RevokeToken(ctx, f.admin, u.ID, domain.TokenPersonal, imp.ID)
	wantKind(t, err, core.ErrNotFound, "404 Personal Access Token Not Found")
	o, _, _ := f.user(t, "other")
	_, err = f.svc.Token(ctx, f.admin, o.ID, domain.TokenImpersonation, imp.ID)
	wantKind(t, err, core.ErrNotFound, "404 Impersonation Token Not Found")
}

func TestRevokedTokenFailsAtOnce(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "rita")
	tok, secret, err := f.svc.CreateImpersonationToken(ctx, f.admin, u.ID, TokenInput{Name: "imp", Scopes: []string{"api"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Token(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RevokeToken(ctx, f.admin, u.ID, domain.TokenImpersonation, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Token(ctx, secret); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("revoked: %v", err)
	}
	if err := f.svc.RevokeToken(ctx, f.admin, u.ID, domain.TokenImpersonation, tok.ID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
}
