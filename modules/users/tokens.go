package users

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Secret prefixes help secret scanners recognise leaked tokens.
const (
	personalTokenPrefix = "glpat-"
	sessionTokenPrefix  = "glsess-"
)

// scopesFor lists the scopes a token kind may carry: impersonation tokens
// take GitLab 9.x's api and read_user, personal tokens also sudo.
func scopesFor(kind domain.TokenKind) []string {
	if kind == domain.TokenPersonal {
		return []string{domain.ScopeAPI, domain.ScopeReadUser, domain.ScopeSudo}
	}
	return []string{domain.ScopeAPI, domain.ScopeReadUser}
}

// tokenWhat names a token kind in 404 messages.
func tokenWhat(kind domain.TokenKind) string {
	if kind == domain.TokenImpersonation {
		return "Impersonation Token"
	}
	return "Personal Access Token"
}

// TokenInput describes a personal or impersonation token to create.
type TokenInput struct {
	Name   string
	Scopes []string
	// ExpiresAt is a date; the token stops working when it begins.
	ExpiresAt *time.Time
}

// normalizeScopes trims, drops blanks and duplicates, and checks every scope
// against the kind's allowed set.
func normalizeScopes(kind domain.TokenKind, scopes []string) ([]string, error) {
	allowed := scopesFor(kind)
	out := make([]string, 0, len(scopes))
	seen := map[string]bool{}
	for _, sc := range scopes {
		sc = strings.TrimSpace(sc)
		if sc == "" || seen[sc] {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == sc
		}
		if !ok {
			return nil, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "scopes does not have a valid value"}
		}
		seen[sc] = true
		out = append(out, sc)
	}
	if len(out) == 0 {
		return nil, core.MissingParam("scopes")
	}
	return out, nil
}

// CreateImpersonationToken creates a token acting as the user for an
// administrator; it is hidden from the user's own token lists.
func (s *Service) CreateImpersonationToken(ctx context.Context, actor *domain.Caller, userID int64, in TokenInput) (*domain.Token, string, error) {
	return s.CreateToken(ctx, actor, userID, domain.TokenImpersonation, in)
}

// CreatePersonalToken creates a personal access token for a user: by an
// administrator, or by the system when actor is nil (CLI, bootstrap).
// Scopes: api, read_user, sudo. The secret is returned once and only its
// digest is stored.
func (s *Service) CreatePersonalToken(ctx context.Context, actor *domain.Caller, userID int64, name string, scopes []string, expiresAt *time.Time) (*domain.Token, string, error) {
	return s.CreateToken(ctx, actor, userID, domain.TokenPersonal, TokenInput{Name: name, Scopes: scopes, ExpiresAt: expiresAt})
}

// CreateToken creates an impersonation or personal access token for a user
// (administrators, or the system when actor is nil). The secret is
// returned once and only its digest is stored.
func (s *Service) CreateToken(ctx context.Context, actor *domain.Caller, userID int64, kind domain.TokenKind, in TokenInput) (*domain.Token, string, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, "", err
	}
	if _, err := s.p.Users.Get(ctx, userID); err != nil {
		return nil, "", core.StoreError(err, "User", "")
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, "", core.MissingParam("name")
	}
	scopes, err := normalizeScopes(kind, in.Scopes)
	if err != nil {
		return nil, "", err
	}
	errs := core.FieldErrors{}
	if len([]rune(name)) > maxTokenName {
		errs.Add("name", fmt.Sprintf("is too long (maximum is %d characters)", maxTokenName))
	}
	now := s.now()
	var expires *time.Time
	if in.ExpiresAt != nil {
		d := domain.DateOf(*in.ExpiresAt)
		if d.Before(domain.DateOf(now)) {
			errs.Add("expires_at", "cannot be a date in the past")
		}
		expires = &d
	}
	if len(errs) > 0 {
		return nil, "", core.Validation(errs)
	}
	t := &domain.Token{
		UserID:    userID,
		Name:      name,
		Kind:      kind,
		Scopes:    scopes,
		ExpiresAt: expires,
		CreatedAt: now,
	}
	secret, err := s.storeToken(ctx, t, personalTokenPrefix)
	if err != nil {
		return nil, "", core.StoreError(err, "User", "")
	}
	s.log.Info("token created", zap.Int64("token_id", t.ID), zap.Int64("user_id", userID),
		zap.String("kind", string(kind)), zap.Strings("scopes", scopes), zap.Int64("actor_id", actor.UserID()))
	return t, secret, nil
}

