package contracttests

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func storeUserCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	u := &domain.User{
		Username: "Alice", Name: "Alice Liddell", Email: "Alice@Example.com",
		PasswordHash: "$argon2id$hash", State: domain.UserActive, Admin: true,
		Bio: "bio", Location: "Oxford", Skype: "sk", Linkedin: "li", Twitter: "tw",
		WebsiteURL: "https://example.com", Organization: "Wonderland", AvatarURL: "https://example.com/a.png",
		ProjectsLimit: 10, CanCreateGroup: true, External: true,
		ExternUID: "uid=alice", Provider: "ldapmain", ColorSchemeID: 2, TwoFactorEnabled: true,
		ConfirmedAt: storePtr(storeT0), CreatedAt: storeT0, UpdatedAt: storeT0.Add(time.Second),
		LastSignInAt: storePtr(storeT0.Add(time.Hour)), CurrentSignInAt: storePtr(storeT0.Add(2 * time.Hour)),
		LastActivityOn: storePtr(storeDay(2024, 3, 1)), FailedAttempts: 3,
		LockedUntil: storePtr(storeT0.Add(10 * time.Minute)), PasswordExpiresAt: storePtr(storeT0.Add(24 * time.Hour)),
	}
	if err := s.Users.Create(ctx, u); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if u.ID <= 0 {
		t.Fatalf("Create set ID %d", u.ID)
	}
	want := *u
	for _, get := range []struct {
		name string
		fn   func() (*domain.User, error)
	}{
		{"Get", func() (*domain.User, error) { return s.Users.Get(ctx, u.ID) }},
		{"GetByUsername", func() (*domain.User, error) { return s.Users.GetByUsername(ctx, "aLICE") }},
		{"GetByEmail", func() (*domain.User, error) { return s.Users.GetByEmail(ctx, "alice@EXAMPLE.com") }},
	} {
		got, err := get.fn()
		if err != nil {
			t.Fatalf("%s: %v", get.name, err)
		}
		if diff := cmp.Diff(want, *got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", get.name, diff)
		}
	}
}

