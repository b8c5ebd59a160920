package deploykeys_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/hearth-forge/hearth/app/apptest"
)

const (
	developer = 30
	master    = 40
)

// newKey is a fresh Ed25519 key: its authorized_keys line and its SSH
// wire format.
func newKey(t testing.TB) (line string, wire []byte) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))), k.Marshal()
}

var gitlabTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestDeployKeysAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice")
		bobID, bob := c.User("bob")
		carolID, carol := c.User("carol")
		_, dave := c.User("dave")
		p := apptest.ID(c.Project(root, "name", "p", "visibility", "private"))
		q := apptest.ID(c.Project(root, "name", "q", "visibility", "private"))
		r := apptest.ID(c.Project(root, "name", "r", "visibility", "private"))
		c.AddMember("projects", p, aliceID, master)
		c.AddMember("projects", q, aliceID, master)
		c.AddMember("projects", p, bobID, developer)
		c.AddMember("projects", r, carolID, master)
		keys := func(pid int64) string { return fmt.Sprintf("/projects/%d/deploy_keys", pid) }
		one := func(pid, id int64) string { return fmt.Sprintf("/projects/%d/deploy_keys/%d", pid, id) }
		line, _ := newKey(t)

		// Who may add: masters; developers 403, strangers 404, anonymous 401.
		form := apptest.Form("title", "CI", "key", line)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", keys(p), "", form)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", keys(p), dave, form)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", keys(p), bob, form)

		// Create: the key text is normalized (surrounding space, wrapping).
		wrapped := "  " + line[:20] + "\n" + line[20:] + "\r\n"
		k := c.Expect(201, "POST", keys(p), alice, apptest.Form("title", "CI", "key", wrapped, "can_push", "true")).Object(t)
		id := apptest.ID(k)
		if k["title"] != "CI" || k["key"] != line || k["can_push"] != true || !gitlabTime.MatchString(fmt.Sprint(k["created_at"])) {
			t.Fatalf("created %v", k)
		}
		if len(k) != 5 {
			t.Errorf("entity fields %v, want id, title, key, created_at, can_push", k)
		}
		// The same key again on the project is answered with it, as it is.
		again := c.Expect(201, "POST", keys(p), alice, apptest.Form("title", "other", "key", line+" comment")).Object(t)
		if apptest.ID(again) != id || again["title"] != "CI" {
			t.Fatalf("re-adding gave %v, want key %d unchanged", again, id)
		}
		list := c.Expect(200, "GET", keys(p), alice, nil)
		if l := list.List(t); len(l) != 1 || apptest.ID(l[0]) != id || list.Header.Get("X-Total") != "1" {
			t.Fatalf("list %s (X-Total %s)", list.Body, list.Header.Get("X-Total"))
		}
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", keys(p), bob, nil)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", one(p, id), dave, nil)

		// Alice may see the key (she is a master of p), so adding it to q
		// enables it there.
		onQ := c.Expect(201, "POST", keys(q), alice, apptest.Form("title", "ignored", "key", line)).Object(t)
		if apptest.ID(onQ) != id {
			t.Fatalf("adding to q gave %v, want key %d", onQ, id)
		}
		c.Expect(200, "GET", one(q, id), alice, nil)
		// Carol may not: for her the fingerprint is taken, and enabling it
		// is a 404.
		c.ExpectBody(400, `{"message":{"fingerprint":["has already been taken"]}}`, "POST", keys(r), carol, apptest.Form("title", "mine", "key", line))
		c.ExpectBody(404, `{"message":"404 Deploy Key Not Found"}`, "POST", one(r, id)+"/enable", carol, nil)
		c.ExpectBody(404, `{"message":"404 Not found"}`, "GET", one(r, id), carol, nil)
		// An administrator sees every key.
		enabled := c.Expect(201, "POST", one(r, id)+"/enable", root, nil).Object(t)
		if apptest.ID(enabled) != id {
			t.Fatalf("enable gave %v", enabled)
		}
		c.Expect(201, "POST", one(r, id)+"/enable", carol, nil) // now on her project, she sees it
		c.ExpectBody(404, `{"message":"404 Deploy Key Not Found"}`, "POST", one(r, 999999)+"/enable", root, nil)

		// Update: can_push belongs to the key, so every project sees it.
		up := c.Expect(200, "PUT", one(p, id), alice, apptest.Form("title", "Deployer", "can_push", "false")).Object(t)
		if up["title"] != "Deployer" || up["can_push"] != false || up["key"] != line {
			t.Fatalf("updated %v", up)
		}
		if got := c.Expect(200, "GET", one(q, id), alice, nil).Object(t); got["can_push"] != false || got["title"] != "Deployer" {
			t.Fatalf("q sees %v", got)
		}
		c.ExpectBody(400, `{"error":"title, can_push are missing, at least one parameter must be provided"}`, "PUT", one(p, id), alice, nil)
		c.ExpectBody(400, `{"message":{"title":["is too long (maximum is 255 characters)"]}}`, "PUT", one(p, id), alice,
			apptest.Form("title", strings.Repeat("t", 256)))
		c.ExpectBody(404, `{"message":"404 Deploy Key Not Found"}`, "PUT", one(p, 999999), alice, apptest.Form("title", "x"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", one(p, id), bob, apptest.Form("title", "x"))
		c.ExpectBody(400, `{"error":"key_id is invalid"}`, "GET", keys(p)+"/abc", alice, nil)

		// Every deploy key, for administrators.
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/deploy_keys", "", nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", "/deploy_keys", alice, nil)
		second, _ := newKey(t)
		id2 := apptest.ID(c.Expect(201, "POST", keys(r), carol, apptest.Form("title", "second", "key", second)).Object(t))
		all := c.Expect(200, "GET", "/deploy_keys?per_page=1&page=2", root, nil)
		if l := all.List(t); len(l) != 1 || apptest.ID(l[0]) != id2 || all.Header.Get("X-Total") != "2" {
			t.Fatalf("page 2 of every key: %s (X-Total %s)", all.Body, all.Header.Get("X-Total"))
		}

		// Delete disables the key on the project; the last one deletes it.
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", one(p, id), bob, nil)
		c.Expect(204, "DELETE", one(p, id), alice, nil)
		c.ExpectBody(404, `{"message":"404 Not found"}`, "GET", one(p, id), alice, nil)
		c.ExpectBody(404, `{"message":"404 Deploy Key Not Found"}`, "DELETE", one(p, id), alice, nil)
		c.Expect(200, "GET", one(q, id), alice, nil)
		c.Expect(204, "DELETE", one(q, id), alice, nil)
		c.Expect(204, "DELETE", one(r, id), carol, nil)
		if l := c.Expect(200, "GET", "/deploy_keys", root, nil).List(t); len(l) != 1 || apptest.ID(l[0]) != id2 {
			t.Fatalf("after the last disable, every key is %v; want only %d", l, id2)
		}
		// Its fingerprint is free again: carol creates it anew.
		c.Expect(201, "POST", keys(r), carol, apptest.Form("title", "mine", "key", line))
	})
}

