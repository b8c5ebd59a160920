package app_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// deployKeyRoutes are the deploy keys rows: masters and owners manage a
// project's deploy keys (GitLab's authorize_admin_project), developers
// and below get 403, who cannot see the project 404, anonymous callers
// 401 first; the list of every deploy key is for administrators.
func deployKeyRoutes() map[string]routeCase {
	const api = "/api/v4/projects/{id}"
	const p = "/projects/{project}"
	// fresh makes a deploy key on the cell's project as root and names it.
	fresh := func(tr *tracker) string {
		return fmt.Sprintf("%s/deploy_keys/%d", p, tr.fresh("deploy_keys", vals("title", "fixture", "key", newAuthorizedKey(tr.w.t)), "id"))
	}
	return map[string]routeCase{
		"GET /api/v4/deploy_keys":     {rule: adminOnly, req: get("/deploy_keys")},
		"GET " + api + "/deploy_keys": {rule: masterLevel, req: get(p + "/deploy_keys")},
		"POST " + api + "/deploy_keys": {rule: masterLevel, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return p + "/deploy_keys", vals("title", fmt.Sprintf("k%d", tr.next()), "key", newAuthorizedKey(tr.w.t))
		})},
		"GET " + api + "/deploy_keys/{key_id}": {rule: masterLevel, req: prepared("GET", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
		"PUT " + api + "/deploy_keys/{key_id}": {rule: masterLevel, kept: true, req: prepared("PUT", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), vals("title", "renamed", "can_push", "true")
		})},
		"DELETE " + api + "/deploy_keys/{key_id}": {rule: masterLevel, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
		// The key is on the project already: who may manage the project's
		// keys sees it, and enabling it again is answered with it.
		"POST " + api + "/deploy_keys/{key_id}/enable": {rule: masterLevel, kept: true, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr) + "/enable", nil
		})},
	}
}

// newAuthorizedKey is a fresh Ed25519 public key as an authorized_keys
// line.
func newAuthorizedKey(t testing.TB) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k)))
}
