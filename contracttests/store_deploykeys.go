package contracttests

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// deployKeyStoreCases are the subtests of the deploy key store. They skip
// when the adapter hands RunStoreSuite no DeployKeys.
func deployKeyStoreCases() []storeCase {
	cases := []storeCase{
		{"DeployKeyCreateGetList", storeDeployKeyCreateGetList},
		{"DeployKeyUnknownProject", storeDeployKeyUnknownProject},
		{"DeployKeyFingerprintTaken", storeDeployKeyFingerprintTaken},
		{"DeployKeyUserKeyFingerprintTaken", storeDeployKeyUserKeyFingerprintTaken},
		{"DeployKeyEnableDisable", storeDeployKeyEnableDisable},
		{"DeployKeyProjectDeleteRemovesLink", storeDeployKeyProjectDeleteRemovesLink},
		{"DeployKeyUserDeleteKeepsKey", storeDeployKeyUserDeleteKeepsKey},
		{"DeployKeyUpdate", storeDeployKeyUpdate},
		{"ConcurrentSameDeployKey", storeConcurrentSameDeployKey},
		{"ConcurrentUserAndDeployKey", storeConcurrentUserAndDeployKey},
	}
	for i, c := range cases {
		fn := c.fn
		cases[i].fn = func(t *testing.T, s Stores) {
			if s.DeployKeys == nil {
				t.Skip("the adapter provides no DeployKeyStore")
			}
			fn(t, s)
		}
	}
	return cases
}

// RunDeployKeyStoreSuite runs only the deploy key part of RunStoreSuite,
// for adapters whose full suite runs elsewhere. newStores must set
// DeployKeys and the stores it relies on (Users, Keys, Namespaces,
// Projects).
func RunDeployKeyStoreSuite(t *testing.T, newStores func(t *testing.T) Stores) {
	for _, tc := range deployKeyStoreCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStores(t)
			if s.DeployKeys == nil {
				t.Fatal("newStores set no DeployKeys")
			}
			tc.fn(t, s)
		})
	}
}

func storeDeployKeyIDs(ks []domain.DeployKey) []int64 {
	return storeIDs(ks, func(k domain.DeployKey) int64 { return k.ID })
}

// storeDeployKey creates a deploy key added by userID for the project.
func storeDeployKey(t *testing.T, s Stores, userID, projectID int64, fingerprint string) *domain.DeployKey {
	t.Helper()
	k := &domain.DeployKey{UserID: userID, Title: "deploy " + fingerprint, Key: "ssh-ed25519 AAAA" + fingerprint,
		Fingerprint: fingerprint, CreatedAt: storeT0}
	if err := s.DeployKeys.Create(t.Context(), k, projectID); err != nil {
		t.Fatalf("create deploy key %s: %v", fingerprint, err)
	}
	return k
}

func storeDeployKeyProjects(t *testing.T, s Stores, id int64, want ...int64) {
	t.Helper()
	got, err := s.DeployKeys.Projects(t.Context(), id)
	if err != nil {
		t.Fatalf("Projects(%d): %v", id, err)
	}
	if want == nil {
		want = []int64{}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Projects(%d) (-want +got):\n%s", id, diff)
	}
}

