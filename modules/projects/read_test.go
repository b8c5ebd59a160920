package projects_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

func TestGetProject(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		aliceID, alice := c.User("alice")
		_, bob := c.User("bob")
		priv := c.Project(alice, "name", "secret")
		pub := c.Project(alice, "name", "open", "visibility", "public")
		internal := c.Project(alice, "name", "inside", "visibility", "internal")

		// By ID and by URL-encoded path (%2F, and %2E for dots as go-gitlab sends them).
		for _, ref := range []string{fmt.Sprint(apptest.ID(priv)), "alice%2Fsecret", "ALICE%2FSECRET"} {
			p := c.Expect(200, "GET", "/projects/"+ref, alice, nil).Object(t)
			if apptest.ID(p) != apptest.ID(priv) {
				t.Fatalf("%s: %v", ref, p["id"])
			}
			// The owner of a personal project is its master member, as
			// GitLab's project creation makes them.
			perms := p["permissions"].(map[string]any)
			if pa := perms["project_access"].(map[string]any); pa["access_level"] != float64(40) {
				t.Fatalf("owner permissions: %v", perms)
			}
			if perms["group_access"] != nil {
				t.Fatalf("group_access: %v", perms)
			}
		}
		dotted := c.Project(alice, "path", "with.dot")
		c.Expect(200, "GET", "/projects/alice%2Fwith%2Edot", alice, nil)
		_ = dotted

		// Statistics when asked.
		p := c.Expect(200, "GET", fmt.Sprintf("/projects/%d?statistics=true", apptest.ID(priv)), alice, nil).Object(t)
		st, ok := p["statistics"].(map[string]any)
		if !ok {
			t.Fatalf("statistics missing: %v", p)
		}
		apptest.HasKeys(t, st, "commit_count", "storage_size", "repository_size", "lfs_objects_size", "job_artifacts_size")

		// Hidden projects are 404, whoever asks and however.
		nf := `{"message":"404 Project Not Found"}`
		c.ExpectBody(404, nf, "GET", fmt.Sprintf("/projects/%d", apptest.ID(priv)), bob, nil)
		c.ExpectBody(404, nf, "GET", "/projects/alice%2Fsecret", bob, nil)
		c.ExpectBody(404, nf, "GET", fmt.Sprintf("/projects/%d", apptest.ID(priv)), "", nil)
		c.ExpectBody(404, nf, "GET", fmt.Sprintf("/projects/%d", apptest.ID(internal)), "", nil)
		c.ExpectBody(404, nf, "GET", "/projects/999999", alice, nil)
		c.ExpectBody(404, nf, "GET", "/projects/nothing", alice, nil)
		c.ExpectBody(404, nf, "GET", "/projects/a%2Fb%2Fc", alice, nil)
		c.ExpectBody(400, `{"error":"statistics is invalid"}`, "GET", fmt.Sprintf("/projects/%d?statistics=maybe", apptest.ID(pub)), alice, nil)

		// Public projects are readable anonymously, without permissions.
		anon := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(pub)), "", nil).Object(t)
		apptest.LacksKeys(t, anon, "permissions")
		// Internal projects by any signed-in user, who has no access level.
		in := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(internal)), bob, nil).Object(t)
		if perms := in["permissions"].(map[string]any); perms["project_access"] != nil || perms["group_access"] != nil {
			t.Fatalf("non-member permissions: %v", perms)
		}
		// Group members see their group access.
		memberID, member := c.User("member")
		g := group(c, "team", "private")
		c.AddMember("groups", g, memberID, 30)
		gp := c.Project(c.Srv.RootToken, "name", "team project", "namespace_id", fmt.Sprint(g))
		perms := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(gp)), member, nil).Object(t)["permissions"].(map[string]any)
		if ga := perms["group_access"].(map[string]any); ga["access_level"] != float64(30) || perms["project_access"] != nil {
			t.Fatalf("group permissions: %v", perms)
		}
		_ = aliceID
	})
}

