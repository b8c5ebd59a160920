package app_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// sysReceiver is a loopback webhook endpoint that keeps what it is sent.
type sysReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []sysDelivery
}

type sysDelivery struct {
	event, token string
	body         map[string]any
	raw          string
}

func newSysReceiver(t *testing.T) *sysReceiver {
	t.Helper()
	r := &sysReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		r.mu.Lock()
		r.got = append(r.got, sysDelivery{event: req.Header.Get("X-Gitlab-Event"), token: req.Header.Get("X-Gitlab-Token"), body: body, raw: string(raw)})
		r.mu.Unlock()
	}))
	t.Cleanup(r.Close)
	return r
}

// match lists what arrived for which ok holds.
func (r *sysReceiver) match(ok func(sysDelivery) bool) []sysDelivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []sysDelivery
	for _, g := range r.got {
		if ok(g) {
			out = append(out, g)
		}
	}
	return out
}

// await waits, boundedly, until ok holds for something that arrived.
func (r *sysReceiver) await(t *testing.T, what string, ok func(sysDelivery) bool) sysDelivery {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := r.match(ok); len(m) > 0 {
			return m[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never arrived; got %d deliveries", what, len(r.match(func(sysDelivery) bool { return true })))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func sysAllowLocal(c *config.Config) { c.Webhooks.AllowLocalRequests = true }

func TestSystemHooksAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		_, userTok := c.User("sysplain")
		rcv := newSysReceiver(t)

		// Administrators only: 401 first, then 403.
		for _, r := range []struct{ method, path string }{{"GET", "/hooks"}, {"POST", "/hooks"}, {"GET", "/hooks/1"}, {"DELETE", "/hooks/1"}} {
			c.ExpectBody(401, `{"message":"401 Unauthorized"}`, r.method, r.path, "", apptest.Form("url", rcv.URL))
			c.ExpectBody(403, `{"message":"403 Forbidden"}`, r.method, r.path, userTok, apptest.Form("url", rcv.URL))
		}

		// Validation: url required (400), one the guard refuses (422).
		c.ExpectBody(400, `{"error":"url is missing"}`, "POST", "/hooks", root, apptest.Form("token", "x"))
		c.ExpectBody(422, `{"message":"Invalid url given"}`, "POST", "/hooks", root, apptest.Form("url", "ftp://example.com/x"))
		c.ExpectBody(400, `{"error":"id is invalid"}`, "GET", "/hooks/abc", root, nil)

		h := c.Expect(201, "POST", "/hooks", root, apptest.Form("url", rcv.URL+"/a", "token", "s3cret",
			"tag_push_events", "true", "enable_ssl_verification", "false")).Object(t)
		apptest.HasKeys(t, h, "id", "url", "created_at", "push_events", "tag_push_events",
			"repository_update_events", "enable_ssl_verification", "alert_status", "disabled_until")
		apptest.LacksKeys(t, h, "token", "project_id")
		if h["url"] != rcv.URL+"/a" || h["push_events"] != true || h["tag_push_events"] != true ||
			h["enable_ssl_verification"] != false || h["alert_status"] != "executable" || h["disabled_until"] != nil {
			t.Fatalf("created hook %v", h)
		}
		id := apptest.ID(h)
		defaults := c.Expect(201, "POST", "/hooks", root, apptest.Form("url", rcv.URL+"/b")).Object(t)
		if defaults["push_events"] != true || defaults["tag_push_events"] != false || defaults["enable_ssl_verification"] != true {
			t.Fatalf("defaults %v", defaults)
		}

		page := c.Expect(200, "GET", "/hooks?per_page=1", root, nil)
		if l := page.List(t); len(l) != 1 || apptest.ID(l[0]) != id || page.Header.Get("X-Total") != "2" || page.Header.Get("X-Next-Page") != "2" {
			t.Fatalf("page 1: %s (total %q next %q)", page.Body, page.Header.Get("X-Total"), page.Header.Get("X-Next-Page"))
		}

		// GET /hooks/:id sends GitLab's sample at once and answers with it.
		sample := `{"event_name":"project_create","name":"Ruby","path":"ruby","project_id":1,"owner_name":"Someone","owner_email":"example@gitlabhq.com"}`
		c.ExpectBody(200, sample, "GET", fmt.Sprintf("/hooks/%d", id), root, nil)
		got := rcv.match(func(r sysDelivery) bool { return r.body["name"] == "Ruby" })
		if len(got) != 1 || got[0].event != "System Hook" || got[0].token != "s3cret" || !apptest.JSONEqual([]byte(got[0].raw), []byte(sample)) {
			t.Fatalf("test delivery %+v", got)
		}
		c.ExpectBody(404, `{"message":"404 Not found"}`, "GET", "/hooks/999999", root, nil)

		// DELETE answers the deleted hook (9.x), then 404.
		del := c.Expect(200, "DELETE", fmt.Sprintf("/hooks/%d", id), root, nil).Object(t)
		if apptest.ID(del) != id || del["url"] != rcv.URL+"/a" {
			t.Fatalf("deleted %v", del)
		}
		c.ExpectBody(404, `{"message":"404 System hook Not Found"}`, "DELETE", fmt.Sprintf("/hooks/%d", id), root, nil)
		if l := c.Expect(200, "GET", "/hooks", root, nil).List(t); len(l) != 1 || apptest.ID(l[0]) != apptest.ID(defaults) {
			t.Fatalf("after delete: %v", l)
		}
	}, apptest.Configure(sysAllowLocal))
}

