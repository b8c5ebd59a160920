package members_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

const (
	guest     = 10
	reporter  = 20
	developer = 30
	master    = 40
	owner     = 50
)

func TestProjectMembers(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice")
		bobID, bob := c.User("bob")
		_, carol := c.User("carol")
		daveID, dave := c.User("dave")

		g := c.Group(root, "name", "Team", "path", "team")
		p := project(c, root, apptest.ID(g), "app", "private")
		pid := apptest.ID(p)
		c.AddMember("projects", pid, aliceID, master)
		c.AddMember("projects", pid, bobID, reporter)
		base := fmt.Sprintf("/projects/%d/members", pid)
		add := func(user int64, level int) url.Values {
			return apptest.Form("user_id", fmt.Sprint(user), "access_level", fmt.Sprint(level))
		}

		// Who may add: masters and administrators; readers get 403, others 404.
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", base, "", add(daveID, developer))
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", base, carol, add(daveID, developer))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", base, bob, add(daveID, developer))
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", "/projects/999999/members", root, add(daveID, developer))

		// Bad input.
		c.ExpectBody(400, `{"error":"user_id is missing, access_level is missing"}`, "POST", base, alice, nil)
		c.ExpectBody(400, `{"error":"user_id is invalid"}`, "POST", base, alice, apptest.Form("user_id", "x", "access_level", "30"))
		c.ExpectBody(400, `{"message":{"access_level":["is not included in the list"]}}`, "POST", base, alice, add(daveID, 35))
		// GitLab 9.x: a project member is at most a master.
		c.ExpectBody(400, `{"message":{"access_level":["is not included in the list"]}}`, "POST", base, alice, add(daveID, owner))
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", base, alice, add(999999, developer))
		c.ExpectBody(400, `{"message":{"expires_at":["cannot be a date in the past"]}}`, "POST", base, alice,
			apptest.Form("user_id", fmt.Sprint(daveID), "access_level", "30", "expires_at", "2001-01-01"))
		c.ExpectBody(400, `{"error":"expires_at is invalid"}`, "POST", base, alice,
			apptest.Form("user_id", fmt.Sprint(daveID), "access_level", "30", "expires_at", "soon"))

		// Dave cannot see the project before joining.
		c.Expect(404, "GET", fmt.Sprintf("/projects/%d", pid), dave, nil)
		expires := time.Now().UTC().AddDate(0, 1, 0).Format(time.DateOnly)
		m := c.Expect(201, "POST", base, alice, apptest.Form("user_id", fmt.Sprint(daveID), "access_level", "30", "expires_at", expires)).Object(t)
		want := map[string]any{"id": float64(daveID), "username": "dave", "name": "DAVE", "state": "active", "avatar_url": nil,
			"web_url": c.Srv.Config.ExternalURL + "/dave", "access_level": float64(developer), "expires_at": expires}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s = %v, want %v", k, m[k], v)
			}
		}
		c.Expect(200, "GET", fmt.Sprintf("/projects/%d", pid), dave, nil)
		c.ExpectBody(409, `{"message":"Member already exists"}`, "POST", base, alice, add(daveID, guest))
		// JSON bodies and paths work too.
		erinID, _ := c.User("erin")
		c.Expect(201, "POST", "/projects/"+url.PathEscape("team/app")+"/members", root,
			map[string]any{"user_id": erinID, "access_level": guest})

		// List: any reader; query on username or name; paginated.
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", base, "", nil)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", base, carol, nil)
		r := c.Expect(200, "GET", base, bob, nil)
		if got := apptest.Ordered(r.List(t), "username"); !same(got, "alice", "bob", "dave", "erin") || r.Header.Get("X-Total") != "4" {
			t.Fatalf("members: %v (X-Total %s)", got, r.Header.Get("X-Total"))
		}
		if got := apptest.Ordered(c.Expect(200, "GET", base+"?query=DA", bob, nil).List(t), "username"); !same(got, "dave") {
			t.Fatalf("query: %v", got)
		}
		r = c.Expect(200, "GET", base+"?per_page=2&page=2", bob, nil)
		if got := apptest.Ordered(r.List(t), "username"); !same(got, "dave", "erin") || r.Header.Get("X-Total-Pages") != "2" {
			t.Fatalf("page 2: %v %v", got, r.Header)
		}

		// One member.
		one := c.Expect(200, "GET", fmt.Sprintf("%s/%d", base, bobID), dave, nil).Object(t)
		if one["access_level"] != float64(reporter) || one["expires_at"] != nil {
			t.Fatalf("bob: %v", one)
		}
		c.ExpectBody(404, `{"message":"404 Member Not Found"}`, "GET", base+"/999999", bob, nil)
		c.ExpectBody(400, `{"error":"user_id is invalid"}`, "GET", base+"/abc", bob, nil)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", fmt.Sprintf("%s/%d", base, bobID), carol, nil)

		// Update.
		u := fmt.Sprintf("%s/%d", base, daveID)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "PUT", u, "", apptest.Form("access_level", "40"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", u, bob, apptest.Form("access_level", "40"))
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "PUT", u, carol, apptest.Form("access_level", "40"))
		c.ExpectBody(400, `{"error":"access_level is missing"}`, "PUT", u, alice, nil)
		c.ExpectBody(400, `{"message":{"access_level":["is not included in the list"]}}`, "PUT", u, alice, apptest.Form("access_level", "50"))
		c.ExpectBody(404, `{"message":"404 Member Not Found"}`, "PUT", fmt.Sprintf("%s/%d", base, 999999), alice, apptest.Form("access_level", "40"))
		m = c.Expect(200, "PUT", u, alice, apptest.Form("access_level", "40")).Object(t)
		if m["access_level"] != float64(master) || m["expires_at"] != expires {
			t.Fatalf("updated: %v", m)
		}
		m = c.Expect(200, "PUT", u, alice, apptest.Form("access_level", "20", "expires_at", "")).Object(t)
		if m["access_level"] != float64(reporter) || m["expires_at"] != nil {
			t.Fatalf("expiry cleared: %v", m)
		}

		// Remove: managers remove anyone, members themselves.
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "DELETE", u, "", nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", fmt.Sprintf("%s/%d", base, aliceID), bob, nil)
		c.ExpectBody(404, `{"message":"404 Member Not Found"}`, "DELETE", base+"/999999", alice, nil)
		r = c.Expect(204, "DELETE", fmt.Sprintf("%s/%d", base, bobID), bob, nil)
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body: %s", r.Body)
		}
		c.Expect(404, "GET", fmt.Sprintf("/projects/%d", pid), bob, nil)
		c.Expect(204, "DELETE", u, alice, nil)
		c.ExpectBody(404, `{"message":"404 Member Not Found"}`, "DELETE", u, alice, nil)

		// The project's feed records joins and departures.
		joined, left := 0, 0
		for _, e := range c.Expect(200, "GET", fmt.Sprintf("/projects/%d/events?per_page=100", pid), root, nil).List(t) {
			switch e["action_name"] {
			case "joined":
				joined++
			case "left":
				left++
			}
		}
		if joined != 4 || left != 2 {
			t.Fatalf("project events: %d joined, %d left; want 4 and 2", joined, left)
		}
	})
}

