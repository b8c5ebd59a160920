package users

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

var ctx = context.Background()

// wantKind checks an error's kind and, when msg is set, its client message.
func wantKind(t *testing.T, err error, kind error, msg string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want kind %v", err, kind)
	}
	var e *core.Error
	if msg != "" && (!errors.As(err, &e) || e.Msg != msg) {
		t.Fatalf("error %v, want message %q", err, msg)
	}
}

func wantFields(t *testing.T, err error, want map[string]string) {
	t.Helper()
	f := core.Fields(err)
	if f == nil {
		t.Fatalf("error %v has no field map", err)
	}
	for field, msg := range want {
		found := false
		for _, m := range f[field] {
			found = found || m == msg
		}
		if !found {
			t.Errorf("field %s lacks %q: %v", field, msg, f)
		}
	}
}

func TestCreateUserPublishesInsideTx(t *testing.T) {
	f := newFixture(t)
	f.bus.events, f.bus.inTx = nil, nil
	u, _, _ := f.user(t, "alice")
	if len(f.bus.events) != 1 {
		t.Fatalf("events %v", f.bus.events)
	}
	ev, ok := f.bus.events[0].(domain.UserCreated)
	if !ok || ev.User.ID != u.ID || ev.Actor != f.root.ID || !f.bus.inTx[0] {
		t.Errorf("event %+v in tx %v", f.bus.events[0], f.bus.inTx[0])
	}
	if ev.User.PasswordHash != "" {
		t.Error("events never carry the password hash")
	}
	if u.ProjectsLimit != DefaultProjectsLimit || !u.CanCreateGroup || u.ConfirmedAt == nil || u.ColorSchemeID != 1 {
		t.Errorf("defaults %+v", u)
	}
}

func TestCreateUserFailsWhenTheEventCannotBeRecorded(t *testing.T) {
	f := newFixture(t)
	f.bus.fail = errors.New("feed down")
	_, err := f.svc.CreateUser(ctx, f.admin, CreateUserInput{Username: "bob", Email: "bob@example.com", Name: "Bob", Password: "password1"})
	if err == nil {
		t.Fatal("a failing in-transaction subscriber fails the creation")
	}
}

func TestCreateUserValidation(t *testing.T) {
	f := newFixture(t)
	_, err := f.svc.CreateUser(ctx, f.admin, CreateUserInput{Username: "-x", Email: "nope", Name: "X", Password: "short"})
	wantKind(t, err, core.ErrInvalid, "")
	wantFields(t, err, map[string]string{
		"username": usernameFormatMsg,
		"email":    "is invalid",
		"password": "is too short (minimum is 8 characters)",
	})
	_, err = f.svc.CreateUser(ctx, f.admin, CreateUserInput{Username: "x", Email: "x@example.com", Name: "X", Password: "password1", Profile: Profile{ProjectsLimit: ptr(-1)}})
	wantFields(t, err, map[string]string{"projects_limit": "must be greater than or equal to 0"})
	// reset_password needs no password.
	u, err := f.svc.CreateUser(ctx, f.admin, CreateUserInput{Username: "r", Email: "r@example.com", Name: "R", ResetPassword: true})
	if err != nil || u.PasswordHash == "" || u.PasswordExpiresAt == nil {
		t.Fatalf("reset_password: %v %+v", err, u)
	}
	// The CLI may leave the name out.
	u, err = f.svc.CreateUser(ctx, nil, CreateUserInput{Username: "cli", Email: "CLI@Example.com", Password: "password1"})
	if err != nil || u.Name != "cli" || u.Email != "cli@example.com" {
		t.Fatalf("system create: %v %+v", err, u)
	}
}

func ptr[T any](v T) *T { return &v }

func TestCreateUserConflicts(t *testing.T) {
	f := newFixture(t)
	f.user(t, "bob")
	_, err := f.svc.CreateUser(ctx, f.admin, CreateUserInput{Username: "BOB", Email: "other@example.com", Name: "B", Password: "password1"})
	wantKind(t, err, core.ErrConflict, "Username has already been taken")
	if core.Fields(err) != nil {
		t.Error("a 409 carries a sentence, not a field map")
	}
	// Email is reported first when both are taken, as GitLab does.
	_, err = f.svc.CreateUser(ctx, f.admin, CreateUserInput{Username: "bob", Email: "Bob@Example.com", Name: "B", Password: "password1"})
	wantKind(t, err, core.ErrConflict, "Email has already been taken")
}