func storeDeployKeyCreateGetList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, q := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "q", nil)
	k1 := &domain.DeployKey{UserID: alice.ID, Title: "ci", Key: "ssh-ed25519 AAAAone", Fingerprint: "aa:01", CanPush: true, CreatedAt: storeT0}
	if err := s.DeployKeys.Create(ctx, k1, p.ID); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if k1.ID <= 0 {
		t.Fatalf("Create set ID %d", k1.ID)
	}
	k2 := storeDeployKey(t, s, 0, p.ID, "aa:02") // added by nobody (a deleted user)
	k3 := storeDeployKey(t, s, alice.ID, q.ID, "aa:03")
	got, err := s.DeployKeys.Get(ctx, k1.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := domain.DeployKey{ID: k1.ID, UserID: alice.ID, Title: "ci", Key: "ssh-ed25519 AAAAone", Fingerprint: "aa:01", CanPush: true, CreatedAt: storeT0}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if got, err := s.DeployKeys.Get(ctx, k2.ID); err != nil || got.UserID != 0 || got.CanPush {
		t.Errorf("Get(k2) = %+v, %v; want UserID 0, CanPush false", got, err)
	}
	got, err = s.DeployKeys.ByFingerprint(ctx, "aa:03")
	if err != nil || got.ID != k3.ID {
		t.Errorf("ByFingerprint = %+v, %v; want key %d", got, err, k3.ID)
	}
	_, err = s.DeployKeys.ByFingerprint(ctx, "aa:99")
	storeWantKind(t, err, core.ErrNotFound, "ByFingerprint of an unknown fingerprint")
	_, err = s.DeployKeys.Get(ctx, 999999)
	storeWantKind(t, err, core.ErrNotFound, "Get a missing deploy key")

	list, n, err := s.DeployKeys.List(ctx, domain.Page{})
	storeWantList(t, "List", storeDeployKeyIDs(list), n, err, []int64{k1.ID, k2.ID, k3.ID}, 3)
	list, n, err = s.DeployKeys.List(ctx, domain.Page{Page: 2, PerPage: 2})
	storeWantList(t, "List page 2", storeDeployKeyIDs(list), n, err, []int64{k3.ID}, 3)
	list, n, err = s.DeployKeys.ListByProject(ctx, p.ID, domain.Page{})
	storeWantList(t, "ListByProject", storeDeployKeyIDs(list), n, err, []int64{k1.ID, k2.ID}, 2)
	list, n, err = s.DeployKeys.ListByProject(ctx, p.ID, domain.Page{Page: 2, PerPage: 1})
	storeWantList(t, "ListByProject page 2", storeDeployKeyIDs(list), n, err, []int64{k2.ID}, 2)
	if len(list) == 1 && list[0].Title != k2.Title {
		t.Errorf("ListByProject row = %+v", list[0])
	}

	if got, err := s.DeployKeys.InProject(ctx, q.ID, k3.ID); err != nil || got.ID != k3.ID || got.Fingerprint != "aa:03" {
		t.Errorf("InProject = %+v, %v", got, err)
	}
	_, err = s.DeployKeys.InProject(ctx, q.ID, k1.ID)
	storeWantKind(t, err, core.ErrNotFound, "InProject of a key of another project")
	storeDeployKeyProjects(t, s, k1.ID, p.ID)
	storeDeployKeyProjects(t, s, 999999)

	// Deploy keys are not users' keys.
	_, err = s.Keys.Get(ctx, k1.ID)
	storeWantKind(t, err, core.ErrNotFound, "Keys.Get of a deploy key's id")
	_, err = s.Keys.ByFingerprint(ctx, "aa:01")
	storeWantKind(t, err, core.ErrNotFound, "Keys.ByFingerprint of a deploy key")
	if keys, n, err := s.Keys.ListByUser(ctx, alice.ID, domain.Page{}); err != nil || n != 0 || len(keys) != 0 {
		t.Errorf("the adder's own keys = %v (%d), %v; want none", keys, n, err)
	}
	storeWantKind(t, s.Keys.Delete(ctx, alice.ID, k1.ID), core.ErrNotFound, "Keys.Delete of a deploy key")
	if _, err := s.DeployKeys.Get(ctx, k1.ID); err != nil {
		t.Errorf("the deploy key went with Keys.Delete: %v", err)
	}
}

func storeDeployKeyUnknownProject(t *testing.T, s Stores) {
	ctx := t.Context()
	err := s.DeployKeys.Create(ctx, &domain.DeployKey{Title: "k", Key: "ssh-ed25519 AAAA", Fingerprint: "bb:01"}, 999999)
	storeWantKind(t, err, core.ErrNotFound, "Create for a missing project")
	// Nothing was left behind: the fingerprint is free.
	p := storeCIProject(t, s, "p", nil)
	storeDeployKey(t, s, 0, p.ID, "bb:01")
	_, n, err := s.DeployKeys.List(ctx, domain.Page{})
	if err != nil || n != 1 {
		t.Errorf("List total = %d, %v; want 1", n, err)
	}
}

func storeDeployKeyFingerprintTaken(t *testing.T, s Stores) {
	ctx := t.Context()
	p, q := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "q", nil)
	storeDeployKey(t, s, 0, p.ID, "cc:01")
	for _, proj := range []int64{p.ID, q.ID} {
		err := s.DeployKeys.Create(ctx, &domain.DeployKey{Title: "dup", Key: "ssh-ed25519 AAAA", Fingerprint: "cc:01"}, proj)
		storeWantTaken(t, err, "fingerprint", "Create a deploy key with a deploy key's fingerprint")
	}
	if _, n, _ := s.DeployKeys.ListByProject(ctx, q.ID, domain.Page{}); n != 0 {
		t.Errorf("q has %d deploy keys after the conflict", n)
	}
}

