package projects_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestGetProject(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		aliceID, alice := c.user("alice")
		_, bob := c.user("bob")
		priv := c.project(alice, "name", "secret")
		pub := c.project(alice, "name", "open", "visibility", "public")
		internal := c.project(alice, "name", "inside", "visibility", "internal")

		// By ID and by URL-encoded path (%2F, and %2E for dots as go-gitlab sends them).
		for _, ref := range []string{fmt.Sprint(id(priv)), "alice%2Fsecret", "ALICE%2FSECRET"} {
			p := c.expect(200, "GET", "/projects/"+ref, alice, nil).object(t)
			if id(p) != id(priv) {
				t.Fatalf("%s: %v", ref, p["id"])
			}
			perms := p["permissions"].(map[string]any)
			if pa := perms["project_access"].(map[string]any); pa["access_level"] != float64(50) {
				t.Fatalf("owner permissions: %v", perms)
			}
			if perms["group_access"] != nil {
				t.Fatalf("group_access: %v", perms)
			}
		}
		dotted := c.project(alice, "path", "with.dot")
		c.expect(200, "GET", "/projects/alice%2Fwith%2Edot", alice, nil)
		_ = dotted

		// Statistics when asked.
		p := c.expect(200, "GET", fmt.Sprintf("/projects/%d?statistics=true", id(priv)), alice, nil).object(t)
		st, ok := p["statistics"].(map[string]any)
		if !ok {
			t.Fatalf("statistics missing: %v", p)
		}
		hasKeys(t, st, "commit_count", "storage_size", "repository_size", "lfs_objects_size", "job_artifacts_size")

		// Hidden projects are 404, whoever asks and however.
		nf := `{"message":"404 Project Not Found"}`
		c.expectBody(404, nf, "GET", fmt.Sprintf("/projects/%d", id(priv)), bob, nil)
		c.expectBody(404, nf, "GET", "/projects/alice%2Fsecret", bob, nil)
		c.expectBody(404, nf, "GET", fmt.Sprintf("/projects/%d", id(priv)), "", nil)
		c.expectBody(404, nf, "GET", fmt.Sprintf("/projects/%d", id(internal)), "", nil)
		c.expectBody(404, nf, "GET", "/projects/999999", alice, nil)
		c.expectBody(404, nf, "GET", "/projects/nothing", alice, nil)
		c.expectBody(404, nf, "GET", "/projects/a%2Fb%2Fc", alice, nil)
		c.expectBody(400, `{"error":"statistics is invalid"}`, "GET", fmt.Sprintf("/projects/%d?statistics=maybe", id(pub)), alice, nil)

		// Public projects are readable anonymously, without permissions.
		anon := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(pub)), "", nil).object(t)
		lacksKeys(t, anon, "permissions")
		// Internal projects by any signed-in user, who has no access level.
		in := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(internal)), bob, nil).object(t)
		if perms := in["permissions"].(map[string]any); perms["project_access"] != nil || perms["group_access"] != nil {
			t.Fatalf("non-member permissions: %v", perms)
		}
		// Group members see their group access.
		memberID, member := c.user("member")
		g := c.group("team", "private")
		c.addMember("groups", g, memberID, 30)
		gp := c.project(c.srv.RootToken, "name", "team project", "namespace_id", fmt.Sprint(g))
		perms := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(gp)), member, nil).object(t)["permissions"].(map[string]any)
		if ga := perms["group_access"].(map[string]any); ga["access_level"] != float64(30) || perms["project_access"] != nil {
			t.Fatalf("group permissions: %v", perms)
		}
		_ = aliceID
	})
}