func TestOrdinaryUsersCannotAdminister(t *testing.T) {
	f := newFixture(t)
	u, alice, _ := f.user(t, "alice")
	checks := map[string]error{}
	_, checks["create"] = f.svc.CreateUser(ctx, alice, CreateUserInput{Username: "x", Email: "x@example.com", Name: "x", Password: "password1"})
	_, checks["update"] = f.svc.UpdateUser(ctx, alice, u.ID, UpdateUserInput{Name: ptr("x")})
	_, checks["delete"] = f.svc.DeleteUser(ctx, alice, f.root.ID)
	_, checks["block"] = f.svc.SetBlocked(ctx, alice, f.root.ID, true)
	_, _, checks["token"] = f.svc.CreatePersonalToken(ctx, alice, u.ID, "x", []string{"api"}, nil)
	_, _, checks["activities"] = f.svc.Activities(ctx, alice, nil, domain.Page{Page: 1, PerPage: 20})
	for name, err := range checks {
		if !errors.Is(err, core.ErrForbidden) {
			t.Errorf("%s: %v, want forbidden", name, err)
		}
	}
}

func TestUpdateUser(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "ivan")
	f.user(t, "judy")
	got, err := f.svc.UpdateUser(ctx, f.admin, u.ID, UpdateUserInput{Name: ptr("Ivan"), Profile: Profile{ProjectsLimit: ptr(3), Admin: ptr(true)}})
	if err != nil || got.Name != "Ivan" || got.ProjectsLimit != 3 || !got.Admin || got.Email != "ivan@example.com" {
		t.Fatalf("update: %v %+v", err, got)
	}
	_, err = f.svc.UpdateUser(ctx, f.admin, u.ID, UpdateUserInput{Email: ptr("JUDY@example.com")})
	wantKind(t, err, core.ErrConflict, "Email has already been taken")
	_, err = f.svc.UpdateUser(ctx, f.admin, u.ID, UpdateUserInput{Username: ptr("Judy")})
	wantKind(t, err, core.ErrConflict, "Username has already been taken")
	_, err = f.svc.UpdateUser(ctx, f.admin, 999, UpdateUserInput{Name: ptr("x")})
	wantKind(t, err, core.ErrNotFound, "404 User Not Found")
	_, err = f.svc.UpdateUser(ctx, f.admin, u.ID, UpdateUserInput{Name: ptr(" ")})
	wantFields(t, err, map[string]string{"name": "can't be blank"})
	// A new password works at once and is marked expired.
	got, err = f.svc.UpdateUser(ctx, f.admin, u.ID, UpdateUserInput{Password: ptr("brand-new-pass")})
	if err != nil || got.PasswordExpiresAt == nil {
		t.Fatalf("password: %v %+v", err, got)
	}
	if _, _, err := f.svc.SignIn(ctx, "ivan", "brand-new-pass"); err != nil {
		t.Errorf("new password: %v", err)
	}
	if _, _, err := f.svc.SignIn(ctx, "ivan", "secret-ivan"); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("old password: %v", err)
	}
}

func TestDeleteUser(t *testing.T) {
	f := newFixture(t)
	u, _, secret := f.user(t, "kim")
	got, err := f.svc.DeleteUser(ctx, f.admin, u.ID)
	if err != nil || got == nil || got.Username != "kim" {
		t.Fatalf("delete: %v %+v", err, got)
	}
	if got, err = f.svc.DeleteUser(ctx, f.admin, u.ID); err != nil || got != nil {
		t.Fatalf("second delete: %v %+v", err, got)
	}
	if _, err := f.auth.Token(ctx, secret); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("a deleted user's token: %v", err)
	}
	_, err = f.svc.DeleteUser(ctx, f.admin, f.root.ID)
	wantKind(t, err, core.ErrForbidden, "")
}