func TestListProjects(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		aliceID, alice := c.User("alice")
		bobID, bob := c.User("bob")
		a1 := c.Project(alice, "name", "a-private")
		a2 := c.Project(alice, "name", "a-internal", "visibility", "internal", "issues_enabled", "false")
		a3 := c.Project(alice, "name", "a-public", "visibility", "public", "merge_requests_enabled", "false", "description", "needle in here")
		b1 := c.Project(bob, "name", "b-private")
		b2 := c.Project(bob, "name", "b-public", "visibility", "public")
		g := group(c, "grp", "private")
		c.AddMember("groups", g, bobID, 30)
		g1 := c.Project(c.Srv.RootToken, "name", "g-private", "namespace_id", fmt.Sprint(g))
		_ = b1

		ids := func(r apptest.Reply) []string { return apptest.Ordered(r.List(t), "name") }
		total := func(r apptest.Reply) string { return r.Header.Get("X-Total") }

		// Anonymous: public only. Default order: created_at desc.
		r := c.Expect(200, "GET", "/projects", "", nil)
		if got := ids(r); !same(got, "b-public", "a-public") || total(r) != "2" {
			t.Fatalf("anonymous: %v total %s", got, total(r))
		}
		// Alice: her own, and internal and public ones.
		r = c.Expect(200, "GET", "/projects?order_by=name&sort=asc", alice, nil)
		if got := ids(r); !same(got, "a-internal", "a-private", "a-public", "b-public") || total(r) != "4" {
			t.Fatalf("alice: %v total %s", got, total(r))
		}
		// Bob: his own, the group's, and internal and public ones.
		r = c.Expect(200, "GET", "/projects?order_by=id&sort=asc", bob, nil)
		if got := ids(r); !same(got, "a-internal", "a-public", "b-private", "b-public", "g-private") {
			t.Fatalf("bob: %v", got)
		}
		// Administrators: everything.
		if got := total(c.Expect(200, "GET", "/projects", c.Srv.RootToken, nil)); got != "6" {
			t.Fatalf("admin total %s", got)
		}

		// Filters.
		check := func(query, token string, want ...string) {
			t.Helper()
			r := c.Expect(200, "GET", "/projects?order_by=name&sort=asc&"+query, token, nil)
			if got := ids(r); !same(got, want...) || total(r) != fmt.Sprint(len(want)) {
				t.Fatalf("%s: %v (X-Total %s), want %v", query, got, total(r), want)
			}
		}
		check("visibility=internal", alice, "a-internal")
		check("visibility=private", bob, "b-private", "g-private")
		check("search=NEEDLE", alice, "a-public")
		check("search=a-p", alice, "a-private", "a-public")
		check("owned=true", alice, "a-internal", "a-private", "a-public")
		check("owned=true", bob, "b-private", "b-public")
		check("membership=true", bob, "b-private", "b-public", "g-private")
		check("membership=true&visibility=public", bob, "b-public")
		check("with_issues_enabled=true", alice, "a-private", "a-public", "b-public")
		check("with_merge_requests_enabled=1", alice, "a-internal", "a-private", "b-public")
		check("owned=true", "")
		check("membership=true", "")
		check("starred=true", "")
		// Administrators' membership is their own, not everything.
		check("membership=true", c.Srv.RootToken, "g-private")
		check("owned=true", c.Srv.RootToken, "g-private") // root created (owns) the group

		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/star", apptest.ID(a3)), bob, nil)
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/star", apptest.ID(g1)), bob, nil)
		check("starred=true", bob, "a-public", "g-private")
		check("starred=true&membership=true", bob, "g-private")
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/archive", apptest.ID(a2)), alice, nil)
		check("archived=true", alice, "a-internal")
		check("archived=false&owned=true", alice, "a-private", "a-public")

		// Ordering.
		r = c.Expect(200, "GET", "/projects?order_by=path&sort=desc", alice, nil)
		if got := ids(r); !same(got, "b-public", "a-public", "a-private", "a-internal") {
			t.Fatalf("path desc: %v", got)
		}
		for _, o := range []string{"id", "name", "path", "created_at", "updated_at", "last_activity_at"} {
			c.Expect(200, "GET", "/projects?order_by="+o, alice, nil)
		}

		// simple=true: the basic entity.
		s := c.Expect(200, "GET", "/projects?simple=true", alice, nil).List(t)[0]
		apptest.HasKeys(t, s, "id", "name", "path", "path_with_namespace", "web_url", "http_url_to_repo", "ssh_url_to_repo")
		apptest.LacksKeys(t, s, "visibility", "namespace", "permissions", "owner")
		// statistics=true adds statistics.
		full := c.Expect(200, "GET", "/projects?statistics=true", alice, nil).List(t)[0]
		apptest.HasKeys(t, full, "statistics")

		// Pagination headers and links.
		r = c.Expect(200, "GET", "/projects?per_page=2&page=2&order_by=id", alice, nil)
		if len(r.List(t)) != 2 || r.Header.Get("X-Total") != "4" || r.Header.Get("X-Total-Pages") != "2" ||
			r.Header.Get("X-Page") != "2" || r.Header.Get("X-Per-Page") != "2" || r.Header.Get("X-Prev-Page") != "1" ||
			r.Header.Get("X-Next-Page") != "" || !strings.Contains(r.Header.Get("Link"), `rel="first"`) {
			t.Fatalf("pagination headers: %v", r.Header)
		}
		if !strings.Contains(r.Header.Get("Link"), "order_by=id") {
			t.Fatalf("links keep the parameters: %s", r.Header.Get("Link"))
		}

		// Invalid parameters.
		c.ExpectBody(400, `{"error":"order_by does not have a valid value"}`, "GET", "/projects?order_by=stars", alice, nil)
		c.ExpectBody(400, `{"error":"sort does not have a valid value"}`, "GET", "/projects?sort=up", alice, nil)
		c.ExpectBody(400, `{"error":"visibility does not have a valid value"}`, "GET", "/projects?visibility=hidden", "", nil)
		c.ExpectBody(400, `{"error":"order_by does not have a valid value, sort does not have a valid value"}`, "GET", "/projects?order_by=x&sort=y", "", nil)
		c.ExpectBody(400, `{"error":"archived is invalid"}`, "GET", "/projects?archived=perhaps", "", nil)
		c.ExpectBody(400, `{"error":"page is invalid"}`, "GET", "/projects?page=x", "", nil)
		_, _, _ = aliceID, b2, a1
	})
}