func TestDeployKeysValidation(t *testing.T) {
	t.Parallel()
	c := apptest.New(t).Client(t)
	root := c.Srv.RootToken
	p := apptest.ID(c.Project(root, "name", "p"))
	keys := fmt.Sprintf("/projects/%d/deploy_keys", p)
	c.ExpectBody(400, `{"error":"title is missing, key is missing"}`, "POST", keys, root, nil)
	c.ExpectBody(400, `{"error":"can_push is invalid"}`, "POST", keys, root, apptest.Form("title", "t", "key", "k", "can_push", "maybe"))
	c.ExpectBody(400, `{"message":{"title":["is too long (maximum is 255 characters)"],"key":["is invalid"],"fingerprint":["cannot be generated"]}}`,
		"POST", keys, root, apptest.Form("title", strings.Repeat("t", 256), "key", "ssh-rsa AAAA"))
	// The messages of a user's key: a 512-bit RSA key is too small.
	small := "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAQQDLYp6bW3SP/9E0PWgXq7SK5ShtCS9cdx6FwbSzUhFRBrBvEbHvfL4wdVUUdrbjaPwHTAbmxPbB/9GdNCVbuatz"
	c.ExpectBody(400, `{"message":{"key":["must be at least 1024 bits"]}}`, "POST", keys, root, apptest.Form("title", "t", "key", small))
	c.ExpectBody(400, `{"message":{"key":["is too long (maximum is 5000 characters)"]}}`, "POST", keys, root,
		apptest.Form("title", "t", "key", "ssh-rsa "+strings.Repeat("A", 5000)))
	// Unauthorized callers learn nothing from validation.
	_, bob := c.User("bob")
	c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", keys, bob, nil)
}

// TestDeployKeyAndUserKeyShareFingerprints: a key is a user's or a deploy
// key, never both, whichever came first.
func TestDeployKeyAndUserKeyShareFingerprints(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		p := apptest.ID(c.Project(root, "name", "p"))
		keys := fmt.Sprintf("/projects/%d/deploy_keys", p)
		taken := `{"message":{"fingerprint":["has already been taken"]}}`

		userFirst, _ := newKey(t)
		c.Expect(201, "POST", "/user/keys", root, apptest.Form("title", "laptop", "key", userFirst))
		c.ExpectBody(400, taken, "POST", keys, root, apptest.Form("title", "deploy", "key", userFirst))

		deployFirst, _ := newKey(t)
		c.Expect(201, "POST", keys, root, apptest.Form("title", "deploy", "key", deployFirst))
		c.ExpectBody(400, taken, "POST", "/user/keys", root, apptest.Form("title", "laptop", "key", deployFirst))
		// The user's keys list no deploy key.
		if l := c.Expect(200, "GET", "/user/keys", root, nil).List(t); len(l) != 1 || l[0]["key"] != userFirst {
			t.Fatalf("root's keys %v", l)
		}
	})
}

// TestProjectDeletionDisablesKeys: deleting a project disables its keys,
// and deletes those it was the last project of, as GitLab does.
func TestProjectDeletionDisablesKeys(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		p := apptest.ID(c.Project(root, "name", "p"))
		x := apptest.ID(c.Project(root, "name", "x"))
		shared, _ := newKey(t)
		only, _ := newKey(t)
		sharedID := apptest.ID(c.Expect(201, "POST", fmt.Sprintf("/projects/%d/deploy_keys", x), root, apptest.Form("title", "shared", "key", shared)).Object(t))
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/deploy_keys/%d/enable", p, sharedID), root, nil)
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/deploy_keys", x), root, apptest.Form("title", "only", "key", only))
		c.Expect(202, "DELETE", fmt.Sprintf("/projects/%d", x), root, nil)
		l := c.Expect(200, "GET", "/deploy_keys", root, nil).List(t)
		if len(l) != 1 || apptest.ID(l[0]) != sharedID {
			t.Fatalf("keys after the project's deletion: %v; want only %d", l, sharedID)
		}
		c.Expect(200, "GET", fmt.Sprintf("/projects/%d/deploy_keys/%d", p, sharedID), root, nil)
		// The deleted key's fingerprint is free.
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/deploy_keys", p), root, apptest.Form("title", "only", "key", only))
	})
}
