package groups_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

const (
	guest     = 10
	reporter  = 20
	developer = 30
	master    = 40
	owner     = 50
)

func TestCreateGroup(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice", "can_create_group", "true")
		_, bob := c.User("bob", "can_create_group", "false")

		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/groups", "", apptest.Form("name", "x", "path", "x"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", "/groups", bob, apptest.Form("name", "x", "path", "x"))
		c.ExpectBody(400, `{"error":"name is missing, path is missing"}`, "POST", "/groups", alice, nil)
		c.ExpectBody(400, `{"error":"visibility does not have a valid value"}`, "POST", "/groups", alice,
			apptest.Form("name", "x", "path", "x", "visibility", "secret"))
		c.ExpectBody(400, `{"message":{"path":["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."]}}`,
			"POST", "/groups", alice, apptest.Form("name", "x", "path", "-x"))
		c.ExpectBody(400, `{"message":{"path":["admin is a reserved name"]}}`, "POST", "/groups", alice, apptest.Form("name", "x", "path", "admin"))
		c.ExpectBody(400, `{"message":{"name":["can contain only letters, digits, '_', '.', dash and space."]}}`,
			"POST", "/groups", alice, apptest.Form("name", "a/b", "path", "ab"))

		// Defaults: private, LFS on, access requests off; the creator owns it.
		g := c.Group(alice, "name", "Top", "path", "top", "description", "the top")
		want := map[string]any{"name": "Top", "path": "top", "description": "the top", "visibility": "private",
			"lfs_enabled": true, "avatar_url": nil, "web_url": c.Srv.Config.ExternalURL + "/groups/top",
			"request_access_enabled": false, "full_name": "Top", "full_path": "top", "parent_id": nil}
		for k, v := range want {
			if g[k] != v {
				t.Errorf("%s = %v, want %v", k, g[k], v)
			}
		}
		apptest.HasKeys(t, g, "id", "projects", "shared_projects")
		apptest.LacksKeys(t, g, "statistics")
		if len(g["projects"].([]any)) != 0 || len(g["shared_projects"].([]any)) != 0 {
			t.Errorf("new group has projects: %v", g)
		}
		members := c.Expect(200, "GET", fmt.Sprintf("/groups/%d/members", apptest.ID(g)), alice, nil).List(t)
		if len(members) != 1 || apptest.ID(members[0]) != aliceID || members[0]["access_level"] != float64(owner) {
			t.Fatalf("members of a new group: %v", members)
		}

		// Taken path (case-insensitively) and taken name among siblings.
		c.ExpectBody(400, `{"message":{"path":["has already been taken"]}}`, "POST", "/groups", alice, apptest.Form("name", "Other", "path", "TOP"))
		c.ExpectBody(400, `{"message":{"name":["has already been taken"]}}`, "POST", "/groups", alice, apptest.Form("name", "Top", "path", "top2"))

		// JSON bodies work as forms do.
		j := c.Expect(201, "POST", "/groups", root, map[string]any{"name": "Json", "path": "json", "visibility": "public",
			"lfs_enabled": false, "request_access_enabled": true}).Object(t)
		if j["visibility"] != "public" || j["lfs_enabled"] != false || j["request_access_enabled"] != true {
			t.Errorf("json create: %v", j)
		}
	})
}