func storeDeployKeyUserKeyFingerprintTaken(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeCIProject(t, s, "p", nil)
	// A user's key first: no deploy key may have its fingerprint.
	uk := storeKey(t, s, alice.ID, "dd:01")
	err := s.DeployKeys.Create(ctx, &domain.DeployKey{UserID: alice.ID, Title: "dup", Key: "ssh-ed25519 AAAA", Fingerprint: "dd:01"}, p.ID)
	storeWantTaken(t, err, "fingerprint", "Create a deploy key with a user key's fingerprint")
	_, err = s.DeployKeys.ByFingerprint(ctx, "dd:01")
	storeWantKind(t, err, core.ErrNotFound, "DeployKeys.ByFingerprint of a user's key")
	if got, err := s.Keys.ByFingerprint(ctx, "dd:01"); err != nil || got.ID != uk.ID {
		t.Errorf("Keys.ByFingerprint = %+v, %v; want key %d", got, err, uk.ID)
	}
	// A deploy key first: no user's key may have its fingerprint.
	dk := storeDeployKey(t, s, alice.ID, p.ID, "dd:02")
	err = s.Keys.Create(ctx, &domain.SSHKey{UserID: alice.ID, Title: "dup", Key: "ssh-ed25519 AAAA", Fingerprint: "dd:02"})
	storeWantTaken(t, err, "fingerprint", "Create a user's key with a deploy key's fingerprint")
	if _, n, _ := s.Keys.ListByUser(ctx, alice.ID, domain.Page{}); n != 1 {
		t.Errorf("alice has %d keys after the conflict, want 1", n)
	}
	// Freed fingerprints are free for the other kind.
	if err := s.Keys.Delete(ctx, alice.ID, uk.ID); err != nil {
		t.Fatal(err)
	}
	storeDeployKey(t, s, alice.ID, p.ID, "dd:01")
	if err := s.DeployKeys.Disable(ctx, p.ID, dk.ID); err != nil {
		t.Fatal(err)
	}
	storeKey(t, s, alice.ID, "dd:02")
}

func storeDeployKeyEnableDisable(t *testing.T, s Stores) {
	ctx := t.Context()
	p, q := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "q", nil)
	k := storeDeployKey(t, s, 0, p.ID, "ee:01")
	if err := s.DeployKeys.Enable(ctx, q.ID, k.ID); err != nil {
		t.Fatalf("Enable for q: %v", err)
	}
	if err := s.DeployKeys.Enable(ctx, q.ID, k.ID); err != nil {
		t.Fatalf("Enable for q again: %v", err)
	}
	storeDeployKeyProjects(t, s, k.ID, p.ID, q.ID)
	if got, err := s.DeployKeys.InProject(ctx, q.ID, k.ID); err != nil || got.ID != k.ID {
		t.Errorf("InProject(q) = %+v, %v", got, err)
	}
	storeWantKind(t, s.DeployKeys.Enable(ctx, 999999, k.ID), core.ErrNotFound, "Enable for a missing project")
	storeWantKind(t, s.DeployKeys.Enable(ctx, q.ID, 999999), core.ErrNotFound, "Enable a missing key")

	// Disabled on p, the key stays for q.
	if err := s.DeployKeys.Disable(ctx, p.ID, k.ID); err != nil {
		t.Fatalf("Disable on p: %v", err)
	}
	storeDeployKeyProjects(t, s, k.ID, q.ID)
	_, err := s.DeployKeys.InProject(ctx, p.ID, k.ID)
	storeWantKind(t, err, core.ErrNotFound, "InProject after Disable")
	if _, err := s.DeployKeys.Get(ctx, k.ID); err != nil {
		t.Fatalf("the key went while q still has it: %v", err)
	}
	storeWantKind(t, s.DeployKeys.Disable(ctx, p.ID, k.ID), core.ErrNotFound, "Disable twice")
	// Disabled on its last project, the key is deleted, and its
	// fingerprint is free.
	if err := s.DeployKeys.Disable(ctx, q.ID, k.ID); err != nil {
		t.Fatalf("Disable on q: %v", err)
	}
	_, err = s.DeployKeys.Get(ctx, k.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get an orphaned key")
	storeWantKind(t, s.DeployKeys.Disable(ctx, q.ID, k.ID), core.ErrNotFound, "Disable a deleted key")
	storeDeployKey(t, s, 0, q.ID, "ee:01")
}

