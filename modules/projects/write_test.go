package projects_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// roles makes a group project with a member at each level and returns the
// project and the members' tokens by level.
func (c client) roles(prefix string) (map[string]any, map[int]string) {
	c.t.Helper()
	g := c.group(prefix+"-grp", "private")
	p := c.project(c.srv.RootToken, "name", prefix, "namespace_id", fmt.Sprint(g))
	tokens := map[int]string{}
	for _, level := range []int{10, 20, 30, 40} {
		uid, tok := c.user(fmt.Sprintf("%s-l%d", prefix, level))
		c.addMember("projects", id(p), uid, level)
		tokens[level] = tok
	}
	uid, tok := c.user(prefix + "-owner")
	c.addMember("groups", g, uid, 50)
	tokens[50] = tok
	return p, tokens
}

func TestUpdateProject(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		p, tok := c.roles("upd")
		_, stranger := c.user("stranger")
		path := fmt.Sprintf("/projects/%d", id(p))
		before := c.expect(200, "GET", path, tok[40], nil).object(t)
		time.Sleep(5 * time.Millisecond)

		// Masters change settings.
		out := c.expect(200, "PUT", path, tok[40], form("description", "new words", "issues_enabled", "false",
			"tag_list[]", "x", "tag_list[]", "y", "ci_config_path", "ci.yml", "only_allow_merge_if_pipeline_succeeds", "true")).object(t)
		if out["description"] != "new words" || out["issues_enabled"] != false || fmt.Sprint(out["tag_list"]) != "[x y]" ||
			out["ci_config_path"] != "ci.yml" || out["only_allow_merge_if_pipeline_succeeds"] != true {
			t.Fatalf("update: %v", out)
		}
		if out["last_activity_at"] == before["last_activity_at"] {
			t.Fatalf("last_activity_at did not move: %v", out["last_activity_at"])
		}
		// Renaming, moving the path and the visibility are owners'.
		forbidden := `{"message":"403 Forbidden"}`
		c.expectBody(403, forbidden, "PUT", path, tok[40], form("name", "renamed"))
		c.expectBody(403, forbidden, "PUT", path, tok[40], form("visibility", "private"))
		c.expectBody(403, forbidden, "PUT", path, tok[40], form("path", "moved"))
		c.expect(200, "PUT", path, tok[40], form("path", "upd")) // unchanged path
		out = c.expect(200, "PUT", path, tok[50], form("name", "Renamed", "path", "moved", "visibility", "private")).object(t)
		if out["name"] != "Renamed" || out["path"] != "moved" || out["path_with_namespace"] != "upd-grp/moved" || out["visibility"] != "private" {
			t.Fatalf("owner update: %v", out)
		}
		c.expect(200, "GET", "/projects/upd-grp%2Fmoved", tok[50], nil)
		// Lower levels may not change settings; strangers do not see it;
		// anonymous callers must sign in.
		for _, level := range []int{10, 20, 30} {
			c.expectBody(403, forbidden, "PUT", path, tok[level], form("description", "x"))
		}
		c.expectBody(404, `{"message":"404 Project Not Found"}`, "PUT", path, stranger, form("description", "x"))
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "PUT", path, "", form("description", "x"))
		// Validation.
		c.expectBody(400, `{"error":"jobs_enabled, container_registry_enabled, default_branch, description, issues_enabled, lfs_enabled, merge_requests_enabled, name, only_allow_merge_if_all_discussions_are_resolved, only_allow_merge_if_pipeline_succeeds, path, public_jobs, request_access_enabled, shared_runners_enabled, snippets_enabled, visibility, wiki_enabled, tag_list, import_url, ci_config_path, avatar are missing, at least one parameter must be provided"}`,
			"PUT", path, tok[40], nil)
		c.expectBody(400, `{"error":"visibility does not have a valid value"}`, "PUT", path, tok[50], form("visibility", "x"))
		c.expectBody(400, `{"message":{"visibility_level":["public is not allowed in a private group."]}}`, "PUT", path, tok[50], form("visibility", "public"))
		c.expectBody(400, `{"message":{"name":["can't be blank"]}}`, "PUT", path, tok[50], form("name", ""))
		c.expectBody(400, `{"message":{"path":["can't be blank"]}}`, "PUT", path, tok[50], form("path", ""))
		c.project(c.srv.RootToken, "name", "taken", "namespace_id", fmt.Sprint(int64(out["namespace"].(map[string]any)["id"].(float64))))
		c.expectBody(400, `{"message":{"name":["has already been taken"]}}`, "PUT", path, tok[50], form("name", "TAKEN"))
		c.expectBody(400, `{"message":{"path":["has already been taken"]}}`, "PUT", path, tok[50], form("path", "taken"))
		// The default branch must exist.
		c.expectBody(400, `{"message":{"base":["Could not change HEAD: branch 'develop' does not exist"]}}`, "PUT", path, tok[40], form("default_branch", "develop"))
		c.expectBody(400, `{"message":{"default_branch":["is invalid"]}}`, "PUT", path, tok[40], form("default_branch", "a..b"))
		pushCommits(t, c.repoDir(id(p)), "develop", 1)
		out = c.expect(200, "PUT", path, tok[40], form("default_branch", "develop")).object(t)
		if out["default_branch"] != "develop" {
			t.Fatalf("default_branch: %v", out["default_branch"])
		}
		if head, err := os.ReadFile(filepath.Join(c.repoDir(id(p)), "HEAD")); err != nil || string(head) != "ref: refs/heads/develop\n" {
			t.Fatalf("HEAD after changing the default branch: %q, %v", head, err)
		}
		// JSON bodies.
		out = c.expect(200, "PUT", path, tok[40], map[string]any{"wiki_enabled": false, "tag_list": []string{}}).object(t)
		if out["wiki_enabled"] != false || fmt.Sprint(out["tag_list"]) != "[]" {
			t.Fatalf("json update: %v", out)
		}
	})
}