func TestNestedGroups(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		_, alice := c.User("alice", "can_create_group", "false")
		bobID, bob := c.User("bob")
		_, carol := c.User("carol")

		top := c.Group(root, "name", "Top", "path", "top", "visibility", "internal")
		topID := fmt.Sprint(apptest.ID(top))
		// Group creation for subgroups needs ownership of the parent, not can_create_group.
		c.AddMember("groups", apptest.ID(top), bobID, developer)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", "/groups", bob, apptest.Form("name", "Sub", "path", "sub", "parent_id", topID))
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "POST", "/groups", bob, apptest.Form("name", "Sub", "path", "sub", "parent_id", "999999"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", "/groups", alice, apptest.Form("name", "Sub", "path", "sub", "parent_id", topID))

		c.ExpectBody(400, `{"message":{"visibility_level":["public is not allowed since the parent group has a internal visibility."]}}`,
			"POST", "/groups", root, apptest.Form("name", "Sub", "path", "sub", "parent_id", topID, "visibility", "public"))
		sub := c.Group(root, "name", "Sub", "path", "sub", "parent_id", topID, "visibility", "internal")
		if sub["full_path"] != "top/sub" || sub["full_name"] != "Top / Sub" || sub["parent_id"] != float64(apptest.ID(top)) {
			t.Fatalf("subgroup: %v", sub)
		}
		leaf := c.Group(root, "name", "Leaf", "path", "leaf", "parent_id", fmt.Sprint(apptest.ID(sub)))
		if leaf["full_path"] != "top/sub/leaf" || leaf["full_name"] != "Top / Sub / Leaf" || leaf["visibility"] != "private" {
			t.Fatalf("leaf: %v", leaf)
		}
		// The same path under another parent is fine; a sibling's is not.
		c.Group(root, "name", "Sub", "path", "sub")
		c.ExpectBody(400, `{"message":{"path":["has already been taken"]}}`, "POST", "/groups", root,
			apptest.Form("name", "Sub2", "path", "sub", "parent_id", topID))

		// By URL-encoded full path; the owner of the top group owns below.
		byPath := c.Expect(200, "GET", "/groups/"+url.PathEscape("top/sub/leaf"), root, nil).Object(t)
		if apptest.ID(byPath) != apptest.ID(leaf) {
			t.Fatalf("by path: %v", byPath)
		}
		c.Expect(404, "GET", "/groups/"+url.PathEscape("top/sub/leaf"), carol, nil)
		c.Expect(200, "GET", "/groups/"+url.PathEscape("top/sub/leaf"), bob, nil)

		// An owner of the parent may create below it.
		c.Expect(200, "PUT", fmt.Sprintf("/groups/%d/members/%d", apptest.ID(top), bobID), root, apptest.Form("access_level", "50"))
		c.Expect(403, "DELETE", fmt.Sprintf("/groups/%d/members/%d", apptest.ID(top), bobID), carol, nil)
		made := c.Group(bob, "name", "Bobs", "path", "bobs", "parent_id", topID)
		if made["full_path"] != "top/bobs" {
			t.Fatalf("bob's subgroup: %v", made)
		}

		// The list shows full names and paths of nested groups.
		l := c.Expect(200, "GET", "/groups?search=leaf", root, nil).List(t)
		if len(l) != 1 || l[0]["full_name"] != "Top / Sub / Leaf" || l[0]["full_path"] != "top/sub/leaf" {
			t.Fatalf("search leaf: %v", l)
		}
	})
}