func TestListProjects(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		aliceID, alice := c.user("alice")
		bobID, bob := c.user("bob")
		a1 := c.project(alice, "name", "a-private")
		a2 := c.project(alice, "name", "a-internal", "visibility", "internal", "issues_enabled", "false")
		a3 := c.project(alice, "name", "a-public", "visibility", "public", "merge_requests_enabled", "false", "description", "needle in here")
		b1 := c.project(bob, "name", "b-private")
		b2 := c.project(bob, "name", "b-public", "visibility", "public")
		g := c.group("grp", "private")
		c.addMember("groups", g, bobID, 30)
		g1 := c.project(c.srv.RootToken, "name", "g-private", "namespace_id", fmt.Sprint(g))
		_ = b1

		ids := func(r reply) []string { return ordered(r.list(t), "name") }
		total := func(r reply) string { return r.header.Get("X-Total") }

		// Anonymous: public only. Default order: created_at desc.
		r := c.expect(200, "GET", "/projects", "", nil)
		if got := ids(r); !same(got, "b-public", "a-public") || total(r) != "2" {
			t.Fatalf("anonymous: %v total %s", got, total(r))
		}
		// Alice: her own, and internal and public ones.
		r = c.expect(200, "GET", "/projects?order_by=name&sort=asc", alice, nil)
		if got := ids(r); !same(got, "a-internal", "a-private", "a-public", "b-public") || total(r) != "4" {
			t.Fatalf("alice: %v total %s", got, total(r))
		}
		// Bob: his own, the group's, and internal and public ones.
		r = c.expect(200, "GET", "/projects?order_by=id&sort=asc", bob, nil)
		if got := ids(r); !same(got, "a-internal", "a-public", "b-private", "b-public", "g-private") {
			t.Fatalf("bob: %v", got)
		}
		// Administrators: everything.
		if got := total(c.expect(200, "GET", "/projects", c.srv.RootToken, nil)); got != "6" {
			t.Fatalf("admin total %s", got)
		}

		// Filters.
		check := func(query, token string, want ...string) {
			t.Helper()
			r := c.expect(200, "GET", "/projects?order_by=name&sort=asc&"+query, token, nil)
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
		check("membership=true", c.srv.RootToken, "g-private")
		check("owned=true", c.srv.RootToken, "g-private") // root created (owns) the group

		c.expect(201, "POST", fmt.Sprintf("/projects/%d/star", id(a3)), bob, nil)
		c.expect(201, "POST", fmt.Sprintf("/projects/%d/star", id(g1)), bob, nil)
		check("starred=true", bob, "a-public", "g-private")
		check("starred=true&membership=true", bob, "g-private")
		c.expect(201, "POST", fmt.Sprintf("/projects/%d/archive", id(a2)), alice, nil)
		check("archived=true", alice, "a-internal")
		check("archived=false&owned=true", alice, "a-private", "a-public")

		// Ordering.
		r = c.expect(200, "GET", "/projects?order_by=path&sort=desc", alice, nil)
		if got := ids(r); !same(got, "b-public", "a-public", "a-private", "a-internal") {
			t.Fatalf("path desc: %v", got)
		}
		for _, o := range []string{"id", "name", "path", "created_at", "updated_at", "last_activity_at"} {
			c.expect(200, "GET", "/projects?order_by="+o, alice, nil)
		}

		// simple=true: the basic entity.
		s := c.expect(200, "GET", "/projects?simple=true", alice, nil).list(t)[0]
		hasKeys(t, s, "id", "name", "path", "path_with_namespace", "web_url", "http_url_to_repo", "ssh_url_to_repo")
		lacksKeys(t, s, "visibility", "namespace", "permissions", "owner")
		// statistics=true adds statistics.
		full := c.expect(200, "GET", "/projects?statistics=true", alice, nil).list(t)[0]
		hasKeys(t, full, "statistics")

		// Pagination headers and links.
		r = c.expect(200, "GET", "/projects?per_page=2&page=2&order_by=id", alice, nil)
		if len(r.list(t)) != 2 || r.header.Get("X-Total") != "4" || r.header.Get("X-Total-Pages") != "2" ||
			r.header.Get("X-Page") != "2" || r.header.Get("X-Per-Page") != "2" || r.header.Get("X-Prev-Page") != "1" ||
			r.header.Get("X-Next-Page") != "" || !strings.Contains(r.header.Get("Link"), `rel="first"`) {
			t.Fatalf("pagination headers: %v", r.header)
		}
		if !strings.Contains(r.header.Get("Link"), "order_by=id") {
			t.Fatalf("links keep the parameters: %s", r.header.Get("Link"))
		}

		// Invalid parameters.
		c.expectBody(400, `{"error":"order_by does not have a valid value"}`, "GET", "/projects?order_by=stars", alice, nil)
		c.expectBody(400, `{"error":"sort does not have a valid value"}`, "GET", "/projects?sort=up", alice, nil)
		c.expectBody(400, `{"error":"visibility does not have a valid value"}`, "GET", "/projects?visibility=hidden", "", nil)
		c.expectBody(400, `{"error":"order_by does not have a valid value, sort does not have a valid value"}`, "GET", "/projects?order_by=x&sort=y", "", nil)
		c.expectBody(400, `{"error":"archived is invalid"}`, "GET", "/projects?archived=perhaps", "", nil)
		c.expectBody(400, `{"error":"page is invalid"}`, "GET", "/projects?page=x", "", nil)
		_, _, _ = aliceID, b2, a1
	})
}

func TestUserProjects(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		_, alice := c.user("alice")
		_, bob := c.user("bob")
		c.project(alice, "name", "a-private")
		c.project(alice, "name", "a-public", "visibility", "public")
		g := c.group("grp", "public")
		c.project(c.srv.RootToken, "name", "not personal", "namespace_id", fmt.Sprint(g), "visibility", "public")

		for _, ref := range []string{"alice", "ALICE"} {
			r := c.expect(200, "GET", "/users/"+ref+"/projects?order_by=name&sort=asc", alice, nil)
			if got := ordered(r.list(t), "name"); !same(got, "a-private", "a-public") || r.header.Get("X-Total") != "2" {
				t.Fatalf("own: %v", got)
			}
		}
		var aliceID float64
		for _, u := range c.expect(200, "GET", "/users?username=alice", c.srv.RootToken, nil).list(t) {
			aliceID = u["id"].(float64)
		}
		for _, token := range []string{bob, ""} {
			r := c.expect(200, "GET", fmt.Sprintf("/users/%d/projects", int64(aliceID)), token, nil)
			if got := ordered(r.list(t), "name"); !same(got, "a-public") || r.header.Get("X-Total") != "1" {
				t.Fatalf("others see: %v", got)
			}
		}
		r := c.expect(200, "GET", "/users/alice/projects?visibility=private", c.srv.RootToken, nil)
		if got := ordered(r.list(t), "name"); !same(got, "a-private") {
			t.Fatalf("admin filter: %v", got)
		}
		c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/nobody/projects", alice, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/projects", "", nil)
		c.expectBody(400, `{"error":"order_by does not have a valid value"}`, "GET", "/users/alice/projects?order_by=x", "", nil)
	})
}