func TestDeleteProject(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		p, tok := c.roles("del")
		path := fmt.Sprintf("/projects/%d", id(p))
		repo := c.repoDir(id(p))
		if !exists(repo) {
			t.Fatalf("no repository at %s", repo)
		}
		for _, level := range []int{10, 20, 30, 40} {
			c.expectBody(403, `{"message":"403 Forbidden"}`, "DELETE", path, tok[level], nil)
		}
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "DELETE", path, "", nil)
		// A fork of it survives, no longer a fork.
		fork := c.expect(201, "POST", path+"/fork", tok[20], nil).object(t)
		c.waitImport(tok[20], id(fork))

		c.expectBody(202, `{"message":"202 Accepted"}`, "DELETE", path, tok[50], nil)
		c.expectBody(404, `{"message":"404 Project Not Found"}`, "GET", path, c.srv.RootToken, nil)
		c.expectBody(404, `{"message":"404 Project Not Found"}`, "DELETE", path, c.srv.RootToken, nil)
		if exists(repo) {
			t.Fatalf("repository %s still there", repo)
		}
		f := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(fork)), tok[20], nil).object(t)
		lacksKeys(t, f, "forked_from_project")
		if !exists(c.repoDir(id(fork))) {
			t.Fatalf("the fork's repository went too")
		}
		// Deleting a fork counts one fork less on its source; admins delete anything.
		_, alice := c.user("alice")
		src := c.project(alice, "name", "src", "visibility", "public")
		f2 := c.expect(201, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), tok[10], nil).object(t)
		c.waitImport(tok[10], id(f2))
		if got := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(src)), alice, nil).object(t)["forks_count"]; got != float64(1) {
			t.Fatalf("forks_count %v", got)
		}
		c.expect(202, "DELETE", fmt.Sprintf("/projects/%d", id(f2)), c.srv.RootToken, nil)
		if got := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(src)), alice, nil).object(t)["forks_count"]; got != float64(0) {
			t.Fatalf("forks_count after deleting the fork %v", got)
		}
		// The projects list no longer has it.
		for _, q := range c.expect(200, "GET", "/projects?per_page=100", c.srv.RootToken, nil).list(t) {
			if id(q) == id(p) {
				t.Fatalf("deleted project listed")
			}
		}
	})
}

func TestStarAndArchive(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		p, tok := c.roles("toggle")
		path := fmt.Sprintf("/projects/%d", id(p))
		_, stranger := c.user("stranger")

		s := c.expect(201, "POST", path+"/star", tok[10], nil).object(t)
		if s["star_count"] != float64(1) || id(s) != id(p) {
			t.Fatalf("star: %v", s["star_count"])
		}
		r := c.expect(304, "POST", path+"/star", tok[10], nil)
		if len(r.body) != 0 {
			t.Fatalf("304 with a body: %s", r.body)
		}
		if s = c.expect(201, "POST", path+"/unstar", tok[10], nil).object(t); s["star_count"] != float64(0) {
			t.Fatalf("unstar: %v", s["star_count"])
		}
		c.expect(304, "POST", path+"/unstar", tok[10], nil)
		c.expectBody(404, `{"message":"404 Project Not Found"}`, "POST", path+"/star", stranger, nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", path+"/star", "", nil)

		// Archive: owners and administrators, idempotent, 201 with the project.
		for _, level := range []int{10, 20, 30, 40} {
			c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", path+"/archive", tok[level], nil)
		}
		for i := 0; i < 2; i++ {
			if a := c.expect(201, "POST", path+"/archive", tok[50], nil).object(t); a["archived"] != true {
				t.Fatalf("archive: %v", a["archived"])
			}
		}
		for i := 0; i < 2; i++ {
			if a := c.expect(201, "POST", path+"/unarchive", c.srv.RootToken, nil).object(t); a["archived"] != false {
				t.Fatalf("unarchive: %v", a["archived"])
			}
		}
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", path+"/archive", "", nil)

		// Concurrent stars by many users count exactly.
		pub := c.project(c.srv.RootToken, "name", "popular", "visibility", "public")
		const n = 50
		tokens := make([]string, n)
		for i := range tokens {
			_, tokens[i] = c.user(fmt.Sprintf("fan%d", i))
		}
		var wg sync.WaitGroup
		for _, tk := range tokens {
			wg.Add(1)
			go func(tk string) {
				defer wg.Done()
				if r := c.send("POST", fmt.Sprintf("/projects/%d/star", id(pub)), tk, nil); r.status != 201 {
					t.Errorf("star: %d %s", r.status, r.body)
				}
			}(tk)
		}
		wg.Wait()
		if got := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(pub)), "", nil).object(t)["star_count"]; got != float64(n) {
			t.Fatalf("star_count %v, want %d", got, n)
		}
	})
}