func TestListGroups(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice")
		_, bob := c.User("bob")
		_, external := c.User("ext", "external", "true")

		pub := c.Group(root, "name", "Alpha Public", "path", "zeta-pub", "visibility", "public")
		internal := c.Group(root, "name", "Beta Internal", "path", "yeti-int", "visibility", "internal")
		priv := c.Group(root, "name", "Gamma Private", "path", "xeno-priv", "visibility", "private")
		c.AddMember("groups", apptest.ID(priv), aliceID, guest)

		check := func(path, token string, want ...string) apptest.Reply {
			t.Helper()
			r := c.Expect(200, "GET", path, token, nil)
			got := apptest.Ordered(r.List(t), "path")
			if !same(got, want...) {
				t.Fatalf("GET %s: %v, want %v", path, got, want)
			}
			if r.Header.Get("X-Total") != fmt.Sprint(len(want)) {
				t.Fatalf("GET %s: X-Total %q, want %d", path, r.Header.Get("X-Total"), len(want))
			}
			return r
		}
		// Default order: name ascending.
		check("/groups", "", "zeta-pub")
		check("/groups?all_available=true", "", "zeta-pub")
		check("/groups", alice, "xeno-priv")
		check("/groups?all_available=true", alice, "zeta-pub", "yeti-int", "xeno-priv")
		check("/groups", bob)
		check("/groups?all_available=true", bob, "zeta-pub", "yeti-int")
		check("/groups?all_available=1", external, "zeta-pub")
		check("/groups", root, "zeta-pub", "yeti-int", "xeno-priv")

		check("/groups?order_by=path", root, "xeno-priv", "yeti-int", "zeta-pub")
		check("/groups?order_by=path&sort=desc", root, "zeta-pub", "yeti-int", "xeno-priv")
		check("/groups?sort=desc", root, "xeno-priv", "yeti-int", "zeta-pub")
		check("/groups?search=beta", root, "yeti-int")
		check("/groups?search=XENO", root, "xeno-priv")
		check("/groups?search=gamma", bob)
		check(fmt.Sprintf("/groups?skip_groups[]=%d&skip_groups[]=%d", apptest.ID(pub), apptest.ID(internal)), root, "xeno-priv")
		check("/groups?owned=true", root, "zeta-pub", "yeti-int", "xeno-priv")
		check("/groups?owned=true", alice)
		check("/groups?owned=true&all_available=true", alice)

		c.ExpectBody(400, `{"error":"order_by does not have a valid value"}`, "GET", "/groups?order_by=id", root, nil)
		c.ExpectBody(400, `{"error":"sort does not have a valid value"}`, "GET", "/groups?sort=up", root, nil)
		c.ExpectBody(400, `{"error":"skip_groups is invalid"}`, "GET", "/groups?skip_groups[]=x", root, nil)

		// Pagination.
		r := c.Expect(200, "GET", "/groups?per_page=1&page=2", root, nil)
		if got := apptest.Ordered(r.List(t), "path"); !same(got, "yeti-int") {
			t.Fatalf("page 2: %v", got)
		}
		if r.Header.Get("X-Total") != "3" || r.Header.Get("X-Total-Pages") != "3" || r.Header.Get("X-Next-Page") != "3" || r.Header.Get("X-Prev-Page") != "1" {
			t.Fatalf("pagination headers: %v", r.Header)
		}

		// Statistics: administrators only; silently left out for others.
		stats := c.Expect(200, "GET", "/groups?statistics=true", root, nil).List(t)
		for _, g := range stats {
			apptest.HasKeys(t, g["statistics"].(map[string]any), "storage_size", "repository_size", "lfs_objects_size", "job_artifacts_size")
		}
		for _, g := range c.Expect(200, "GET", "/groups?statistics=true&all_available=true", alice, nil).List(t) {
			apptest.LacksKeys(t, g, "statistics")
		}
		// The entity.
		g := c.Expect(200, "GET", "/groups?search=alpha", "", nil).List(t)[0]
		apptest.HasKeys(t, g, "id", "name", "path", "description", "visibility", "lfs_enabled", "avatar_url", "web_url",
			"request_access_enabled", "full_name", "full_path", "parent_id")
		apptest.LacksKeys(t, g, "projects", "shared_projects", "statistics")
	})
}