func TestProjectUsers(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		ownerID, owner := c.user("owner")
		directID, _ := c.user("direct")
		parentID, _ := c.user("parentmember")
		childID, _ := c.user("childmember")
		sharedID, _ := c.user("sharedmember")
		_, stranger := c.user("stranger")

		personal := c.project(owner, "name", "mine")
		c.addMember("projects", id(personal), directID, 30)
		r := c.expect(200, "GET", fmt.Sprintf("/projects/%d/users", id(personal)), owner, nil)
		if got := names(r.list(t), "username"); !same(got, "direct", "owner") || r.header.Get("X-Total") != "2" {
			t.Fatalf("personal project users: %v", got)
		}
		hasKeys(t, r.list(t)[0], "id", "username", "name", "state", "avatar_url", "web_url")

		parent := c.group("parent", "private")
		child := c.expect(201, "POST", "/groups", c.srv.RootToken, form("name", "child", "path", "child", "parent_id", fmt.Sprint(parent))).object(t)
		other := c.group("other", "private")
		c.addMember("groups", parent, parentID, 20)
		c.addMember("groups", id(child), childID, 30)
		c.addMember("groups", other, sharedID, 40)
		gp := c.project(c.srv.RootToken, "name", "deep", "namespace_id", fmt.Sprint(id(child)))
		c.addMember("projects", id(gp), directID, 10)
		c.expect(201, "POST", fmt.Sprintf("/projects/%d/share", id(gp)), c.srv.RootToken, form("group_id", fmt.Sprint(other), "group_access", "20"))

		r = c.expect(200, "GET", fmt.Sprintf("/projects/%d/users", id(gp)), c.srv.RootToken, nil)
		if got := names(r.list(t), "username"); !same(got, "childmember", "direct", "parentmember", "root", "sharedmember") {
			t.Fatalf("group project users: %v", got)
		}
		r = c.expect(200, "GET", fmt.Sprintf("/projects/%d/users?search=MEMBER&per_page=2&page=2", id(gp)), c.srv.RootToken, nil)
		if r.header.Get("X-Total") != "3" || len(r.list(t)) != 1 {
			t.Fatalf("search page: %s total %s", r.body, r.header.Get("X-Total"))
		}
		c.expectBody(404, `{"message":"404 Project Not Found"}`, "GET", fmt.Sprintf("/projects/%d/users", id(gp)), stranger, nil)
		_, _ = ownerID, childID
	})
}

func TestNamespaces(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		aliceID, alice := c.user("alice")
		c.user("bob")
		g := c.group("alpha", "private")
		sub := c.expect(201, "POST", "/groups", c.srv.RootToken, form("name", "beta", "path", "beta", "parent_id", fmt.Sprint(g))).object(t)
		c.group("gamma", "public")
		c.addMember("groups", g, aliceID, 30)

		r := c.expect(200, "GET", "/namespaces", alice, nil)
		list := r.list(t)
		if got := names(list, "full_path"); !same(got, "alice", "alpha", "alpha/beta") || r.header.Get("X-Total") != "3" {
			t.Fatalf("alice's namespaces: %v", got)
		}
		for _, n := range list {
			hasKeys(t, n, "id", "name", "path", "kind", "full_path", "parent_id")
			switch n["full_path"] {
			case "alice":
				if n["kind"] != "user" || n["name"] != "ALICE" || n["parent_id"] != nil {
					t.Fatalf("personal namespace: %v", n)
				}
			case "alpha/beta":
				if n["kind"] != "group" || n["parent_id"] != float64(g) || n["id"] != float64(id(sub)) {
					t.Fatalf("subgroup: %v", n)
				}
			}
		}
		r = c.expect(200, "GET", "/namespaces?search=BET", alice, nil)
		if got := names(r.list(t), "path"); !same(got, "beta") {
			t.Fatalf("search: %v", got)
		}
		r = c.expect(200, "GET", "/namespaces?per_page=100", c.srv.RootToken, nil)
		if got := names(r.list(t), "full_path"); !same(got, "alice", "alpha", "alpha/beta", "bob", "gamma", "root") {
			t.Fatalf("admin: %v", got)
		}
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/namespaces", "", nil)
		c.expectBody(400, `{"error":"per_page is invalid"}`, "GET", "/namespaces?per_page=many", alice, nil)
		_ = url.Values{}
	})
}