func TestShareProject(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		p, tok := c.roles("shr")
		path := fmt.Sprintf("/projects/%d/share", id(p))
		guests := c.group("guests", "public")
		hidden := c.group("hidden", "private")
		readerID, reader := c.user("reader")
		c.addMember("groups", guests, readerID, 10)

		// Non-members of the project cannot see it until it is shared.
		c.expect(404, "GET", fmt.Sprintf("/projects/%d", id(p)), reader, nil)
		c.expectBody(201, fmt.Sprintf(`{"id":null,"project_id":%d,"group_id":%d,"group_access":30,"expires_at":"2099-01-02"}`, id(p), guests),
			"POST", path, tok[40], form("group_id", fmt.Sprint(guests), "group_access", "30", "expires_at", "2099-01-02"))
		pr := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(p)), reader, nil).object(t)
		sw := pr["shared_with_groups"].([]any)
		if len(sw) != 1 || sw[0].(map[string]any)["group_access_level"] != float64(30) {
			t.Fatalf("shared_with_groups: %v", sw)
		}
		c.expectBody(409, `{"message":"Group already shared with this group"}`, "POST", path, tok[40], form("group_id", fmt.Sprint(guests), "group_access", "10"))
		// The project's own group and its ancestors are no share.
		own := int64(pr["namespace"].(map[string]any)["id"].(float64))
		c.expectBody(409, `{"message":"Project cannot be shared with the group it is in or one of its ancestors."}`,
			"POST", path, tok[40], form("group_id", fmt.Sprint(own), "group_access", "10"))
		// Validation.
		c.expectBody(400, `{"error":"group_access does not have a valid value"}`, "POST", path, tok[40], form("group_id", fmt.Sprint(guests), "group_access", "50"))
		c.expectBody(400, `{"error":"group_access does not have a valid value"}`, "POST", path, tok[40], form("group_id", fmt.Sprint(guests), "group_access", "15"))
		c.expectBody(400, `{"error":"group_id is missing, group_access is missing"}`, "POST", path, tok[40], nil)
		c.expectBody(400, `{"error":"group_id is invalid"}`, "POST", path, tok[40], form("group_id", "abc", "group_access", "10"))
		c.expectBody(400, `{"error":"expires_at is invalid"}`, "POST", path, tok[40], form("group_id", fmt.Sprint(hidden), "group_access", "10", "expires_at", "soon"))
		// A group the caller cannot see is a 404; one that does not exist too.
		c.expectBody(404, `{"message":"404 Group Not Found"}`, "POST", path, tok[40], form("group_id", fmt.Sprint(hidden), "group_access", "10"))
		c.expectBody(404, `{"message":"404 Group Not Found"}`, "POST", path, tok[40], form("group_id", "999999", "group_access", "10"))
		// Rights.
		for _, level := range []int{10, 20, 30} {
			c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", path, tok[level], form("group_id", fmt.Sprint(guests), "group_access", "10"))
		}
		c.expectBody(404, `{"message":"404 Project Not Found"}`, "POST", fmt.Sprintf("/projects/%d/share", id(p)+1000), tok[40], form("group_id", "1", "group_access", "10"))
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", path, "", form("group_id", fmt.Sprint(guests), "group_access", "10"))

		// Unshare.
		c.expectBody(403, `{"message":"403 Forbidden"}`, "DELETE", fmt.Sprintf("%s/%d", path, guests), tok[30], nil)
		r := c.expect(204, "DELETE", fmt.Sprintf("%s/%d", path, guests), tok[40], nil)
		if len(r.body) != 0 {
			t.Fatalf("204 with a body %s", r.body)
		}
		c.expectBody(404, `{"message":"404 Group Link Not Found"}`, "DELETE", fmt.Sprintf("%s/%d", path, guests), tok[40], nil)
		c.expectBody(404, `{"message":"404 Group Link Not Found"}`, "DELETE", path+"/abc", tok[40], nil)
		c.expect(404, "GET", fmt.Sprintf("/projects/%d", id(p)), reader, nil)
		// Administrators share with any group.
		c.expect(201, "POST", path, c.srv.RootToken, form("group_id", fmt.Sprint(hidden), "group_access", "20"))
	})
}