func TestBlockUnblock(t *testing.T) {
	f := newFixture(t)
	u, _, secret := f.user(t, "sam")
	f.bus.events = nil
	if _, err := f.svc.SetBlocked(ctx, f.admin, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Token(ctx, secret); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("blocked user's token: %v", err)
	}
	if _, err := f.auth.Password(ctx, "sam", "secret-sam"); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("blocked user's password: %v", err)
	}
	// Blocking again succeeds without a second event.
	if _, err := f.svc.SetBlocked(ctx, f.admin, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if len(f.bus.events) != 1 {
		t.Errorf("events %v", f.bus.events)
	}
	if _, err := f.svc.SetBlocked(ctx, f.admin, u.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Token(ctx, secret); err != nil {
		t.Errorf("unblocked user's token: %v", err)
	}
	_, err := f.svc.SetBlocked(ctx, f.admin, 999, true)
	wantKind(t, err, core.ErrNotFound, "404 User Not Found")
	// Directory blocks are not the API's to change.
	f.db.mu.Lock()
	lu := f.db.users[u.ID]
	lu.State = domain.UserLDAPBlocked
	f.db.users[u.ID] = lu
	f.db.mu.Unlock()
	_, err = f.svc.SetBlocked(ctx, f.admin, u.ID, false)
	wantKind(t, err, core.ErrForbidden, "403 Forbidden - LDAP blocked users cannot be unblocked by the API")
	_, err = f.svc.SetBlocked(ctx, f.admin, u.ID, true)
	wantKind(t, err, core.ErrForbidden, "403 Forbidden - LDAP blocked users cannot be modified by the API")
	// Nobody blocks themself out.
	_, err = f.svc.SetBlocked(ctx, f.admin, f.root.ID, true)
	wantKind(t, err, core.ErrForbidden, "")
}

func TestKeys(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "nina")
	o, _, _ := f.user(t, "oscar")
	line := keyLine("ssh-ed25519", ed25519Blob(t))
	k, err := f.svc.AddKey(ctx, u.ID, " laptop ", line+"\n")
	if err != nil || k.Title != "laptop" || k.Key != line || k.Fingerprint == "" {
		t.Fatalf("add: %v %+v", err, k)
	}
	_, err = f.svc.AddKey(ctx, o.ID, "stolen", line)
	wantKind(t, err, core.ErrInvalid, "")
	wantFields(t, err, map[string]string{"fingerprint": "has already been taken"})
	_, err = f.svc.AddKey(ctx, u.ID, "bad", "ssh-rsa AAAA")
	wantFields(t, err, map[string]string{"key": "is invalid", "fingerprint": "cannot be generated"})
	_, err = f.svc.AddKey(ctx, u.ID, "", "ssh-rsa AAAA")
	wantFields(t, err, map[string]string{"title": "can't be blank", "key": "is invalid"})
	_, err = f.svc.AddKey(ctx, 999, "x", keyLine("ssh-ed25519", ed25519Blob(t)))
	wantKind(t, err, core.ErrNotFound, "404 User Not Found")
	_, err = f.svc.UserKey(ctx, o.ID, k.ID)
	wantKind(t, err, core.ErrNotFound, "404 Key Not Found")
	_, err = f.svc.DeleteKey(ctx, o.ID, k.ID)
	wantKind(t, err, core.ErrNotFound, "404 Key Not Found")
	if _, err := f.svc.DeleteKey(ctx, u.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	// The fingerprint is free again.
	if _, err := f.svc.AddKey(ctx, o.ID, "mine now", line); err != nil {
		t.Fatalf("re-add: %v", err)
	}
}

func TestEmails(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "peggy")
	o, _, _ := f.user(t, "quinn")
	e, err := f.svc.AddEmail(ctx, u.ID, " Peggy.Work@Example.com ")
	if err != nil || e.Email != "peggy.work@example.com" {
		t.Fatalf("add: %v %+v", err, e)
	}
	for _, taken := range []string{"PEGGY.work@example.com", "peggy@example.com", "root@example.com", "admin@example.com"} {
		_, err = f.svc.AddEmail(ctx, o.ID, taken)
		if taken == "root@example.com" {
			if err != nil {
				t.Errorf("%s is free: %v", taken, err)
			}
			continue
		}
		wantFields(t, err, map[string]string{"email": "has already been taken"})
	}
	_, err = f.svc.AddEmail(ctx, u.ID, "nope")
	wantFields(t, err, map[string]string{"email": "is invalid"})
	_, err = f.svc.UserEmail(ctx, o.ID, e.ID)
	wantKind(t, err, core.ErrNotFound, "404 Email Not Found")
	// A secondary address cannot become another user's primary one.
	_, err = f.svc.CreateUser(ctx, f.admin, CreateUserInput{Username: "ray", Email: "peggy.work@example.com", Name: "R", Password: "password1"})
	wantKind(t, err, core.ErrConflict, "Email has already been taken")
}