func TestGroupDetailAndProjects(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice")
		_, bob := c.User("bob")

		g := c.Group(root, "name", "Pub", "path", "pub", "visibility", "public")
		gid := apptest.ID(g)
		project(c, root, gid, "open", "public")
		privP := project(c, root, gid, "closed", "private")
		project(c, root, gid, "inner", "internal")
		c.AddMember("projects", apptest.ID(privP), aliceID, reporter)

		projectsOf := func(token string) []string {
			t.Helper()
			d := c.Expect(200, "GET", fmt.Sprintf("/groups/%d", gid), token, nil).Object(t)
			var out []string
			for _, p := range d["projects"].([]any) {
				out = append(out, p.(map[string]any)["path"].(string))
			}
			return out
		}
		if got := projectsOf(""); !same(got, "open") {
			t.Fatalf("anonymous sees %v", got)
		}
		if got := projectsOf(bob); !same(got, "open", "inner") {
			t.Fatalf("bob sees %v", got)
		}
		if got := projectsOf(alice); !same(got, "open", "closed", "inner") {
			t.Fatalf("alice sees %v", got)
		}
		d := c.Expect(200, "GET", "/groups/pub", root, nil).Object(t)
		p0 := d["projects"].([]any)[0].(map[string]any)
		apptest.HasKeys(t, p0, "id", "name", "path_with_namespace", "namespace", "http_url_to_repo", "shared_with_groups")
		if p0["path_with_namespace"] != "pub/open" {
			t.Fatalf("embedded project: %v", p0)
		}

		// GET /groups/:id/projects: readable projects only, GitLab's filters.
		list := func(path, token string, want ...string) []map[string]any {
			t.Helper()
			r := c.Expect(200, "GET", path, token, nil)
			l := r.List(t)
			if got := apptest.Ordered(l, "path"); !same(got, want...) {
				t.Fatalf("GET %s: %v, want %v", path, got, want)
			}
			if r.Header.Get("X-Total") != fmt.Sprint(len(want)) {
				t.Fatalf("GET %s: X-Total %s, want %d", path, r.Header.Get("X-Total"), len(want))
			}
			return l
		}
		base := fmt.Sprintf("/groups/%d/projects", gid)
		// Default: created_at descending.
		list(base, "", "open")
		list(base, bob, "inner", "open")
		list(base, alice, "inner", "closed", "open")
		list(base+"?order_by=name&sort=asc", alice, "closed", "inner", "open")
		list(base+"?order_by=path&sort=desc", alice, "open", "inner", "closed")
		list(base+"?visibility=private", alice, "closed")
		list(base+"?visibility=private", bob)
		list(base+"?search=clo", alice, "closed")
		list(base+"?search=clo", bob)
		list(base+"?owned=true", root, "inner", "closed", "open")
		list(base+"?owned=true", alice)
		simple := list(base+"?simple=true", "", "open")
		apptest.LacksKeys(t, simple[0], "visibility", "namespace", "issues_enabled")
		apptest.HasKeys(t, simple[0], "id", "name", "path", "path_with_namespace", "web_url")
		stats := list(base+"?statistics=true", "", "open")
		apptest.HasKeys(t, stats[0]["statistics"].(map[string]any), "commit_count", "storage_size", "repository_size")
		r := c.Expect(200, "GET", base+"?per_page=1&order_by=name&sort=asc", alice, nil)
		if got := apptest.Ordered(r.List(t), "path"); !same(got, "closed") || r.Header.Get("X-Total") != "3" || r.Header.Get("X-Total-Pages") != "3" {
			t.Fatalf("paged group projects: %v %v", got, r.Header)
		}
		c.ExpectBody(400, `{"error":"order_by does not have a valid value"}`, "GET", base+"?order_by=stars", root, nil)
		c.ExpectBody(400, `{"error":"visibility does not have a valid value"}`, "GET", base+"?visibility=secret", root, nil)
		c.ExpectBody(400, `{"error":"sort does not have a valid value"}`, "GET", base+"?sort=up", root, nil)
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "GET", "/groups/999999/projects", root, nil)

		// Archived projects are left out unless asked for; starred keeps the caller's stars.
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/archive", apptest.ID(privP)), root, nil)
		list(base, alice, "inner", "open")
		list(base+"?archived=false", alice, "inner", "open")
		list(base+"?archived=true", alice, "closed")
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/unarchive", apptest.ID(privP)), root, nil)
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/star", apptest.ID(privP)), alice, nil)
		list(base+"?starred=true", alice, "closed")
		list(base+"?starred=true", bob)
		list(base+"?starred=true", "")

		// shared_projects: projects shared with the group, readable by the caller.
		team := c.Group(root, "name", "Team", "path", "team", "visibility", "public")
		other := c.Group(root, "name", "Other", "path", "other", "visibility", "public")
		sharedPriv := project(c, root, apptest.ID(other), "sp", "private")
		sharedPub := project(c, root, apptest.ID(other), "pp", "public")
		for _, p := range []map[string]any{sharedPriv, sharedPub} {
			c.Expect(201, "POST", fmt.Sprintf("/projects/%d/share", apptest.ID(p)), root,
				apptest.Form("group_id", fmt.Sprint(apptest.ID(team)), "group_access", "20"))
		}
		sharedOf := func(token string) []string {
			t.Helper()
			d := c.Expect(200, "GET", fmt.Sprintf("/groups/%d", apptest.ID(team)), token, nil).Object(t)
			var out []string
			for _, p := range d["shared_projects"].([]any) {
				out = append(out, p.(map[string]any)["path_with_namespace"].(string))
			}
			if len(d["projects"].([]any)) != 0 {
				t.Fatalf("team has its own projects: %v", d["projects"])
			}
			return out
		}
		if got := sharedOf(""); !same(got, "other/pp") {
			t.Fatalf("anonymous shared projects: %v", got)
		}
		if got := sharedOf(root); !same(got, "other/sp", "other/pp") {
			t.Fatalf("admin shared projects: %v", got)
		}
		// Members of the group read what is shared with it.
		c.AddMember("groups", apptest.ID(team), aliceID, guest)
		if got := sharedOf(alice); !same(got, "other/sp", "other/pp") {
			t.Fatalf("member's shared projects: %v", got)
		}

		// A private group is a 404 for those who may not see it, for every read.
		priv := c.Group(root, "name", "Priv", "path", "priv")
		for _, tok := range []string{"", bob} {
			c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "GET", fmt.Sprintf("/groups/%d", apptest.ID(priv)), tok, nil)
			c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "GET", "/groups/priv", tok, nil)
			c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "GET", fmt.Sprintf("/groups/%d/projects", apptest.ID(priv)), tok, nil)
		}
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "GET", "/groups/999999", root, nil)
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "GET", "/groups/no%2Fsuch", root, nil)
		// A member of a project inside a private group may see the group,
		// and only the projects they may read.
		inPriv := project(c, root, apptest.ID(priv), "secret", "private")
		project(c, root, apptest.ID(priv), "hidden", "private")
		c.AddMember("projects", apptest.ID(inPriv), aliceID, guest)
		if got := projectsOfGroup(c, apptest.ID(priv), alice); !same(got, "secret") {
			t.Fatalf("alice in priv sees %v", got)
		}
	})
}

