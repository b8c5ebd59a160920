package contracttests

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func storeKeyIDs(ks []domain.SSHKey) []int64 {
	return storeIDs(ks, func(k domain.SSHKey) int64 { return k.ID })
}

func storeEmailIDs(es []domain.Email) []int64 {
	return storeIDs(es, func(e domain.Email) int64 { return e.ID })
}

// storeCheckDelete checks Delete of one of owner's things (keys, emails):
// another user's Delete is a 404 that leaves it, the owner's removes it,
// and a second Delete is a 404.
func storeCheckDelete(t *testing.T, what string, owner, other, id int64, del func(userID, id int64) error, get func(id int64) error) {
	t.Helper()
	storeWantKind(t, del(other, id), core.ErrNotFound, "Delete another user's "+what)
	if err := get(id); err != nil {
		t.Fatalf("the %s went with the refused Delete: %v", what, err)
	}
	if err := del(owner, id); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	storeWantKind(t, get(id), core.ErrNotFound, "Get a deleted "+what)
	storeWantKind(t, del(owner, id), core.ErrNotFound, "Delete twice")
}

func storeKeyCreateGetList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	k1 := storeKey(t, s, alice.ID, "SHA256:one")
	k2 := storeKey(t, s, alice.ID, "SHA256:two")
	k3 := storeKey(t, s, alice.ID, "SHA256:three")
	storeKey(t, s, bob.ID, "SHA256:bob")
	if k1.ID <= 0 || k1.UserID != alice.ID {
		t.Fatalf("Create set %+v", k1)
	}
	got, err := s.Keys.Get(ctx, k2.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := domain.SSHKey{ID: k2.ID, UserID: alice.ID, Title: "key SHA256:two", Key: "ssh-ed25519 AAAASHA256:two", Fingerprint: "SHA256:two", CreatedAt: storeT0}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	list, n, err := s.Keys.ListByUser(ctx, alice.ID, domain.Page{})
	storeWantList(t, "ListByUser", storeKeyIDs(list), n, err, []int64{k1.ID, k2.ID, k3.ID}, 3)
	list, n, err = s.Keys.ListByUser(ctx, alice.ID, domain.Page{Page: 2, PerPage: 2})
	storeWantList(t, "ListByUser page 2", storeKeyIDs(list), n, err, []int64{k3.ID}, 3)
	list, n, err = s.Keys.ListByUser(ctx, 999999, domain.Page{})
	storeWantList(t, "ListByUser of a missing user", storeKeyIDs(list), n, err, nil, 0)
	_, err = s.Keys.Get(ctx, 999999)
	storeWantKind(t, err, core.ErrNotFound, "Get a missing key")
}

func storeKeyFingerprintTaken(t *testing.T, s Stores) {
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	storeKey(t, s, alice.ID, "SHA256:same")
	for _, owner := range []int64{alice.ID, bob.ID} {
		err := s.Keys.Create(t.Context(), &domain.SSHKey{UserID: owner, Title: "dup", Key: "ssh-ed25519 AAAA", Fingerprint: "SHA256:same"})
		storeWantTaken(t, err, "fingerprint", "Create with a taken fingerprint")
	}
	if _, n, _ := s.Keys.ListByUser(t.Context(), bob.ID, domain.Page{}); n != 0 {
		t.Errorf("bob has %d keys after the conflict", n)
	}
}

func storeKeyUnknownUser(t *testing.T, s Stores) {
	err := s.Keys.Create(t.Context(), &domain.SSHKey{UserID: 999999, Title: "k", Key: "ssh-ed25519 AAAA", Fingerprint: "SHA256:x"})
	storeWantKind(t, err, core.ErrNotFound, "Create for a missing user")
}

func storeKeyDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	k := storeKey(t, s, alice.ID, "SHA256:k")
	storeCheckDelete(t, "key", alice.ID, bob.ID, k.ID, func(userID, id int64) error { return s.Keys.Delete(ctx, userID, id) },
		func(id int64) error { _, err := s.Keys.Get(ctx, id); return err })
	storeKey(t, s, bob.ID, "SHA256:k") // the fingerprint is free again
}

func storeEmailCreateGetList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	e1 := storeEmail(t, s, alice.ID, "a1@example.com")
	e2 := storeEmail(t, s, alice.ID, "a2@example.com")
	e3 := storeEmail(t, s, alice.ID, "a3@example.com")
	storeEmail(t, s, bob.ID, "b1@example.com")
	got, err := s.Emails.Get(ctx, e2.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(domain.Email{ID: e2.ID, UserID: alice.ID, Email: "a2@example.com", CreatedAt: storeT0}, *got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	// Only secondary addresses are listed: the primary one is the user's Email.
	list, n, err := s.Emails.ListByUser(ctx, alice.ID, domain.Page{})
	storeWantList(t, "ListByUser", storeEmailIDs(list), n, err, []int64{e1.ID, e2.ID, e3.ID}, 3)
	list, n, err = s.Emails.ListByUser(ctx, alice.ID, domain.Page{Page: 1, PerPage: 2})
	storeWantList(t, "ListByUser page 1", storeEmailIDs(list), n, err, []int64{e1.ID, e2.ID}, 3)
	_, err = s.Emails.Get(ctx, 999999)
	storeWantKind(t, err, core.ErrNotFound, "Get a missing email")
	// A secondary address does not find the user by email: GetByEmail is primary only.
	_, err = s.Users.GetByEmail(ctx, "a1@example.com")
	storeWantKind(t, err, core.ErrNotFound, "GetByEmail(secondary)")
}

func storeEmailTaken(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	storeEmail(t, s, alice.ID, "shared@example.com")
	cases := []struct {
		owner int64
		addr  string
		what  string
	}{
		{bob.ID, "SHARED@example.com", "another user's secondary address"},
		{alice.ID, "shared@example.com", "the same user's secondary address"},
		{bob.ID, "Alice@Example.com", "another user's primary address"},
		{alice.ID, "alice@example.com", "the user's own primary address"},
	}
	for _, c := range cases {
		err := s.Emails.Create(ctx, &domain.Email{UserID: c.owner, Email: c.addr})
		storeWantTaken(t, err, "email", "Create with "+c.what)
	}
	if _, n, _ := s.Emails.ListByUser(ctx, bob.ID, domain.Page{}); n != 0 {
		t.Errorf("bob has %d emails after the conflicts", n)
	}
}

func storeEmailUnknownUser(t *testing.T, s Stores) {
	err := s.Emails.Create(t.Context(), &domain.Email{UserID: 999999, Email: "x@example.com"})
	storeWantKind(t, err, core.ErrNotFound, "Create for a missing user")
}

func storeEmailDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	e := storeEmail(t, s, alice.ID, "second@example.com")
	storeCheckDelete(t, "email", alice.ID, bob.ID, e.ID, func(userID, id int64) error { return s.Emails.Delete(ctx, userID, id) },
		func(id int64) error { _, err := s.Emails.Get(ctx, id); return err })
	storeEmail(t, s, bob.ID, "second@example.com") // the address is free again
	if got, err := s.Users.Get(ctx, alice.ID); err != nil || got.Email != "alice@example.com" {
		t.Errorf("the primary address changed: %v, %v", got, err)
	}
}