// storeToken draws a secret, stores its digest in t and returns the secret.
// A digest collision (never expected with 160+ random bits) draws again.
func (s *Service) storeToken(ctx context.Context, t *domain.Token, prefix string) (string, error) {
	for attempt := 0; ; attempt++ {
		secret, err := s.p.TokenGen.NewToken(prefix)
		if err != nil {
			return "", fmt.Errorf("generate token: %w", err)
		}
		t.Digest = domain.TokenDigest(secret)
		err = s.p.Tokens.Create(ctx, t)
		if err == nil {
			return secret, nil
		}
		if !errors.Is(err, core.ErrConflict) || attempt >= 2 {
			return "", err
		}
	}
}

// Tokens lists a user's tokens of one kind (administrators only), filtered
// by state: "" or all, active, inactive.
func (s *Service) Tokens(ctx context.Context, actor *domain.Caller, userID int64, kind domain.TokenKind, state domain.TokenState, p domain.Page) ([]domain.Token, int, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, 0, err
	}
	switch state {
	case "", domain.TokensAll, domain.TokensActive, domain.TokensInactive:
	default:
		return nil, 0, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "state does not have a valid value"}
	}
	if _, err := s.p.Users.Get(ctx, userID); err != nil {
		return nil, 0, core.StoreError(err, "User", "")
	}
	return s.p.Tokens.List(ctx, ports.TokenFilter{
		UserID: userID,
		Kinds:  []domain.TokenKind{kind},
		State:  state,
		Now:    s.now(),
		Page:   p,
	})
}

// Token returns one of the user's tokens of kind (administrators only).
func (s *Service) Token(ctx context.Context, actor *domain.Caller, userID int64, kind domain.TokenKind, id int64) (*domain.Token, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	if _, err := s.p.Users.Get(ctx, userID); err != nil {
		return nil, core.StoreError(err, "User", "")
	}
	t, err := s.p.Tokens.Get(ctx, id)
	if err != nil {
		return nil, core.StoreError(err, tokenWhat(kind), "")
	}
	if t.UserID != userID || t.Kind != kind {
		return nil, core.NotFound(tokenWhat(kind))
	}
	return t, nil
}

// RevokeToken revokes one of the user's tokens of kind (administrators
// only). Revoking twice succeeds; the token fails at its next use.
func (s *Service) RevokeToken(ctx context.Context, actor *domain.Caller, userID int64, kind domain.TokenKind, id int64) error {
	t, err := s.Token(ctx, actor, userID, kind, id)
	if err != nil {
		return err
	}
	if err := s.p.Tokens.Revoke(ctx, t.ID); err != nil {
		return core.StoreError(err, tokenWhat(kind), "")
	}
	s.log.Info("token revoked", zap.Int64("token_id", t.ID), zap.Int64("user_id", userID),
		zap.String("kind", string(kind)), zap.Int64("actor_id", actor.UserID()))
	return nil
}

// SignIn checks credentials (see Authenticator.Password) and issues a new
// session token, GitLab's private token, keeping the newest few per user.
func (s *Service) SignIn(ctx context.Context, login, password string) (*domain.User, string, error) {
	c, err := s.checkPassword(ctx, login, password)
	if err != nil {
		return nil, "", err
	}
	u := c.User
	t := &domain.Token{
		UserID:    u.ID,
		Name:      "session",
		Kind:      domain.TokenSession,
		Scopes:    []string{domain.ScopeAPI},
		CreatedAt: s.now(),
	}
	var secret string
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		if secret, err = s.storeToken(ctx, t, sessionTokenPrefix); err != nil {
			return err
		}
		return s.p.Tokens.PruneSessions(ctx, u.ID, sessionTokensKept)
	})
	if err != nil {
		return nil, "", fmt.Errorf("issue session token: %w", err)
	}
	s.log.Info("signed in", zap.Int64("user_id", u.ID), zap.Int64("token_id", t.ID))
	return u, secret, nil
}