func projectsOfGroup(c *apptest.Client, gid int64, token string) []string {
	c.T.Helper()
	d := c.Expect(200, "GET", fmt.Sprintf("/groups/%d", gid), token, nil).Object(c.T)
	var out []string
	for _, p := range d["projects"].([]any) {
		out = append(out, p.(map[string]any)["path"].(string))
	}
	return out
}

func TestUpdateGroup(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice")
		bobID, bob := c.User("bob")
		_, carol := c.User("carol")

		top := c.Group(root, "name", "Top", "path", "top", "visibility", "public")
		c.AddMember("groups", apptest.ID(top), aliceID, owner)
		c.AddMember("groups", apptest.ID(top), bobID, developer)
		sub := c.Group(root, "name", "Sub", "path", "sub", "parent_id", fmt.Sprint(apptest.ID(top)), "visibility", "internal")
		p := project(c, root, apptest.ID(sub), "proj", "internal")
		c.Group(root, "name", "Other", "path", "other")
		u := fmt.Sprintf("/groups/%d", apptest.ID(top))

		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "PUT", u, "", apptest.Form("name", "X"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", u, bob, apptest.Form("name", "X"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", u, carol, apptest.Form("name", "X"))
		priv := c.Group(root, "name", "Priv", "path", "priv")
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "PUT", fmt.Sprintf("/groups/%d", apptest.ID(priv)), carol, apptest.Form("name", "X"))
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "PUT", "/groups/999999", root, apptest.Form("name", "X"))

		c.ExpectBody(400, `{"error":"visibility does not have a valid value"}`, "PUT", u, alice, apptest.Form("visibility", "x"))
		c.ExpectBody(400, `{"message":{"path":["has already been taken"]}}`, "PUT", u, alice, apptest.Form("path", "other"))
		c.ExpectBody(400, `{"message":{"name":["has already been taken"]}}`, "PUT", u, alice, apptest.Form("name", "Other"))
		c.ExpectBody(400, `{"message":{"visibility_level":["private is not allowed since there are sub-groups with higher visibility."]}}`,
			"PUT", u, alice, apptest.Form("visibility", "private"))
		c.ExpectBody(400, `{"message":{"visibility_level":["private is not allowed since this group contains projects with higher visibility."]}}`,
			"PUT", fmt.Sprintf("/groups/%d", apptest.ID(sub)), alice, apptest.Form("visibility", "private"))
		psub := c.Group(root, "name", "PSub", "path", "psub", "parent_id", fmt.Sprint(apptest.ID(priv)))
		c.ExpectBody(400, `{"message":{"visibility_level":["internal is not allowed since the parent group has a private visibility."]}}`,
			"PUT", fmt.Sprintf("/groups/%d", apptest.ID(psub)), root, apptest.Form("visibility", "internal", "name", "PSub"))

		// An owner renames and moves the path; descendants follow.
		got := c.Expect(200, "PUT", u, alice, apptest.Form("name", "Renamed", "path", "renamed", "description", "d",
			"lfs_enabled", "false", "request_access_enabled", "true")).Object(t)
		for k, v := range map[string]any{"name": "Renamed", "path": "renamed", "full_path": "renamed", "full_name": "Renamed",
			"description": "d", "lfs_enabled": false, "request_access_enabled": true, "visibility": "public"} {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
		apptest.HasKeys(t, got, "projects", "shared_projects")
		s := c.Expect(200, "GET", fmt.Sprintf("/groups/%d", apptest.ID(sub)), root, nil).Object(t)
		if s["full_path"] != "renamed/sub" || s["full_name"] != "Renamed / Sub" {
			t.Fatalf("subgroup after rename: %v", s)
		}
		pr := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(p)), root, nil).Object(t)
		if pr["path_with_namespace"] != "renamed/sub/proj" {
			t.Fatalf("project after rename: %v", pr["path_with_namespace"])
		}
		c.Expect(200, "GET", "/groups/"+url.PathEscape("renamed/sub"), root, nil)
		c.Expect(404, "GET", "/groups/"+url.PathEscape("top/sub"), root, nil)

		// Administrators may update any group; JSON bodies work.
		got = c.Expect(200, "PUT", fmt.Sprintf("/groups/%d", apptest.ID(priv)), root, map[string]any{"visibility": "internal"}).Object(t)
		if got["visibility"] != "internal" {
			t.Fatalf("admin update: %v", got)
		}
		// A subgroup's owner through the parent may update it.
		c.Expect(200, "PUT", fmt.Sprintf("/groups/%d", apptest.ID(sub)), alice, apptest.Form("description", "by inherited owner"))
	})
}