func storeDeployKeyProjectDeleteRemovesLink(t *testing.T, s Stores) {
	ctx := t.Context()
	p, q := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "q", nil)
	k := storeDeployKey(t, s, 0, p.ID, "ff:01")
	if err := s.DeployKeys.Enable(ctx, q.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatalf("delete project: %v", err)
	}
	storeDeployKeyProjects(t, s, k.ID, q.ID)
	list, n, err := s.DeployKeys.ListByProject(ctx, p.ID, domain.Page{})
	storeWantList(t, "ListByProject of a deleted project", storeDeployKeyIDs(list), n, err, nil, 0)
}

func storeDeployKeyUserDeleteKeepsKey(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeCIProject(t, s, "p", nil)
	dk := storeDeployKey(t, s, alice.ID, p.ID, "ab:01")
	uk := storeKey(t, s, alice.ID, "ab:02")
	if err := s.Users.Delete(ctx, alice.ID); err != nil {
		t.Fatalf("delete user: %v", err)
	}
	got, err := s.DeployKeys.Get(ctx, dk.ID)
	if err != nil || got.UserID != 0 {
		t.Fatalf("deploy key after its adder's deletion = %+v, %v; want kept with UserID 0", got, err)
	}
	_, err = s.Keys.Get(ctx, uk.ID)
	storeWantKind(t, err, core.ErrNotFound, "the deleted user's key")
	// The user's key went with its fingerprint; the deploy key kept its.
	bob := storeUser(t, s, "bob")
	storeKey(t, s, bob.ID, "ab:02")
	err = s.Keys.Create(ctx, &domain.SSHKey{UserID: bob.ID, Title: "dup", Key: "ssh-ed25519 AAAA", Fingerprint: "ab:01"})
	storeWantTaken(t, err, "fingerprint", "Create a user's key with the kept deploy key's fingerprint")
}

func storeDeployKeyUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeCIProject(t, s, "p", nil)
	k := storeDeployKey(t, s, alice.ID, p.ID, "ac:01")
	got, err := s.DeployKeys.Update(ctx, k.ID, func(d *domain.DeployKey) error {
		d.Title, d.CanPush = "renamed", true
		d.Key, d.Fingerprint, d.UserID = "ssh-ed25519 BBBB", "zz:zz", 0 // not the update's to change
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := *k
	want.Title, want.CanPush = "renamed", true
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Update returned (-want +got):\n%s", diff)
	}
	if stored, err := s.DeployKeys.Get(ctx, k.ID); err != nil || cmp.Diff(&want, stored) != "" {
		t.Errorf("stored %+v, %v; want %+v", stored, err, want)
	}
	boom := fmt.Errorf("boom")
	if _, err := s.DeployKeys.Update(ctx, k.ID, func(*domain.DeployKey) error { return boom }); err != boom {
		t.Errorf("Update with a failing fn: %v, want it as it is", err)
	}
	_, err = s.DeployKeys.Update(ctx, 999999, func(*domain.DeployKey) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update a missing key")
}

func storeConcurrentSameDeployKey(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	errs := storeRace(func(i int) error {
		return s.DeployKeys.Create(ctx, &domain.DeployKey{Title: fmt.Sprintf("k%02d", i), Key: "ssh-ed25519 AAAA", Fingerprint: "ad:01"}, p.ID)
	})
	storeOneWins(t, errs, "fingerprint")
	if _, n, err := s.DeployKeys.ListByProject(ctx, p.ID, domain.Page{}); err != nil || n != 1 {
		t.Errorf("ListByProject total = %d, %v; want 1", n, err)
	}
}

func storeConcurrentUserAndDeployKey(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeCIProject(t, s, "p", nil)
	errs := storeRace(func(i int) error {
		if i%2 == 0 {
			return s.DeployKeys.Create(ctx, &domain.DeployKey{Title: "d", Key: "ssh-ed25519 AAAA", Fingerprint: "ae:01"}, p.ID)
		}
		return s.Keys.Create(ctx, &domain.SSHKey{UserID: alice.ID, Title: "u", Key: "ssh-ed25519 AAAA", Fingerprint: "ae:01"})
	})
	storeOneWins(t, errs, "fingerprint")
	_, nd, _ := s.DeployKeys.List(ctx, domain.Page{})
	_, nu, _ := s.Keys.ListByUser(ctx, alice.ID, domain.Page{})
	if nd+nu != 1 {
		t.Errorf("%d deploy keys and %d user keys after the race, want 1 in all", nd, nu)
	}
}
