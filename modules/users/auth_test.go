package users

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestTokenAuthentication(t *testing.T) {
	f := newFixture(t)
	for _, bad := range []string{"", "nope", "glpat-unknown"} {
		if _, err := f.auth.Token(ctx, bad); !errors.Is(err, core.ErrUnauthenticated) {
			t.Errorf("token %q: %v", bad, err)
		}
	}
}

// TestTokenTouchIsThrottled proves the hot path does not write: the last-use
// time is written once per touch interval, not on every request.
func TestTokenTouchIsThrottled(t *testing.T) {
	f := newFixture(t)
	_, _, secret := f.user(t, "hot") // f.user authenticates once
	base := f.db.touches
	writes := f.db.writes
	for i := 0; i < 50; i++ {
		if _, err := f.auth.Token(ctx, secret); err != nil {
			t.Fatal(err)
		}
	}
	if f.db.touches != base || f.db.writes != writes {
		t.Errorf("50 reads within the interval wrote %d touches and %d user updates", f.db.touches-base, f.db.writes-writes)
	}
	f.clock.Advance(f.svc.p.Auth.TouchInterval)
	if _, err := f.auth.Token(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if f.db.touches != base+1 {
		t.Errorf("after the interval: %d touches", f.db.touches-base)
	}
}

func TestLockout(t *testing.T) {
	f := newFixture(t)
	f.user(t, "yuri")
	max := f.svc.p.Auth.MaxFailedAttempts
	for i := 0; i < max; i++ {
		if _, err := f.auth.Password(ctx, "yuri", "wrong-password"); !errors.Is(err, core.ErrUnauthenticated) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if _, err := f.auth.Password(ctx, "yuri", "secret-yuri"); !errors.Is(err, core.ErrUnauthenticated) {
		t.Fatalf("locked account accepted the right password: %v", err)
	}
	f.clock.Advance(f.svc.p.Auth.LockDuration - time.Second)
	if _, err := f.auth.Password(ctx, "yuri", "secret-yuri"); !errors.Is(err, core.ErrUnauthenticated) {
		t.Fatalf("still locked a second before the end: %v", err)
	}
	f.clock.Advance(time.Second)
	c, err := f.auth.Password(ctx, "yuri", "secret-yuri")
	if err != nil {
		t.Fatalf("after the lock: %v", err)
	}
	if c.User.FailedAttempts != 0 || c.User.LockedUntil != nil || c.User.CurrentSignInAt == nil || c.User.LastActivityOn == nil {
		t.Errorf("sign-in bookkeeping %+v", c.User)
	}
	// A success resets the count: max-1 failures do not lock.
	for i := 0; i < max-1; i++ {
		_, _ = f.auth.Password(ctx, "yuri", "wrong-password")
	}
	if _, err := f.auth.Password(ctx, "yuri", "secret-yuri"); err != nil {
		t.Fatalf("nine failures locked: %v", err)
	}
	// Email logins count too and reach the same account.
	if _, err := f.auth.Password(ctx, "YURI@example.com", "secret-yuri"); err != nil {
		t.Errorf("email login: %v", err)
	}
	if _, err := f.auth.Password(ctx, "nobody", "secret-yuri"); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("unknown login: %v", err)
	}
}

func TestSignInRecordsLastSignIn(t *testing.T) {
	f := newFixture(t)
	f.user(t, "lin")
	c1, err := f.auth.Password(ctx, "lin", "secret-lin")
	if err != nil {
		t.Fatal(err)
	}
	first := *c1.User.CurrentSignInAt
	f.clock.Advance(time.Hour)
	c2, err := f.auth.Password(ctx, "lin", "secret-lin")
	if err != nil {
		t.Fatal(err)
	}
	if !c2.User.LastSignInAt.Equal(first) || !c2.User.CurrentSignInAt.Equal(first.Add(time.Hour)) {
		t.Errorf("last %v current %v", c2.User.LastSignInAt, c2.User.CurrentSignInAt)
	}
}

func TestTwoFactorUsersCannotUsePasswords(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "tfa")
	f.db.mu.Lock()
	x := f.db.users[u.ID]
	x.TwoFactorEnabled = true
	f.db.users[u.ID] = x
	f.db.mu.Unlock()
	if _, err := f.auth.Password(ctx, "tfa", "secret-tfa"); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("two-factor password sign-in: %v", err)
	}
}