func storeUserCreateDefaults(t *testing.T, s Stores) {
	before := time.Now().Add(-time.Second)
	u := &domain.User{Username: "bob", Name: "Bob", Email: "bob@example.com", State: domain.UserActive}
	if err := s.Users.Create(t.Context(), u); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got, err := s.Users.Get(t.Context(), u.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.CreatedAt.Before(before) || got.UpdatedAt.Before(before) {
		t.Errorf("zero CreatedAt/UpdatedAt not set to now: %v / %v", got.CreatedAt, got.UpdatedAt)
	}
	if !got.CreatedAt.Equal(u.CreatedAt) {
		t.Errorf("Create left CreatedAt %v on the argument, stored %v", u.CreatedAt, got.CreatedAt)
	}
	if got.ConfirmedAt != nil || got.LastActivityOn != nil || got.LockedUntil != nil {
		t.Errorf("unset times read back set: %+v", got)
	}
}

func storeUserTimesUTC(t *testing.T, s Stores) {
	zone := time.FixedZone("UTC+5", 5*3600)
	local := time.Date(2024, 3, 1, 23, 30, 0, 999, zone) // 18:30 UTC, nanoseconds dropped
	u := &domain.User{Username: "zoe", Email: "zoe@example.com", State: domain.UserActive,
		CreatedAt: local, UpdatedAt: local, ConfirmedAt: &local, LastActivityOn: &local}
	if err := s.Users.Create(t.Context(), u); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got, err := s.Users.Get(t.Context(), u.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	wantTime := time.Date(2024, 3, 1, 18, 30, 0, 0, time.UTC)
	for name, tm := range map[string]time.Time{"CreatedAt": got.CreatedAt, "ConfirmedAt": *got.ConfirmedAt} {
		if tm.Location() != time.UTC || !tm.Equal(wantTime) {
			t.Errorf("%s = %v, want %v in UTC", name, tm, wantTime)
		}
	}
	if want := storeDay(2024, 3, 1); !got.LastActivityOn.Equal(want) || got.LastActivityOn.Location() != time.UTC {
		t.Errorf("LastActivityOn = %v, want the UTC date %v", got.LastActivityOn, want)
	}
}

func storeUserNotFound(t *testing.T, s Stores) {
	ctx := t.Context()
	storeUser(t, s, "alice")
	_, err := s.Users.Get(ctx, 999999)
	storeWantKind(t, err, core.ErrNotFound, "Get")
	_, err = s.Users.GetByUsername(ctx, "nobody")
	storeWantKind(t, err, core.ErrNotFound, "GetByUsername")
	_, err = s.Users.GetByEmail(ctx, "nobody@example.com")
	storeWantKind(t, err, core.ErrNotFound, "GetByEmail")
	_, err = s.Users.GetByUsername(ctx, "alic%")
	storeWantKind(t, err, core.ErrNotFound, "GetByUsername with a wildcard")
	err = s.Users.Delete(ctx, 999999)
	storeWantKind(t, err, core.ErrNotFound, "Delete")
}

func storeUserUsernameTaken(t *testing.T, s Stores) {
	storeUser(t, s, "alice")
	err := s.Users.Create(t.Context(), &domain.User{Username: "ALICE", Email: "other@example.com", State: domain.UserActive})
	storeWantTaken(t, err, "username", "Create with a taken username in another case")
	if n, _ := s.Users.Count(t.Context()); n != 1 {
		t.Errorf("Count = %d after the conflict, want 1", n)
	}
	if _, err := s.Users.GetByEmail(t.Context(), "other@example.com"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("the address of the rejected user was kept: %v", err)
	}
}

func storeUserEmailTaken(t *testing.T, s Stores) {
	storeUser(t, s, "alice")
	err := s.Users.Create(t.Context(), &domain.User{Username: "bob", Email: "ALICE@example.COM", State: domain.UserActive})
	storeWantTaken(t, err, "email", "Create with another user's email")
	if _, err := s.Users.GetByUsername(t.Context(), "bob"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("the rejected user was kept: %v", err)
	}
}

func storeUserEmailTakenBySecondary(t *testing.T, s Stores) {
	alice := storeUser(t, s, "alice")
	storeEmail(t, s, alice.ID, "alice.second@example.com")
	err := s.Users.Create(t.Context(), &domain.User{Username: "bob", Email: "Alice.Second@example.com", State: domain.UserActive})
	storeWantTaken(t, err, "email", "Create with another user's secondary email")
}

func storeUserIdentityTaken(t *testing.T, s Stores) {
	ctx := t.Context()
	a := &domain.User{Username: "a", Email: "a@example.com", State: domain.UserActive, Provider: "ldapmain", ExternUID: "uid=a"}
	if err := s.Users.Create(ctx, a); err != nil {
		t.Fatalf("Create: %v", err)
	}
	// Users without an identity never collide.
	storeUser(t, s, "b")
	storeUser(t, s, "c")
	err := s.Users.Create(ctx, &domain.User{Username: "d", Email: "d@example.com", State: domain.UserActive, Provider: "ldapmain", ExternUID: "uid=a"})
	storeWantKind(t, err, core.ErrConflict, "Create with a taken external identity")
	other := &domain.User{Username: "e", Email: "e@example.com", State: domain.UserActive, Provider: "github", ExternUID: "uid=a"}
	if err := s.Users.Create(ctx, other); err != nil {
		t.Fatalf("same extern_uid at another provider: %v", err)
	}
}

func storeUserGetMany(t *testing.T, s Stores) {
	a, c := storeUser(t, s, "a"), storeUser(t, s, "c")
	storeUser(t, s, "b")
	got, err := s.Users.GetMany(t.Context(), []int64{c.ID, 999999, a.ID})
	if err != nil {
		t.Fatalf("GetMany: %v", err)
	}
	ids := map[int64]bool{}
	for _, u := range got {
		ids[u.ID] = true
	}
	if diff := cmp.Diff(map[int64]bool{a.ID: true, c.ID: true}, ids); diff != "" {
		t.Errorf("GetMany (-want +got):\n%s", diff)
	}
	for _, u := range got {
		if u.ID == c.ID && u.Username != "c" {
			t.Errorf("GetMany returned %+v for c", u)
		}
	}
	got, err = s.Users.GetMany(t.Context(), nil)
	if err != nil || len(got) != 0 {
		t.Errorf("GetMany(nil) = %v, %v; want nothing", got, err)
	}
}

func storeUserUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "alice")
	later := storeT0.Add(time.Hour)
	got, err := s.Users.Update(ctx, u.ID, func(u *domain.User) error {
		u.Username = "alice2"
		u.Name = "Alice Two"
		u.Email = "alice2@example.com"
		u.State = domain.UserBlocked
		u.Admin = true
		u.Bio = "new bio"
		u.FailedAttempts = 4
		u.LockedUntil = &later
		u.UpdatedAt = later
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := *u
	want.Username, want.Name, want.Email = "alice2", "Alice Two", "alice2@example.com"
	want.State, want.Admin, want.Bio, want.FailedAttempts = domain.UserBlocked, true, "new bio", 4
	want.LockedUntil, want.UpdatedAt = &later, later
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("Update result (-want +got):\n%s", diff)
	}
	stored, err := s.Users.Get(ctx, u.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(want, *stored); diff != "" {
		t.Errorf("stored after Update (-want +got):\n%s", diff)
	}
	if _, err := s.Users.GetByEmail(ctx, "alice2@example.com"); err != nil {
		t.Errorf("GetByEmail(new address): %v", err)
	}
	// An update that leaves UpdatedAt alone still moves it.
	got, err = s.Users.Update(ctx, u.ID, func(u *domain.User) error { u.Bio = "again"; return nil })
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if !got.UpdatedAt.After(later) {
		t.Errorf("UpdatedAt = %v, want it moved past %v", got.UpdatedAt, later)
	}
}

func storeUserUpdateFnError(t *testing.T, s Stores) {
	u := storeUser(t, s, "alice")
	sentinel := errors.New("refused")
	_, err := s.Users.Update(t.Context(), u.ID, func(u *domain.User) error {
		u.Name = "changed"
		u.Email = "changed@example.com"
		return sentinel
	})
	if err != sentinel {
		t.Fatalf("Update = %v, want fn's error as is", err)
	}
	got, err := s.Users.Get(t.Context(), u.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Name != u.Name || got.Email != u.Email {
		t.Errorf("failed Update persisted %q %q", got.Name, got.Email)
	}
	storeUser(t, s, "changed") // changed@example.com is still free
}

func storeUserUpdateNotFound(t *testing.T, s Stores) {
	called := false
	_, err := s.Users.Update(t.Context(), 999999, func(*domain.User) error { called = true; return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update")
	if called {
		t.Error("fn called for a missing user")
	}
}

func storeUserUpdateConflicts(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	storeEmail(t, s, bob.ID, "bob.second@example.com")
	cases := []struct {
		field string
		fn    func(*domain.User)
	}{
		{"username", func(u *domain.User) { u.Username = "BOB"; u.Name = "x" }},
		{"email", func(u *domain.User) { u.Email = "Bob@example.com"; u.Name = "x" }},
		{"email", func(u *domain.User) { u.Email = "bob.SECOND@example.com"; u.Name = "x" }},
	}
	for _, c := range cases {
		_, err := s.Users.Update(ctx, alice.ID, func(u *domain.User) error { c.fn(u); return nil })
		storeWantTaken(t, err, c.field, "Update to a taken "+c.field)
	}
	got, err := s.Users.Get(ctx, alice.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(*alice, *got); diff != "" {
		t.Errorf("conflicting updates persisted (-want +got):\n%s", diff)
	}
}

func storeUserUpdateEmailFreesOld(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	if _, err := s.Users.Update(ctx, alice.ID, func(u *domain.User) error { u.Email = "new@example.com"; return nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	_, err := s.Users.GetByEmail(ctx, "alice@example.com")
	storeWantKind(t, err, core.ErrNotFound, "GetByEmail(old address)")
	bob := &domain.User{Username: "bob", Email: "alice@example.com", State: domain.UserActive}
	if err := s.Users.Create(ctx, bob); err != nil {
		t.Fatalf("the old address is still taken: %v", err)
	}
	// Changing only the case keeps the address.
	if _, err := s.Users.Update(ctx, alice.ID, func(u *domain.User) error { u.Email = "NEW@example.com"; return nil }); err != nil {
		t.Fatalf("Update to another case: %v", err)
	}
	if got, err := s.Users.GetByEmail(ctx, "new@example.com"); err != nil || got.Email != "NEW@example.com" {
		t.Errorf("GetByEmail = %v, %v", got, err)
	}
}

func storeUserUpdatePromotesOwnSecondary(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	storeEmail(t, s, alice.ID, "work@example.com")
	keep := storeEmail(t, s, alice.ID, "home@example.com")
	got, err := s.Users.Update(ctx, alice.ID, func(u *domain.User) error { u.Email = "Work@example.com"; return nil })
	if err != nil {
		t.Fatalf("Update to an own secondary address: %v", err)
	}
	if got.Email != "Work@example.com" {
		t.Errorf("Email = %q", got.Email)
	}
	list, n, err := s.Emails.ListByUser(ctx, alice.ID, domain.Page{})
	storeWantList(t, "secondary emails", storeIDs(list, func(e domain.Email) int64 { return e.ID }), n, err, []int64{keep.ID}, 1)
}

func storeUserDeleteCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	k := storeKey(t, s, alice.ID, "SHA256:alice")
	e := storeEmail(t, s, alice.ID, "alice.second@example.com")
	tok := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "t"})
	bobKey := storeKey(t, s, bob.ID, "SHA256:bob")
	if err := s.Users.Delete(ctx, alice.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := s.Users.Get(ctx, alice.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get deleted user")
	_, err = s.Keys.Get(ctx, k.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get key of deleted user")
	_, err = s.Emails.Get(ctx, e.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get email of deleted user")
	_, err = s.Tokens.Get(ctx, tok.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get token of deleted user")
	_, err = s.Tokens.GetByDigest(ctx, tok.Digest)
	storeWantKind(t, err, core.ErrNotFound, "GetByDigest of deleted user")
	if _, err := s.Keys.Get(ctx, bobKey.ID); err != nil {
		t.Errorf("another user's key went too: %v", err)
	}
	// Every address and the fingerprint are free again.
	c := storeUser(t, s, "alice")
	storeEmail(t, s, c.ID, "alice.second@example.com")
	storeKey(t, s, c.ID, "SHA256:alice")
	err = s.Users.Delete(ctx, alice.ID)
	storeWantKind(t, err, core.ErrNotFound, "Delete twice")
}

func storeUserListFilters(t *testing.T, s Stores) {
	ctx := t.Context()
	mk := func(u domain.User) int64 {
		t.Helper()
		if u.State == "" {
			u.State = domain.UserActive
		}
		if u.Email == "" {
			u.Email = u.Username + "@example.com"
		}
		if err := s.Users.Create(ctx, &u); err != nil {
			t.Fatalf("Create %s: %v", u.Username, err)
		}
		return u.ID
	}
	day := func(d int) time.Time { return time.Date(2024, 1, d, 10, 0, 0, 0, time.UTC) }
	alice := mk(domain.User{Username: "alice", Name: "Alice Smith", CreatedAt: day(1)})
	bob := mk(domain.User{Username: "bob", Name: "Bob Jones", State: domain.UserBlocked, CreatedAt: day(2)})
	carol := mk(domain.User{Username: "carol", Name: "Carol", Email: "c.smith@corp.test", State: domain.UserLDAPBlocked, CreatedAt: day(3)})
	dave := mk(domain.User{Username: "dave_x", Name: "Dave 100%", External: true, Provider: "ldapmain", ExternUID: "uid=dave", CreatedAt: day(4)})
	eve := mk(domain.User{Username: "eve", Name: "Eve", Provider: "github", ExternUID: "uid=dave", CreatedAt: day(5)})

	cases := []struct {
		name string
		f    domain.UserFilter
		want []int64
	}{
		{"none", domain.UserFilter{}, []int64{alice, bob, carol, dave, eve}},
		{"active", domain.UserFilter{Active: true}, []int64{alice, dave, eve}},
		{"blocked includes ldap_blocked", domain.UserFilter{Blocked: true}, []int64{bob, carol}},
		{"search username", domain.UserFilter{Search: "AVE"}, []int64{dave}},
		{"search name", domain.UserFilter{Search: "smith"}, []int64{alice, carol}},
		{"search email", domain.UserFilter{Search: "CORP.test"}, []int64{carol}},
		{"search percent is literal", domain.UserFilter{Search: "100%"}, []int64{dave}},
		{"search underscore is literal", domain.UserFilter{Search: "e_x"}, []int64{dave}},
		{"search wildcard only", domain.UserFilter{Search: "%"}, []int64{dave}},
		{"username exact, any case", domain.UserFilter{Username: "BOB"}, []int64{bob}},
		{"username not a substring", domain.UserFilter{Username: "bo"}, nil},
		{"extern uid", domain.UserFilter{ExternUID: "uid=dave"}, []int64{dave, eve}},
		{"provider", domain.UserFilter{Provider: "github"}, []int64{eve}},
		{"extern uid and provider", domain.UserFilter{ExternUID: "uid=dave", Provider: "ldapmain"}, []int64{dave}},
		{"external", domain.UserFilter{External: true}, []int64{dave}},
		{"created before (inclusive)", domain.UserFilter{CreatedBefore: storePtr(day(2))}, []int64{alice, bob}},
		{"created after (inclusive)", domain.UserFilter{CreatedAfter: storePtr(day(4))}, []int64{dave, eve}},
		{"created between", domain.UserFilter{CreatedAfter: storePtr(day(2).Add(time.Second)), CreatedBefore: storePtr(day(4).Add(-time.Second))}, []int64{carol}},
		{"combined", domain.UserFilter{Active: true, Search: "e"}, []int64{alice, dave, eve}},
		{"active and blocked", domain.UserFilter{Active: true, Blocked: true}, nil},
	}
	for _, c := range cases {
		got, n, err := s.Users.List(ctx, c.f)
		storeWantList(t, c.name, storeUserIDs(got), n, err, c.want, len(c.want))
	}
}

func storeUserListPages(t *testing.T, s Stores) {
	var ids []int64
	for _, name := range []string{"u1", "u2", "u3", "u4", "u5"} {
		ids = append(ids, storeUser(t, s, name).ID)
	}
	cases := []struct {
		p    domain.Page
		want []int64
	}{
		{domain.Page{Page: 1, PerPage: 2}, ids[0:2]},
		{domain.Page{Page: 2, PerPage: 2}, ids[2:4]},
		{domain.Page{Page: 3, PerPage: 2}, ids[4:5]},
		{domain.Page{Page: 4, PerPage: 2}, nil},
		{domain.Page{Page: 0, PerPage: 3}, ids[0:3]},
		{domain.Page{}, ids},
	}
	for _, c := range cases {
		got, n, err := s.Users.List(t.Context(), domain.UserFilter{Page: c.p})
		storeWantList(t, "page", storeUserIDs(got), n, err, c.want, 5)
	}
	got, n, err := s.Users.List(t.Context(), domain.UserFilter{Search: "u", Page: domain.Page{Page: 2, PerPage: 4}})
	storeWantList(t, "filtered page", storeUserIDs(got), n, err, ids[4:5], 5)
}

func storeUserCount(t *testing.T, s Stores) {
	if n, err := s.Users.Count(t.Context()); err != nil || n != 0 {
		t.Fatalf("Count = %d, %v; want 0", n, err)
	}
	storeUser(t, s, "a")
	storeUser(t, s, "b")
	if n, err := s.Users.Count(t.Context()); err != nil || n != 2 {
		t.Fatalf("Count = %d, %v; want 2", n, err)
	}
}

func storeUserTouchActivity(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "alice")
	activity := func() *time.Time {
		t.Helper()
		got, err := s.Users.Get(ctx, u.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		return got.LastActivityOn
	}
	if err := s.Users.TouchActivity(ctx, u.ID, time.Date(2024, 5, 10, 15, 4, 5, 0, time.UTC)); err != nil {
		t.Fatalf("TouchActivity: %v", err)
	}
	if got := activity(); got == nil || !got.Equal(storeDay(2024, 5, 10)) {
		t.Fatalf("LastActivityOn = %v, want 2024-05-10", got)
	}
	if err := s.Users.TouchActivity(ctx, u.ID, storeDay(2024, 5, 9)); err != nil {
		t.Fatalf("TouchActivity earlier: %v", err)
	}
	if got := activity(); !got.Equal(storeDay(2024, 5, 10)) {
		t.Errorf("LastActivityOn moved back to %v", got)
	}
	if err := s.Users.TouchActivity(ctx, u.ID, storeDay(2024, 5, 10)); err != nil {
		t.Fatalf("TouchActivity same day: %v", err)
	}
	if err := s.Users.TouchActivity(ctx, u.ID, storeDay(2024, 5, 12)); err != nil {
		t.Fatalf("TouchActivity later: %v", err)
	}
	if got := activity(); !got.Equal(storeDay(2024, 5, 12)) {
		t.Errorf("LastActivityOn = %v, want 2024-05-12", got)
	}
	err := s.Users.TouchActivity(ctx, 999999, storeDay(2024, 5, 12))
	storeWantKind(t, err, core.ErrNotFound, "TouchActivity of a missing user")
}

func storeUserListActivity(t *testing.T, s Stores) {
	ctx := t.Context()
	a, b, c, d := storeUser(t, s, "a"), storeUser(t, s, "b"), storeUser(t, s, "c"), storeUser(t, s, "d")
	storeUser(t, s, "never")
	for _, x := range []struct {
		id  int64
		day time.Time
	}{{a.ID, storeDay(2024, 5, 3)}, {b.ID, storeDay(2024, 5, 1)}, {c.ID, storeDay(2024, 5, 3)}, {d.ID, storeDay(2024, 4, 30)}} {
		if err := s.Users.TouchActivity(ctx, x.id, x.day); err != nil {
			t.Fatalf("TouchActivity: %v", err)
		}
	}
	got, n, err := s.Users.ListActivity(ctx, storeDay(2024, 5, 1), domain.Page{})
	storeWantList(t, "ListActivity", storeUserIDs(got), n, err, []int64{b.ID, a.ID, c.ID}, 3)
	if err == nil && len(got) == 3 && (got[0].LastActivityOn == nil || !got[0].LastActivityOn.Equal(storeDay(2024, 5, 1))) {
		t.Errorf("LastActivityOn of first = %v", got[0].LastActivityOn)
	}
	// from is a day: activity on that day counts whatever its time of day.
	got, n, err = s.Users.ListActivity(ctx, time.Date(2024, 5, 1, 18, 0, 0, 0, time.UTC), domain.Page{})
	storeWantList(t, "ListActivity from mid-day", storeUserIDs(got), n, err, []int64{b.ID, a.ID, c.ID}, 3)
	got, n, err = s.Users.ListActivity(ctx, storeDay(2024, 4, 1), domain.Page{Page: 2, PerPage: 2})
	storeWantList(t, "ListActivity page 2", storeUserIDs(got), n, err, []int64{a.ID, c.ID}, 4)
}