// sysSSHKey makes a fresh ed25519 public key.
func sysSSHKey(comment string) string {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	var blob []byte
	for _, part := range [][]byte{[]byte("ssh-ed25519"), pub} {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(part)))
		blob = append(blob, part...)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + comment
}

// TestSystemHookEvents drives each system event through the API and
// checks that it reaches a system hook once, with GitLab's keys.
func TestSystemHookEvents(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		rcv := newSysReceiver(t)
		c.Expect(201, "POST", "/hooks", root, apptest.Form("url", rcv.URL, "token", "tok"))

		type want struct {
			name string
			// keys are the payload's keys; match picks this event's one.
			keys  []string
			match map[string]any
		}
		var wants []want
		expect := func(name string, match map[string]any, keys ...string) {
			wants = append(wants, want{name: name, keys: keys, match: match})
		}
		projectKeys := []string{"created_at", "updated_at", "event_name", "name", "owner_email", "owner_name",
			"path", "path_with_namespace", "project_id", "project_visibility"}
		teamKeys := []string{"created_at", "updated_at", "event_name", "access_level", "project_id", "project_name",
			"project_path", "project_path_with_namespace", "user_email", "user_name", "user_username", "user_id", "project_visibility"}
		groupMemberKeys := []string{"created_at", "updated_at", "event_name", "group_access", "group_id", "group_name",
			"group_path", "user_email", "user_name", "user_username", "user_id"}
		userKeys := []string{"created_at", "updated_at", "email", "event_name", "name", "username", "user_id"}
		keyKeys := []string{"event_name", "created_at", "updated_at", "username", "key", "id"}
		groupKeys := []string{"created_at", "updated_at", "event_name", "name", "owner_email", "owner_name", "path", "group_id"}

		uid, _ := c.User("sysdora")
		expect("user_create", map[string]any{"username": "sysdora", "email": "sysdora@example.com"}, userKeys...)

		key := sysSSHKey("dora@laptop")
		k := c.Expect(201, "POST", fmt.Sprintf("/users/%d/keys", uid), root, apptest.Form("title", "laptop", "key", key)).Object(t)
		expect("key_create", map[string]any{"id": float64(apptest.ID(k)), "username": "sysdora"}, keyKeys...)
		c.Expect(200, "DELETE", fmt.Sprintf("/users/%d/keys/%d", uid, apptest.ID(k)), root, nil)
		expect("key_destroy", map[string]any{"id": float64(apptest.ID(k)), "username": "sysdora"}, keyKeys...)

		g := c.Group(root, "name", "SysTeam", "path", "systeam")
		gid := float64(apptest.ID(g))
		expect("group_create", map[string]any{"group_id": gid, "path": "systeam", "owner_name": nil}, groupKeys...)
		expect("user_add_to_group", map[string]any{"group_id": gid, "user_username": "root", "group_access": "Owner"}, groupMemberKeys...)
		c.AddMember("groups", apptest.ID(g), uid, 10)
		expect("user_add_to_group", map[string]any{"group_id": gid, "user_username": "sysdora", "group_access": "Guest"}, groupMemberKeys...)
		c.Expect(204, "DELETE", fmt.Sprintf("/groups/%d/members/%d", apptest.ID(g), uid), root, nil)
		expect("user_remove_from_group", map[string]any{"group_id": gid, "user_username": "sysdora"}, groupMemberKeys...)

		p := c.Project(root, "name", "Sysproj", "path", "sysproj", "visibility", "internal")
		pid := apptest.ID(p)
		expect("project_create", map[string]any{"project_id": float64(pid), "path_with_namespace": "root/sysproj",
			"owner_name": "Administrator", "project_visibility": "internal"}, projectKeys...)
		c.AddMember("projects", pid, uid, 30)
		expect("user_add_to_team", map[string]any{"project_id": float64(pid), "user_username": "sysdora", "access_level": "Developer"}, teamKeys...)
		c.Expect(204, "DELETE", fmt.Sprintf("/projects/%d/members/%d", pid, uid), root, nil)
		expect("user_remove_from_team", map[string]any{"project_id": float64(pid), "user_username": "sysdora"}, teamKeys...)

		// A new name alone is no rename; a new path is.
		c.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pid), root, apptest.Form("name", "Sysproj two"))
		c.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pid), root, apptest.Form("path", "sysproj2"))
		expect("project_rename", map[string]any{"project_id": float64(pid), "path_with_namespace": "root/sysproj2",
			"old_path_with_namespace": "root/sysproj"}, append(projectKeys, "old_path_with_namespace")...)
		c.Expect(201, "POST", fmt.Sprintf("/groups/%d/projects/%d", apptest.ID(g), pid), root, nil)
		expect("project_transfer", map[string]any{"project_id": float64(pid), "path_with_namespace": "systeam/sysproj2",
			"old_path_with_namespace": "root/sysproj2", "owner_name": "SysTeam", "owner_email": ""}, append(projectKeys, "old_path_with_namespace")...)

		c.Send("DELETE", fmt.Sprintf("/projects/%d", pid), root, nil)
		expect("project_destroy", map[string]any{"project_id": float64(pid), "path_with_namespace": "systeam/sysproj2"}, projectKeys...)
		c.Send("DELETE", fmt.Sprintf("/groups/%d", apptest.ID(g)), root, nil)
		expect("group_destroy", map[string]any{"group_id": gid, "path": "systeam"}, groupKeys...)
		c.Send("DELETE", fmt.Sprintf("/users/%d", uid), root, nil)
		expect("user_destroy", map[string]any{"user_id": float64(uid), "username": "sysdora"}, userKeys...)

		matches := func(w want) func(sysDelivery) bool {
			return func(r sysDelivery) bool {
				if r.body["event_name"] != w.name {
					return false
				}
				for k, v := range w.match {
					if got, ok := r.body[k]; !ok || got != v {
						return false
					}
				}
				return true
			}
		}
		for _, w := range wants {
			r := rcv.await(t, w.name, matches(w))
			if r.event != "System Hook" || r.token != "tok" {
				t.Errorf("%s: X-Gitlab-Event %q token %q", w.name, r.event, r.token)
			}
			var keys []string
			for k := range r.body {
				keys = append(keys, k)
			}
			if len(keys) != len(w.keys) {
				t.Errorf("%s: keys %v, want %v", w.name, keys, w.keys)
			}
			for _, k := range w.keys {
				if _, ok := r.body[k]; !ok {
					t.Errorf("%s: no %s in %s", w.name, k, r.raw)
				}
			}
			if ts, _ := r.body["created_at"].(string); !strings.HasSuffix(ts, "Z") || len(ts) != len("2012-07-21T07:30:54Z") {
				t.Errorf("%s: created_at %q", w.name, ts)
			}
		}
		// Everything expected arrived: each exactly once, and the edit
		// that kept the path sent no rename.
		for _, w := range wants {
			if n := len(rcv.match(matches(w))); n != 1 {
				t.Errorf("%s %v arrived %d times", w.name, w.match, n)
			}
		}
		if n := len(rcv.match(func(r sysDelivery) bool { return r.body["event_name"] == "project_rename" })); n != 1 {
			t.Errorf("%d project_rename deliveries, want 1", n)
		}
	}, apptest.Configure(sysAllowLocal))
}