func TestSudo(t *testing.T) {
	f := newFixture(t)
	u, alice, _ := f.user(t, "alice")
	as, err := f.auth.Sudo(ctx, f.admin, "alice")
	if err != nil || as.User.ID != u.ID || as.Sudoer.ID != f.root.ID || as.Token != f.admin.Token || as.Secret != "" {
		t.Fatalf("sudo by username: %v %+v", err, as)
	}
	if as, err = f.auth.Sudo(ctx, f.admin, strconv.FormatInt(u.ID, 10)); err != nil || as.User.ID != u.ID {
		t.Fatalf("sudo by id: %v %+v", err, as)
	}
	_, err = f.auth.Sudo(ctx, alice, "root")
	wantKind(t, err, core.ErrForbidden, "403 Forbidden - Must be admin to use sudo")
	_, err = f.auth.Sudo(ctx, f.admin, "ghost")
	wantKind(t, err, core.ErrNotFound, "")
	_, err = f.auth.Sudo(ctx, f.admin, "999")
	wantKind(t, err, core.ErrNotFound, "")
	// Password sign-ins and impersonation tokens may not sudo.
	pw, err := f.auth.Password(ctx, "root", "root-password")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.auth.Sudo(ctx, pw, "alice")
	wantKind(t, err, core.ErrForbidden, "403 Forbidden - Must be admin to use sudo")
	_, secret, err := f.svc.CreateImpersonationToken(ctx, f.admin, f.root.ID, TokenInput{Name: "imp", Scopes: []string{"api"}})
	if err != nil {
		t.Fatal(err)
	}
	imp, err := f.auth.Token(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.auth.Sudo(ctx, imp, "alice")
	wantKind(t, err, core.ErrForbidden, "403 Forbidden - Must be admin to use sudo")
	// A personal token needs the sudo scope; a session token always may.
	_, apiOnly, _ := f.svc.CreatePersonalToken(ctx, nil, f.root.ID, "api", []string{"api"}, nil)
	c, _ := f.auth.Token(ctx, apiOnly)
	_, err = f.auth.Sudo(ctx, c, "alice")
	wantKind(t, err, core.ErrForbidden, "403 Forbidden - insufficient_scope")
	_, sess, err := f.svc.SignIn(ctx, "root", "root-password")
	if err != nil {
		t.Fatal(err)
	}
	c, _ = f.auth.Token(ctx, sess)
	if c.Token.Kind != domain.TokenSession {
		t.Fatalf("session token kind %s", c.Token.Kind)
	}
	if _, err = f.auth.Sudo(ctx, c, "alice"); err != nil {
		t.Errorf("session token sudo: %v", err)
	}
}

// TestTokenAsPasswordDoesNotLock: git clients send tokens as the Basic
// password; those are refused by Password but never lock the account.
func TestTokenAsPasswordDoesNotLock(t *testing.T) {
	f := newFixture(t)
	_, _, secret := f.user(t, "gitter")
	for i := 0; i < 2*f.svc.p.Auth.MaxFailedAttempts; i++ {
		if _, err := f.auth.Password(ctx, "gitter", secret); !errors.Is(err, core.ErrUnauthenticated) {
			t.Fatalf("token as password: %v", err)
		}
	}
	if _, err := f.auth.Password(ctx, "gitter", "secret-gitter"); err != nil {
		t.Errorf("account locked by token use: %v", err)
	}
	// Someone else's token is a wrong password like any other.
	_, _, other := f.user(t, "other")
	for i := 0; i < f.svc.p.Auth.MaxFailedAttempts; i++ {
		_, _ = f.auth.Password(ctx, "gitter", other)
	}
	if _, err := f.auth.Password(ctx, "gitter", "secret-gitter"); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("foreign tokens count as failures: %v", err)
	}
}