func TestDeleteGroup(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice")
		bobID, bob := c.User("bob")
		_, carol := c.User("carol")

		top := c.Group(root, "name", "Top", "path", "top")
		c.AddMember("groups", apptest.ID(top), aliceID, owner)
		c.AddMember("groups", apptest.ID(top), bobID, master)
		sub := c.Group(root, "name", "Sub", "path", "sub", "parent_id", fmt.Sprint(apptest.ID(top)))
		p1 := project(c, root, apptest.ID(top), "one", "private")
		p2 := project(c, root, apptest.ID(sub), "two", "private")
		other := c.Group(root, "name", "Other", "path", "other")
		p3 := project(c, root, apptest.ID(other), "three", "private")

		u := fmt.Sprintf("/groups/%d", apptest.ID(top))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "DELETE", u, "", nil)
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "DELETE", u, carol, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", u, bob, nil)
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "DELETE", "/groups/999999", root, nil)

		for _, p := range []map[string]any{p1, p2, p3} {
			if !repoExists(t, c, apptest.ID(p)) {
				t.Fatalf("repository of project %d missing before delete", apptest.ID(p))
			}
		}
		c.ExpectBody(202, `{"message":"202 Accepted"}`, "DELETE", "/groups/top", alice, nil)
		c.Expect(404, "GET", u, root, nil)
		c.Expect(404, "GET", fmt.Sprintf("/groups/%d", apptest.ID(sub)), root, nil)
		for _, p := range []map[string]any{p1, p2} {
			c.Expect(404, "GET", fmt.Sprintf("/projects/%d", apptest.ID(p)), root, nil)
			if repoExists(t, c, apptest.ID(p)) {
				t.Errorf("repository of project %d still there", apptest.ID(p))
			}
		}
		c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(p3)), root, nil)
		if !repoExists(t, c, apptest.ID(p3)) {
			t.Errorf("repository of an unrelated project went")
		}
		// Memberships went with the group.
		if l := c.Expect(200, "GET", "/groups", alice, nil).List(t); len(l) != 0 {
			t.Fatalf("alice still in %v", l)
		}
		// The path is free again.
		c.Group(root, "name", "Top", "path", "top")
		c.Expect(404, "DELETE", u, root, nil)
	})
}

