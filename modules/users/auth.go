package users

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Authenticator is the core ports.Authenticator over the users module's
// stores. It keeps no cache: every request reads the token and its user,
// so a block, a revocation or an expiry counts at the very next request.
type Authenticator struct{ s *Service }

// NewAuthenticator wraps the service.
func NewAuthenticator(s *Service) *Authenticator { return &Authenticator{s: s} }

var _ ports.Authenticator = (*Authenticator)(nil)

// Token resolves a presented token with one lookup by digest and one user
// read. Unknown, revoked and expired tokens and blocked users are 401. The
// token's last use is written at most once per configured touch interval.
func (a *Authenticator) Token(ctx context.Context, secret string) (*domain.Caller, error) {
	s := a.s
	if secret == "" {
		return nil, core.Unauthenticated()
	}
	digest := domain.TokenDigest(secret)
	if strings.HasPrefix(secret, JobTokenPrefix) {
		return a.jobToken(ctx, secret, digest)
	}
	t, err := s.p.Tokens.GetByDigest(ctx, digest)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.Unauthenticated()
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(t.Digest), []byte(digest)) != 1 {
		return nil, core.Unauthenticated()
	}
	now := s.now()
	if !t.Active(now) {
		return nil, core.Unauthenticated()
	}
	u, err := s.p.Users.Get(ctx, t.UserID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.Unauthenticated()
	}
	if err != nil {
		return nil, err
	}
	if u.Blocked() {
		return nil, core.Unauthenticated()
	}
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= s.p.Auth.TouchInterval {
		if err := s.p.Tokens.TouchLastUsed(context.WithoutCancel(ctx), t.ID, now); err != nil {
			s.log.Warn("record token use", zap.Int64("token_id", t.ID), zap.Error(err))
		}
	}
	return &domain.Caller{User: u, Token: t, Secret: secret}, nil
}

// JobTokenPrefix starts every CI job token.
const JobTokenPrefix = "glcbt-"

// jobToken resolves a CI job token: it works while its job runs (or was
// canceled and its runner has not reported the end yet) and acts as the
// job's user, for reads only (core/access caps a job caller's rights).
func (a *Authenticator) jobToken(ctx context.Context, secret, digest string) (*domain.Caller, error) {
	s := a.s
	if s.p.Jobs == nil {
		return nil, core.Unauthenticated()
	}
	j, err := s.p.Jobs.GetByToken(ctx, digest)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.Unauthenticated()
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(j.TokenDigest), []byte(digest)) != 1 ||
		!(j.Status == domain.CIRunning || (j.Status == domain.CICanceled && !j.RunnerFinished)) {
		return nil, core.Unauthenticated()
	}
	c := &domain.Caller{Job: j, Secret: secret}
	if j.UserID != nil {
		u, err := s.p.Users.Get(ctx, *j.UserID)
		switch {
		case errors.Is(err, core.ErrNotFound):
		case err != nil:
			return nil, err
		case u.Blocked():
			return nil, core.Unauthenticated()
		default:
			// A job never acts as an administrator, even its admin's.
			ju := *u
			ju.Admin = false
			c.User = &ju
		}
	}
	return c, nil
}

// Password signs in with a username or primary email. Bad credentials,
// blocked, locked and two-factor accounts are 401. Failures count; reaching
// the configured limit locks the account for the lock duration, during
// which even the right password fails. A success resets the count and
// records the sign-in and the day's activity.
func (a *Authenticator) Password(ctx context.Context, login, password string) (*domain.Caller, error) {
	return a.s.checkPassword(ctx, login, password)
}

// Sudo lets an administrator act as another user (ID or username). Only a
// token sign-in may sudo: a session token, or a personal token with the
// sudo scope; impersonation tokens and password sign-ins may not.
func (a *Authenticator) Sudo(ctx context.Context, caller *domain.Caller, ref string) (*domain.Caller, error) {
	if caller == nil || caller.User == nil {
		return nil, core.Unauthenticated()
	}
	if !caller.User.Admin || caller.Token == nil || caller.Impersonated() || caller.Sudoer != nil {
		return nil, core.Forbidden("Must be admin to use sudo")
	}
	if caller.Token.Kind == domain.TokenPersonal && !caller.Token.HasScope(domain.ScopeSudo) {
		return nil, core.Forbidden("insufficient_scope")
	}
	target, err := a.s.UserByRef(ctx, ref)
	if err != nil {
		return nil, err
	}
	return &domain.Caller{User: target, Token: caller.Token, Sudoer: caller.User}, nil
}

