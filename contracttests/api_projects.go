package contracttests

import (
	"fmt"
	"testing"
	"time"
)

// The projects, groups and members part of the API suite.

func apiProjectsLifecycle(t *testing.T, c apiClient, _ func(time.Duration)) {
	uid, tok := newUser(c, "pat")
	_, other := newUser(c, "quill")
	p := c.expect(201, "POST", "/projects", tok, form("name", "My Cool Project", "description", "d", "visibility", "private")).object(t)
	if p["path"] != "my-cool-project" || p["path_with_namespace"] != "pat/my-cool-project" || p["visibility"] != "private" || p["import_status"] != "none" {
		t.Fatalf("created %v", p)
	}
	wantKeys(t, p, "id", "description", "default_branch", "tag_list", "ssh_url_to_repo", "http_url_to_repo", "web_url",
		"name", "name_with_namespace", "path", "path_with_namespace", "star_count", "forks_count", "created_at",
		"last_activity_at", "archived", "visibility", "owner", "namespace", "creator_id", "open_issues_count",
		"shared_with_groups", "only_allow_merge_if_pipeline_succeeds", "request_access_enabled")
	id := int64(p["id"].(float64))
	wantField(t, c.expect(400, "POST", "/projects", tok, form("name", "My Cool Project")), "name", "has already been taken")
	// By URL-encoded path, with the caller's permissions.
	got := c.expect(200, "GET", "/projects/pat%2Fmy-cool-project", tok, nil).object(t)
	if got["id"] != p["id"] || got["permissions"] == nil {
		t.Fatalf("by path %v", got)
	}
	c.expectBody(404, `{"message":"404 Project Not Found"}`, "GET", fmt.Sprintf("/projects/%d", id), other, nil)
	c.expectBody(404, `{"message":"404 Project Not Found"}`, "GET", fmt.Sprintf("/projects/%d", id), "", nil)
	c.expect(200, "PUT", fmt.Sprintf("/projects/%d", id), tok, form("description", "changed", "visibility", "public"))
	c.expect(200, "GET", fmt.Sprintf("/projects/%d", id), "", nil)
	c.expect(403, "PUT", fmt.Sprintf("/projects/%d", id), other, form("description", "x"))
	c.expect(201, "POST", fmt.Sprintf("/projects/%d/star", id), other, nil)
	c.expect(304, "POST", fmt.Sprintf("/projects/%d/star", id), other, nil)
	if s := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id), other, nil).object(t); s["star_count"] != float64(1) {
		t.Errorf("star_count %v", s["star_count"])
	}
	if l := c.expect(200, "GET", "/projects?starred=true", other, nil).list(t); len(l) != 1 {
		t.Errorf("starred list %v", l)
	}
	c.expect(201, "POST", fmt.Sprintf("/projects/%d/archive", id), tok, nil)
	if l := c.expect(200, "GET", "/projects?archived=true&owned=true", tok, nil).list(t); len(l) != 1 {
		t.Errorf("archived list %v", l)
	}
	c.expect(201, "POST", fmt.Sprintf("/projects/%d/unarchive", id), tok, nil)
	c.expect(403, "POST", fmt.Sprintf("/projects/%d/archive", id), other, nil)
	if l := c.expect(200, "GET", fmt.Sprintf("/users/%d/projects", uid), other, nil).list(t); len(l) != 1 {
		t.Errorf("user projects %v", l)
	}
	if l := c.expect(200, "GET", fmt.Sprintf("/projects/%d/events", id), tok, nil).list(t); len(l) == 0 || l[len(l)-1]["action_name"] != "created" {
		t.Errorf("project events %v", l)
	}
	c.expect(400, "GET", "/projects?order_by=colour", tok, nil)
	c.expect(202, "DELETE", fmt.Sprintf("/projects/%d", id), tok, nil)
	c.expect(404, "GET", fmt.Sprintf("/projects/%d", id), tok, nil)
}