func TestUserProjects(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		_, alice := c.User("alice")
		_, bob := c.User("bob")
		c.Project(alice, "name", "a-private")
		c.Project(alice, "name", "a-public", "visibility", "public")
		g := group(c, "grp", "public")
		c.Project(c.Srv.RootToken, "name", "not personal", "namespace_id", fmt.Sprint(g), "visibility", "public")

		for _, ref := range []string{"alice", "ALICE"} {
			r := c.Expect(200, "GET", "/users/"+ref+"/projects?order_by=name&sort=asc", alice, nil)
			if got := apptest.Ordered(r.List(t), "name"); !same(got, "a-private", "a-public") || r.Header.Get("X-Total") != "2" {
				t.Fatalf("own: %v", got)
			}
		}
		var aliceID float64
		for _, u := range c.Expect(200, "GET", "/users?username=alice", c.Srv.RootToken, nil).List(t) {
			aliceID = u["id"].(float64)
		}
		for _, token := range []string{bob, ""} {
			r := c.Expect(200, "GET", fmt.Sprintf("/users/%d/projects", int64(aliceID)), token, nil)
			if got := apptest.Ordered(r.List(t), "name"); !same(got, "a-public") || r.Header.Get("X-Total") != "1" {
				t.Fatalf("others see: %v", got)
			}
		}
		r := c.Expect(200, "GET", "/users/alice/projects?visibility=private", c.Srv.RootToken, nil)
		if got := apptest.Ordered(r.List(t), "name"); !same(got, "a-private") {
			t.Fatalf("admin filter: %v", got)
		}
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/nobody/projects", alice, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/projects", "", nil)
		c.ExpectBody(400, `{"error":"order_by does not have a valid value"}`, "GET", "/users/alice/projects?order_by=x", "", nil)
	})
}