// repoExists reports whether a project's repository is on disk.
func repoExists(t *testing.T, c *apptest.Client, projectID int64) bool {
	t.Helper()
	rootDir := c.Srv.Config.Git.Root
	if rootDir == "" {
		rootDir = filepath.Join(c.Srv.Config.DataDir, "repositories")
	}
	_, err := os.Stat(filepath.Join(rootDir, "projects", fmt.Sprintf("%d.git", projectID)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

func TestTransferProject(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		aliceID, alice := c.User("alice")

		g := c.Group(root, "name", "Dest", "path", "dest", "visibility", "internal")
		c.AddMember("groups", apptest.ID(g), aliceID, owner)
		personal := c.Expect(201, "POST", "/projects", alice, apptest.Form("name", "mine", "visibility", "public")).Object(t)
		pid := apptest.ID(personal)
		u := fmt.Sprintf("/groups/%d/projects/%d", apptest.ID(g), pid)

		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", u, "", nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", u, alice, nil)
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "POST", fmt.Sprintf("/groups/999999/projects/%d", pid), root, nil)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", fmt.Sprintf("/groups/%d/projects/999999", apptest.ID(g)), root, nil)

		// By path; the public project takes the internal group's visibility.
		got := c.Expect(201, "POST", fmt.Sprintf("/groups/%d/projects/%s", apptest.ID(g), url.PathEscape("alice/mine")), root, nil).Object(t)
		if apptest.ID(got) != apptest.ID(g) {
			t.Fatalf("transfer answers the group: %v", got)
		}
		ps := got["projects"].([]any)
		if len(ps) != 1 || ps[0].(map[string]any)["path_with_namespace"] != "dest/mine" {
			t.Fatalf("group projects after transfer: %v", ps)
		}
		p := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", pid), root, nil).Object(t)
		if p["visibility"] != "internal" || p["namespace"].(map[string]any)["id"] != float64(apptest.ID(g)) {
			t.Fatalf("project after transfer: %v %v", p["visibility"], p["namespace"])
		}
		c.Expect(200, "GET", "/projects/"+url.PathEscape("dest/mine"), alice, nil)

		// Again into the same group; then a clash of paths.
		c.ExpectBody(400, `{"message":{"new_namespace":["is invalid"]}}`, "POST", u, root, nil)
		other := c.Expect(201, "POST", "/projects", alice, apptest.Form("name", "mine", "visibility", "private")).Object(t)
		c.ExpectBody(400, `{"message":{"new_namespace":["Project with same name or path in target namespace already exists"]}}`,
			"POST", fmt.Sprintf("/groups/%d/projects/%d", apptest.ID(g), apptest.ID(other)), root, nil)
		c.Expect(200, "GET", "/projects/"+url.PathEscape("alice/mine"), alice, nil)
	})
}