func TestEnsureRootOnlyOnEmptyDatabase(t *testing.T) {
	f := newFixture(t)
	created, pw, err := f.svc.EnsureRoot(ctx, "", "")
	if err != nil || created || pw != "" {
		t.Fatalf("second EnsureRoot: %v %v %q", created, pw, err)
	}
	if !f.root.Admin || f.root.Username != "root" {
		t.Errorf("root %+v", f.root)
	}
	// A generated password is returned once and works.
	g := newFixture(t)
	g.db.mu.Lock()
	g.db.users = map[int64]domain.User{}
	g.db.tokens = map[int64]domain.Token{}
	g.db.mu.Unlock()
	created, pw, err = g.svc.EnsureRoot(ctx, "", "")
	if err != nil || !created || len(pw) < 20 {
		t.Fatalf("generated root: %v %q %v", created, pw, err)
	}
	if _, _, err := g.svc.SignIn(ctx, "root", pw); err != nil {
		t.Errorf("sign in with generated password: %v", err)
	}
	if _, _, err := g.svc.SignIn(ctx, "admin@example.com", pw); err != nil {
		t.Errorf("sign in by email: %v", err)
	}
}

func TestActivities(t *testing.T) {
	f := newFixture(t)
	f.user(t, "victor")
	if _, _, err := f.svc.SignIn(ctx, "victor", "secret-victor"); err != nil {
		t.Fatal(err)
	}
	list, total, err := f.svc.Activities(ctx, f.admin, nil, domain.Page{Page: 1, PerPage: 20})
	if err != nil || total != 1 || list[0].Username != "victor" || !list[0].LastActivityOn.Equal(domain.DateOf(f.clock.Now())) {
		t.Fatalf("activities: %v %d %+v", err, total, list)
	}
	// Seven months later the default window no longer covers it.
	f.clock.Advance(7 * 30 * 24 * time.Hour)
	if _, total, _ := f.svc.Activities(ctx, f.admin, nil, domain.Page{Page: 1, PerPage: 20}); total != 0 {
		t.Errorf("six-month window: %d", total)
	}
	from := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, total, _ := f.svc.Activities(ctx, f.admin, &from, domain.Page{Page: 1, PerPage: 20}); total != 1 {
		t.Errorf("explicit from: %d", total)
	}
}

func TestSessionTokensArePruned(t *testing.T) {
	f := newFixture(t)
	u, _, _ := f.user(t, "sess")
	var first string
	for i := 0; i < sessionTokensKept+3; i++ {
		_, secret, err := f.svc.SignIn(ctx, "sess", "secret-sess")
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = secret
		}
		if !strings.HasPrefix(secret, sessionTokenPrefix) {
			t.Errorf("session secret %q", secret)
		}
	}
	n := 0
	for _, tok := range f.db.tokens {
		if tok.UserID == u.ID && tok.Kind == domain.TokenSession {
			n++
		}
	}
	if n != sessionTokensKept {
		t.Errorf("%d session tokens kept", n)
	}
	if _, err := f.auth.Token(ctx, first); !errors.Is(err, core.ErrUnauthenticated) {
		t.Errorf("pruned session token: %v", err)
	}
}