func apiGroupsAndMembers(t *testing.T, c apiClient, _ func(time.Duration)) {
	aliceID, alice := newUser(c, "alma")
	bobID, bob := newUser(c, "bert")
	g := c.expect(201, "POST", "/groups", c.srv.RootToken, form("name", "Acme", "path", "acme", "visibility", "private")).object(t)
	gid := int64(g["id"].(float64))
	sub := c.expect(201, "POST", "/groups", c.srv.RootToken, form("name", "Tools", "path", "tools", "parent_id", fmt.Sprint(gid), "visibility", "private")).object(t)
	if sub["full_path"] != "acme/tools" || sub["full_name"] != "Acme / Tools" {
		t.Fatalf("subgroup %v", sub)
	}
	p := c.expect(201, "POST", "/projects", c.srv.RootToken, form("name", "hammer", "namespace_id", fmt.Sprint(sub["id"]))).object(t)
	pid := int64(p["id"].(float64))
	// Not a member yet: private group and project are 404s.
	c.expect(404, "GET", fmt.Sprintf("/groups/%d", gid), alice, nil)
	c.expect(404, "GET", "/projects/acme%2Ftools%2Fhammer", alice, nil)
	m := c.expect(201, "POST", fmt.Sprintf("/groups/%d/members", gid), c.srv.RootToken, form("user_id", fmt.Sprint(aliceID), "access_level", "30")).object(t)
	if m["access_level"] != float64(30) || m["username"] != "alma" {
		t.Fatalf("member %v", m)
	}
	c.expectBody(409, `{"message":"Member already exists"}`, "POST", fmt.Sprintf("/groups/%d/members", gid), c.srv.RootToken, form("user_id", fmt.Sprint(aliceID), "access_level", "30"))
	c.expect(400, "POST", fmt.Sprintf("/groups/%d/members", gid), c.srv.RootToken, form("user_id", fmt.Sprint(bobID), "access_level", "35"))
	// Inherited down to the subgroup's project.
	if got := c.expect(200, "GET", "/projects/acme%2Ftools%2Fhammer", alice, nil).object(t); got["id"] != p["id"] {
		t.Fatalf("inherited read %v", got)
	}
	c.expect(403, "POST", fmt.Sprintf("/groups/%d/members", gid), alice, form("user_id", fmt.Sprint(bobID), "access_level", "10"))
	// Project membership and sharing.
	c.expect(201, "POST", fmt.Sprintf("/projects/%d/members", pid), c.srv.RootToken, form("user_id", fmt.Sprint(bobID), "access_level", "20"))
	if l := c.expect(200, "GET", fmt.Sprintf("/projects/%d/members", pid), bob, nil).list(t); len(l) != 1 {
		t.Errorf("project members %v", l)
	}
	if l := c.expect(200, "GET", fmt.Sprintf("/projects/%d/users", pid), bob, nil).list(t); len(l) < 2 {
		t.Errorf("project users %v", l)
	}
	c.expect(200, "PUT", fmt.Sprintf("/projects/%d/members/%d", pid, bobID), c.srv.RootToken, form("access_level", "40"))
	c.expect(204, "DELETE", fmt.Sprintf("/projects/%d/members/%d", pid, bobID), c.srv.RootToken, nil)
	c.expect(404, "GET", fmt.Sprintf("/projects/%d", pid), bob, nil)
	other := c.expect(201, "POST", "/groups", c.srv.RootToken, form("name", "Partners", "path", "partners")).object(t)
	c.expect(201, "POST", fmt.Sprintf("/groups/%v/members", other["id"]), c.srv.RootToken, form("user_id", fmt.Sprint(bobID), "access_level", "50"))
	c.expect(201, "POST", fmt.Sprintf("/projects/%d/share", pid), c.srv.RootToken, form("group_id", fmt.Sprint(other["id"]), "group_access", "20"))
	c.expect(409, "POST", fmt.Sprintf("/projects/%d/share", pid), c.srv.RootToken, form("group_id", fmt.Sprint(other["id"]), "group_access", "20"))
	shared := c.expect(200, "GET", fmt.Sprintf("/projects/%d", pid), bob, nil).object(t)
	if perms, _ := shared["permissions"].(map[string]any); perms == nil {
		t.Errorf("permissions %v", shared["permissions"])
	}
	// Reporter through the share: may read, may not edit.
	c.expect(403, "PUT", fmt.Sprintf("/projects/%d", pid), bob, form("description", "x"))
	c.expect(204, "DELETE", fmt.Sprintf("/projects/%d/share/%v", pid, other["id"]), c.srv.RootToken, nil)
	c.expect(404, "GET", fmt.Sprintf("/projects/%d", pid), bob, nil)
	// Group details and lists.
	det := c.expect(200, "GET", "/groups/acme%2Ftools", alice, nil).object(t)
	if ps, _ := det["projects"].([]any); len(ps) != 1 {
		t.Errorf("group projects %v", det["projects"])
	}
	if l := c.expect(200, "GET", "/groups", alice, nil).list(t); len(l) != 1 {
		t.Errorf("alice's groups %v", l)
	}
	if l := c.expect(200, "GET", "/groups?all_available=true", alice, nil).list(t); len(l) != 2 {
		t.Errorf("alice's visible groups %v", l)
	}
	if l := c.expect(200, "GET", "/namespaces", alice, nil).list(t); len(l) < 3 {
		t.Errorf("namespaces %v", l)
	}
	// Transfer a project into the group (administrators only), then delete the group.
	mine := c.expect(201, "POST", "/projects", alice, form("name", "wrench")).object(t)
	c.expect(403, "POST", fmt.Sprintf("/groups/%d/projects/%v", gid, mine["id"]), alice, nil)
	c.expect(201, "POST", fmt.Sprintf("/groups/%d/projects/%v", gid, mine["id"]), c.srv.RootToken, nil)
	if moved := c.expect(200, "GET", fmt.Sprintf("/projects/%v", mine["id"]), alice, nil).object(t); moved["path_with_namespace"] != "acme/wrench" {
		t.Errorf("transferred %v", moved["path_with_namespace"])
	}
	c.expect(403, "DELETE", fmt.Sprintf("/groups/%d", gid), alice, nil)
	c.expect(202, "DELETE", fmt.Sprintf("/groups/%d", gid), c.srv.RootToken, nil)
	c.expect(404, "GET", fmt.Sprintf("/projects/%d", pid), c.srv.RootToken, nil)
	c.expect(404, "GET", fmt.Sprintf("/projects/%v", mine["id"]), c.srv.RootToken, nil)
	if evs := c.expect(200, "GET", "/events?action=joined", alice, nil).list(t); len(evs) < 2 {
		t.Errorf("alice's joined events %v", evs)
	}
}
