package deploykeys_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/core/sshkey"
)

// TestKeyAuthenticator signs keys in through the app's KeyAuthenticator
// over the real store, with keys added through the API.
func TestKeyAuthenticator(t *testing.T) {
	t.Parallel()
	var auth ports.KeyAuthenticator
	srv := apptest.New(t, apptest.With(fx.Populate(&auth)))
	c := srv.Client(t)
	ctx := t.Context()
	root := srv.RootToken
	aliceID, alice := c.User("alice")
	p := apptest.ID(c.Project(root, "name", "p"))
	q := apptest.ID(c.Project(root, "name", "q"))
	unauthenticated := func(what string, key []byte) {
		t.Helper()
		caller, err := auth.PublicKey(ctx, key)
		if !errors.Is(err, core.ErrUnauthenticated) {
			t.Errorf("%s: PublicKey = %+v, %v; want unauthenticated", what, caller, err)
		}
	}

	// A user's key signs its user in.
	userLine, userWire := newKey(t)
	c.Expect(201, "POST", "/user/keys", alice, apptest.Form("title", "laptop", "key", userLine))
	caller, err := auth.PublicKey(ctx, userWire)
	if err != nil || caller.User == nil || caller.User.ID != aliceID || caller.DeployKey != nil {
		t.Fatalf("user key: %+v, %v; want alice", caller, err)
	}

	// A deploy key signs in as itself, with the projects it is enabled for.
	deployLine, deployWire := newKey(t)
	k := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/deploy_keys", q), root, apptest.Form("title", "ci", "key", deployLine, "can_push", "true")).Object(t)
	id := apptest.ID(k)
	c.Expect(201, "POST", fmt.Sprintf("/projects/%d/deploy_keys/%d/enable", p, id), root, nil)
	caller, err = auth.PublicKey(ctx, deployWire)
	if err != nil || caller.User != nil || caller.DeployKey == nil {
		t.Fatalf("deploy key: %+v, %v", caller, err)
	}
	if diff := cmp.Diff([]int64{p, q}, caller.DeployKey.Projects); diff != "" {
		t.Errorf("projects (-want +got):\n%s", diff)
	}
	if dk := caller.DeployKey.Key; dk.ID != id || !dk.CanPush || dk.Key != deployLine || dk.UserID != 1 {
		t.Errorf("deploy key %+v; want id %d, can_push, added by root", dk, id)
	}
	if caller.ActorID() != 1 || !caller.DeployKey.EnabledFor(p) {
		t.Errorf("ActorID %d, EnabledFor(p) %v", caller.ActorID(), caller.DeployKey.EnabledFor(p))
	}

	// Keys nobody added, and garbage.
	_, unknown := newKey(t)
	unauthenticated("unknown key", unknown)
	unauthenticated("empty key", nil)

	// A stored key whose fingerprint matches but whose bytes differ (as a
	// collision would) does not sign in.
	otherLine, _ := newKey(t)
	_, forged := newKey(t)
	if err := srv.Store.Keys().Create(ctx, &domain.SSHKey{UserID: aliceID, Title: "forged", Key: otherLine, Fingerprint: sshkey.Fingerprint(forged)}); err != nil {
		t.Fatal(err)
	}
	unauthenticated("user key of other bytes", forged)
	otherDeploy, _ := newKey(t)
	_, forgedDeploy := newKey(t)
	if err := srv.Store.DeployKeys().Create(ctx, &domain.DeployKey{Title: "forged", Key: otherDeploy, Fingerprint: sshkey.Fingerprint(forgedDeploy)}, p); err != nil {
		t.Fatal(err)
	}
	unauthenticated("deploy key of other bytes", forgedDeploy)

	// A deploy key enabled nowhere (its project deleted) does not sign in.
	orphanLine, orphanWire := newKey(t)
	x := apptest.ID(c.Project(root, "name", "x"))
	c.Expect(201, "POST", fmt.Sprintf("/projects/%d/deploy_keys", x), root, apptest.Form("title", "orphan", "key", orphanLine))
	if _, err := auth.PublicKey(ctx, orphanWire); err != nil {
		t.Fatalf("orphan-to-be: %v", err)
	}
	if err := srv.Store.Projects().Delete(ctx, x); err != nil {
		t.Fatal(err)
	}
	unauthenticated("deploy key enabled nowhere", orphanWire)

	// A blocked user's key does not sign in; unblocked, it does again.
	c.Expect(201, "POST", fmt.Sprintf("/users/%d/block", aliceID), root, nil)
	unauthenticated("blocked user's key", userWire)
	c.Expect(201, "POST", fmt.Sprintf("/users/%d/unblock", aliceID), root, nil)
	if _, err := auth.PublicKey(ctx, userWire); err != nil {
		t.Errorf("unblocked user's key: %v", err)
	}
	// A deleted user's key went with them.
	c.Expect(200, "DELETE", fmt.Sprintf("/users/%d", aliceID), root, nil)
	unauthenticated("deleted user's key", userWire)
	// The deploy key root added still signs in.
	if _, err := auth.PublicKey(ctx, deployWire); err != nil {
		t.Errorf("deploy key after a user's deletion: %v", err)
	}
}