func (s *Service) locked(u *domain.User, now time.Time) bool {
	return u.LockedUntil != nil && now.Before(*u.LockedUntil)
}

// burnHash spends the time of a password check so unknown logins answer as
// slowly as known ones.
func (s *Service) burnHash(password string) {
	s.dummyOnce.Do(func() {
		h, err := s.p.Hasher.Hash("hearth-dummy-password-for-timing")
		if err == nil {
			s.dummyHash = h
		}
	})
	if s.dummyHash != "" {
		_, _ = s.p.Hasher.Verify(s.dummyHash, password)
	}
}

var errSignInRefused = errors.New("sign-in refused")

func (s *Service) checkPassword(ctx context.Context, login, password string) (*domain.Caller, error) {
	login = strings.TrimSpace(login)
	if login == "" || password == "" {
		return nil, core.Unauthenticated()
	}
	// GitLab's find_with_user_password: with password sign-in disabled no
	// password signs in (tokens still do).
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		return nil, fmt.Errorf("application settings: %w", err)
	}
	if !app.SigninEnabled {
		return nil, core.Unauthenticated()
	}
	u, err := s.UserByLogin(ctx, login)
	if errors.Is(err, core.ErrNotFound) {
		s.burnHash(password)
		return nil, core.Unauthenticated()
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	if u.Blocked() || s.locked(u, now) {
		return nil, core.Unauthenticated()
	}
	ok := false
	if u.PasswordHash == "" {
		s.burnHash(password)
	} else if ok, err = s.p.Hasher.Verify(u.PasswordHash, password); err != nil {
		s.log.Warn("unreadable password hash", zap.Int64("user_id", u.ID), zap.Error(err))
		ok = false
	}
	if !ok {
		// Git clients send a token as the HTTP Basic password; that is not
		// a guess at the password and must not count towards a lock.
		if !s.isOwnToken(ctx, u.ID, password) {
			s.recordFailure(ctx, u.ID, now)
		}
		return nil, core.Unauthenticated()
	}
	// GitLab: users with two-factor authentication use personal access tokens.
	if u.TwoFactorEnabled {
		return nil, core.Unauthenticated()
	}
	today := domain.DateOf(now)
	u, err = s.p.Users.Update(ctx, u.ID, func(u *domain.User) error {
		// Re-checked under the row lock: a block or lock may have landed
		// while the password was being verified.
		if u.Blocked() || s.locked(u, now) {
			return errSignInRefused
		}
		u.FailedAttempts = 0
		u.LockedUntil = nil
		last := now
		if u.CurrentSignInAt != nil {
			last = *u.CurrentSignInAt
		}
		u.LastSignInAt = &last
		u.CurrentSignInAt = &now
		if u.LastActivityOn == nil || u.LastActivityOn.Before(today) {
			u.LastActivityOn = &today
		}
		return nil
	})
	if errors.Is(err, errSignInRefused) || errors.Is(err, core.ErrNotFound) {
		return nil, core.Unauthenticated()
	}
	if err != nil {
		return nil, err
	}
	return &domain.Caller{User: u}, nil
}

// isOwnToken reports whether secret is one of the user's tokens.
func (s *Service) isOwnToken(ctx context.Context, userID int64, secret string) bool {
	t, err := s.p.Tokens.GetByDigest(ctx, domain.TokenDigest(secret))
	return err == nil && t.UserID == userID
}

// recordFailure counts a failed sign-in and locks the account when the
// count reaches the limit. An expired lock starts a fresh count.
func (s *Service) recordFailure(ctx context.Context, id int64, now time.Time) {
	lockedNow := false
	_, err := s.p.Users.Update(ctx, id, func(u *domain.User) error {
		if s.locked(u, now) {
			return nil
		}
		if u.LockedUntil != nil {
			u.LockedUntil = nil
			u.FailedAttempts = 0
		}
		u.FailedAttempts++
		if u.FailedAttempts >= s.p.Auth.MaxFailedAttempts {
			until := now.Add(s.p.Auth.LockDuration)
			u.LockedUntil = &until
			lockedNow = true
		}
		return nil
	})
	if err != nil {
		s.log.Warn("record failed sign-in", zap.Int64("user_id", id), zap.Error(err))
		return
	}
	if lockedNow {
		s.log.Warn("account locked after failed sign-ins", zap.Int64("user_id", id),
			zap.Duration("lock", s.p.Auth.LockDuration))
	}
}