func TestProjectUsers(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		ownerID, owner := c.User("owner")
		directID, _ := c.User("direct")
		parentID, _ := c.User("parentmember")
		childID, _ := c.User("childmember")
		sharedID, _ := c.User("sharedmember")
		_, stranger := c.User("stranger")

		personal := c.Project(owner, "name", "mine")
		c.AddMember("projects", apptest.ID(personal), directID, 30)
		r := c.Expect(200, "GET", fmt.Sprintf("/projects/%d/users", apptest.ID(personal)), owner, nil)
		if got := apptest.Names(r.List(t), "username"); !same(got, "direct", "owner") || r.Header.Get("X-Total") != "2" {
			t.Fatalf("personal project users: %v", got)
		}
		apptest.HasKeys(t, r.List(t)[0], "id", "username", "name", "state", "avatar_url", "web_url")

		parent := group(c, "parent", "private")
		child := c.Expect(201, "POST", "/groups", c.Srv.RootToken, apptest.Form("name", "child", "path", "child", "parent_id", fmt.Sprint(parent))).Object(t)
		other := group(c, "other", "private")
		c.AddMember("groups", parent, parentID, 20)
		c.AddMember("groups", apptest.ID(child), childID, 30)
		c.AddMember("groups", other, sharedID, 40)
		gp := c.Project(c.Srv.RootToken, "name", "deep", "namespace_id", fmt.Sprint(apptest.ID(child)))
		c.AddMember("projects", apptest.ID(gp), directID, 10)
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/share", apptest.ID(gp)), c.Srv.RootToken, apptest.Form("group_id", fmt.Sprint(other), "group_access", "20"))

		r = c.Expect(200, "GET", fmt.Sprintf("/projects/%d/users", apptest.ID(gp)), c.Srv.RootToken, nil)
		if got := apptest.Names(r.List(t), "username"); !same(got, "childmember", "direct", "parentmember", "root", "sharedmember") {
			t.Fatalf("group project users: %v", got)
		}
		r = c.Expect(200, "GET", fmt.Sprintf("/projects/%d/users?search=MEMBER&per_page=2&page=2", apptest.ID(gp)), c.Srv.RootToken, nil)
		if r.Header.Get("X-Total") != "3" || len(r.List(t)) != 1 {
			t.Fatalf("search page: %s total %s", r.Body, r.Header.Get("X-Total"))
		}
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", fmt.Sprintf("/projects/%d/users", apptest.ID(gp)), stranger, nil)
		_, _ = ownerID, childID
	})
}

func TestNamespaces(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		aliceID, alice := c.User("alice")
		c.User("bob")
		g := group(c, "alpha", "private")
		sub := c.Expect(201, "POST", "/groups", c.Srv.RootToken, apptest.Form("name", "beta", "path", "beta", "parent_id", fmt.Sprint(g))).Object(t)
		group(c, "gamma", "public")
		c.AddMember("groups", g, aliceID, 30)

		r := c.Expect(200, "GET", "/namespaces", alice, nil)
		list := r.List(t)
		if got := apptest.Names(list, "full_path"); !same(got, "alice", "alpha", "alpha/beta") || r.Header.Get("X-Total") != "3" {
			t.Fatalf("alice's namespaces: %v", got)
		}
		for _, n := range list {
			apptest.HasKeys(t, n, "id", "name", "path", "kind", "full_path", "parent_id")
			switch n["full_path"] {
			case "alice":
				if n["kind"] != "user" || n["name"] != "ALICE" || n["parent_id"] != nil {
					t.Fatalf("personal namespace: %v", n)
				}
			case "alpha/beta":
				if n["kind"] != "group" || n["parent_id"] != float64(g) || n["id"] != float64(apptest.ID(sub)) {
					t.Fatalf("subgroup: %v", n)
				}
			}
		}
		r = c.Expect(200, "GET", "/namespaces?search=BET", alice, nil)
		if got := apptest.Names(r.List(t), "path"); !same(got, "beta") {
			t.Fatalf("search: %v", got)
		}
		r = c.Expect(200, "GET", "/namespaces?per_page=100", c.Srv.RootToken, nil)
		if got := apptest.Names(r.List(t), "full_path"); !same(got, "alice", "alpha", "alpha/beta", "bob", "gamma", "root") {
			t.Fatalf("admin: %v", got)
		}
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/namespaces", "", nil)
		c.ExpectBody(400, `{"error":"per_page is invalid"}`, "GET", "/namespaces?per_page=many", alice, nil)
		_ = url.Values{}
	})
}