func TestGroupMembers(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice", "can_create_group", "true")
		bobID, bob := c.User("bob")
		carolID, carol := c.User("carol")

		g := c.Group(alice, "name", "Team", "path", "team")
		gid := apptest.ID(g)
		base := fmt.Sprintf("/groups/%d/members", gid)
		c.Expect(404, "GET", fmt.Sprintf("/groups/%d", gid), bob, nil)
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "POST", base, bob,
			apptest.Form("user_id", fmt.Sprint(bobID), "access_level", "30"))

		// Anyone who may read a group reads its members, anonymous callers
		// included for public groups.
		pub := c.Group(alice, "name", "Open", "path", "open", "visibility", "public")
		if l := c.Expect(200, "GET", fmt.Sprintf("/groups/%d/members", apptest.ID(pub)), "", nil).List(t); len(l) != 1 || apptest.ID(l[0]) != aliceID {
			t.Fatalf("anonymous read of public group members: %v", l)
		}
		c.Expect(200, "GET", fmt.Sprintf("/groups/%d/members/%d", apptest.ID(pub), aliceID), "", nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", fmt.Sprintf("/groups/%d/members", apptest.ID(pub)), "",
			apptest.Form("user_id", fmt.Sprint(bobID), "access_level", "30"))
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "GET", base, "", nil)

		// Owners add members, owners included.
		m := c.Expect(201, "POST", base, alice, apptest.Form("user_id", fmt.Sprint(bobID), "access_level", "40")).Object(t)
		if m["access_level"] != float64(master) {
			t.Fatalf("bob: %v", m)
		}
		c.Expect(200, "GET", fmt.Sprintf("/groups/%d", gid), bob, nil)
		// A master of a group may not manage its members.
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", base, bob, apptest.Form("user_id", fmt.Sprint(carolID), "access_level", "10"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", fmt.Sprintf("%s/%d", base, aliceID), bob, apptest.Form("access_level", "10"))
		c.ExpectBody(400, `{"message":{"access_level":["is not included in the list"]}}`, "POST", base, alice,
			apptest.Form("user_id", fmt.Sprint(carolID), "access_level", "60"))
		c.ExpectBody(409, `{"message":"Member already exists"}`, "POST", base, alice, apptest.Form("user_id", fmt.Sprint(bobID), "access_level", "10"))

		// The last owner may be neither demoted nor removed, by anyone.
		ownerURL := fmt.Sprintf("%s/%d", base, aliceID)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", ownerURL, alice, apptest.Form("access_level", "40"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", ownerURL, root, apptest.Form("access_level", "40"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", ownerURL, alice, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", ownerURL, root, nil)
		c.Expect(200, "PUT", fmt.Sprintf("%s/%d", base, bobID), alice, apptest.Form("access_level", "50"))
		c.Expect(200, "PUT", ownerURL, alice, apptest.Form("access_level", "30"))
		// Now bob is the last owner; alice (developer) may still leave.
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", fmt.Sprintf("%s/%d", base, bobID), root, nil)
		c.Expect(204, "DELETE", ownerURL, alice, nil)
		c.Expect(404, "GET", fmt.Sprintf("/groups/%d", gid), alice, nil)

		// Group membership is inherited by subgroups and their projects.
		sub := c.Group(bob, "name", "Sub", "path", "sub", "parent_id", fmt.Sprint(gid))
		proj := project(c, bob, apptest.ID(sub), "app", "private")
		c.Expect(404, "GET", fmt.Sprintf("/projects/%d", apptest.ID(proj)), carol, nil)
		c.Expect(201, "POST", base, bob, apptest.Form("user_id", fmt.Sprint(carolID), "access_level", "20"))
		c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(proj)), carol, nil)
		c.Expect(200, "GET", fmt.Sprintf("/groups/%d", apptest.ID(sub)), carol, nil)
		// Members of the subgroup itself are only bob (its creator).
		if got := apptest.Ordered(c.Expect(200, "GET", fmt.Sprintf("/groups/%d/members", apptest.ID(sub)), carol, nil).List(t), "username"); !same(got, "bob") {
			t.Fatalf("subgroup members: %v", got)
		}
		// The inherited view: direct and ancestors' members, highest level each.
		all := c.Expect(200, "GET", fmt.Sprintf("/groups/%d/members/all", apptest.ID(sub)), carol, nil).List(t)
		if got := apptest.Ordered(all, "username"); !same(got, "bob", "carol") || all[0]["access_level"] != float64(owner) || all[1]["access_level"] != float64(reporter) {
			t.Fatalf("subgroup members/all: %v", all)
		}
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/members", apptest.ID(proj)), bob, apptest.Form("user_id", fmt.Sprint(carolID), "access_level", "40"))
		r := c.Expect(200, "GET", fmt.Sprintf("/projects/%d/members/all?per_page=1", apptest.ID(proj)), carol, nil)
		if r.Header.Get("X-Total") != "2" {
			t.Fatalf("project members/all total: %s", r.Header.Get("X-Total"))
		}
		all = c.Expect(200, "GET", fmt.Sprintf("/projects/%d/members/all", apptest.ID(proj)), carol, nil).List(t)
		if got := apptest.Ordered(all, "username"); !same(got, "bob", "carol") || all[1]["access_level"] != float64(master) {
			t.Fatalf("project members/all: %v", all)
		}
		if got := apptest.Ordered(c.Expect(200, "GET", fmt.Sprintf("/projects/%d/members/all?query=car", apptest.ID(proj)), carol, nil).List(t), "username"); !same(got, "carol") {
			t.Fatalf("members/all query: %v", got)
		}

		// Group joins are recorded in the member's feed (without a project).
		joins := 0
		for _, e := range c.Expect(200, "GET", fmt.Sprintf("/users/%d/events?per_page=100", carolID), root, nil).List(t) {
			if e["action_name"] == "joined" && e["project_id"] == nil {
				joins++
			}
		}
		// One for the account itself, one for the group.
		if joins != 2 {
			t.Fatalf("carol's joined events without a project: %d", joins)
		}
	})
}
