package projects_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// roles makes a group project with a member at each level and returns the
// project and the members' tokens by level.
func roles(c *apptest.Client, prefix string) (map[string]any, map[int]string) {
	c.T.Helper()
	g := group(c, prefix+"-grp", "private")
	p := c.Project(c.Srv.RootToken, "name", prefix, "namespace_id", fmt.Sprint(g))
	tokens := map[int]string{}
	for _, level := range []int{10, 20, 30, 40} {
		uid, tok := c.User(fmt.Sprintf("%s-l%d", prefix, level))
		c.AddMember("projects", apptest.ID(p), uid, level)
		tokens[level] = tok
	}
	uid, tok := c.User(prefix + "-owner")
	c.AddMember("groups", g, uid, 50)
	tokens[50] = tok
	return p, tokens
}

func TestUpdateProject(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		p, tok := roles(c, "upd")
		_, stranger := c.User("stranger")
		path := fmt.Sprintf("/projects/%d", apptest.ID(p))
		before := c.Expect(200, "GET", path, tok[40], nil).Object(t)
		c.Srv.Advance(time.Second)

		// Masters change settings.
		out := c.Expect(200, "PUT", path, tok[40], apptest.Form("description", "new words", "issues_enabled", "false",
			"tag_list[]", "x", "tag_list[]", "y", "ci_config_path", "ci.yml", "only_allow_merge_if_pipeline_succeeds", "true")).Object(t)
		if out["description"] != "new words" || out["issues_enabled"] != false || fmt.Sprint(out["tag_list"]) != "[x y]" ||
			out["ci_config_path"] != "ci.yml" || out["only_allow_merge_if_pipeline_succeeds"] != true {
			t.Fatalf("update: %v", out)
		}
		if out["last_activity_at"] == before["last_activity_at"] {
			t.Fatalf("last_activity_at did not move: %v", out["last_activity_at"])
		}
		// Renaming, moving the path and the visibility are owners'.
		forbidden := `{"message":"403 Forbidden"}`
		c.ExpectBody(403, forbidden, "PUT", path, tok[40], apptest.Form("name", "renamed"))
		c.ExpectBody(403, forbidden, "PUT", path, tok[40], apptest.Form("visibility", "private"))
		c.ExpectBody(403, forbidden, "PUT", path, tok[40], apptest.Form("path", "moved"))
		c.Expect(200, "PUT", path, tok[40], apptest.Form("path", "upd")) // unchanged path
		out = c.Expect(200, "PUT", path, tok[50], apptest.Form("name", "Renamed", "path", "moved", "visibility", "private")).Object(t)
		if out["name"] != "Renamed" || out["path"] != "moved" || out["path_with_namespace"] != "upd-grp/moved" || out["visibility"] != "private" {
			t.Fatalf("owner update: %v", out)
		}
		c.Expect(200, "GET", "/projects/upd-grp%2Fmoved", tok[50], nil)
		// Lower levels may not change settings; strangers do not see it;
		// anonymous callers must sign in.
		for _, level := range []int{10, 20, 30} {
			c.ExpectBody(403, forbidden, "PUT", path, tok[level], apptest.Form("description", "x"))
		}
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "PUT", path, stranger, apptest.Form("description", "x"))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "PUT", path, "", apptest.Form("description", "x"))
		// Validation.
		c.ExpectBody(400, `{"error":"jobs_enabled, container_registry_enabled, default_branch, description, issues_enabled, lfs_enabled, merge_requests_enabled, name, only_allow_merge_if_all_discussions_are_resolved, only_allow_merge_if_pipeline_succeeds, path, public_jobs, request_access_enabled, shared_runners_enabled, snippets_enabled, visibility, wiki_enabled, tag_list, import_url, ci_config_path, avatar are missing, at least one parameter must be provided"}`,
			"PUT", path, tok[40], nil)
		c.ExpectBody(400, `{"error":"visibility does not have a valid value"}`, "PUT", path, tok[50], apptest.Form("visibility", "x"))
		c.ExpectBody(400, `{"message":{"visibility_level":["public is not allowed in a private group."]}}`, "PUT", path, tok[50], apptest.Form("visibility", "public"))
		c.ExpectBody(400, `{"message":{"name":["can't be blank"]}}`, "PUT", path, tok[50], apptest.Form("name", ""))
		c.ExpectBody(400, `{"message":{"path":["can't be blank"]}}`, "PUT", path, tok[50], apptest.Form("path", ""))
		c.Project(c.Srv.RootToken, "name", "taken", "namespace_id", fmt.Sprint(int64(out["namespace"].(map[string]any)["id"].(float64))))
		c.ExpectBody(400, `{"message":{"name":["has already been taken"]}}`, "PUT", path, tok[50], apptest.Form("name", "TAKEN"))
		c.ExpectBody(400, `{"message":{"path":["has already been taken"]}}`, "PUT", path, tok[50], apptest.Form("path", "taken"))
		// The default branch must exist.
		c.ExpectBody(400, `{"message":{"base":["Could not change HEAD: branch 'develop' does not exist"]}}`, "PUT", path, tok[40], apptest.Form("default_branch", "develop"))
		c.ExpectBody(400, `{"message":{"default_branch":["is invalid"]}}`, "PUT", path, tok[40], apptest.Form("default_branch", "a..b"))
		pushCommits(t, c.Srv.RepoDir(apptest.ID(p)), "develop", 1)
		out = c.Expect(200, "PUT", path, tok[40], apptest.Form("default_branch", "develop")).Object(t)
		if out["default_branch"] != "develop" {
			t.Fatalf("default_branch: %v", out["default_branch"])
		}
		if head, err := os.ReadFile(filepath.Join(c.Srv.RepoDir(apptest.ID(p)), "HEAD")); err != nil || string(head) != "ref: refs/heads/develop\n" {
			t.Fatalf("HEAD after changing the default branch: %q, %v", head, err)
		}
		// JSON bodies.
		out = c.Expect(200, "PUT", path, tok[40], map[string]any{"wiki_enabled": false, "tag_list": []string{}}).Object(t)
		if out["wiki_enabled"] != false || fmt.Sprint(out["tag_list"]) != "[]" {
			t.Fatalf("json update: %v", out)
		}
	})
}

func TestDeleteProject(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		p, tok := roles(c, "del")
		path := fmt.Sprintf("/projects/%d", apptest.ID(p))
		repo := c.Srv.RepoDir(apptest.ID(p))
		if !exists(repo) {
			t.Fatalf("no repository at %s", repo)
		}
		for _, level := range []int{10, 20, 30, 40} {
			c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", path, tok[level], nil)
		}
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "DELETE", path, "", nil)
		// A fork of it survives, no longer a fork.
		fork := c.Expect(201, "POST", path+"/fork", tok[20], nil).Object(t)
		waitImport(c, tok[20], apptest.ID(fork))

		c.ExpectBody(202, `{"message":"202 Accepted"}`, "DELETE", path, tok[50], nil)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", path, c.Srv.RootToken, nil)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "DELETE", path, c.Srv.RootToken, nil)
		if exists(repo) {
			t.Fatalf("repository %s still there", repo)
		}
		f := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(fork)), tok[20], nil).Object(t)
		apptest.LacksKeys(t, f, "forked_from_project")
		if !exists(c.Srv.RepoDir(apptest.ID(fork))) {
			t.Fatalf("the fork's repository went too")
		}
		// Deleting a fork counts one fork less on its source; admins delete anything.
		_, alice := c.User("alice")
		src := c.Project(alice, "name", "src", "visibility", "public")
		f2 := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), tok[10], nil).Object(t)
		waitImport(c, tok[10], apptest.ID(f2))
		if got := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(src)), alice, nil).Object(t)["forks_count"]; got != float64(1) {
			t.Fatalf("forks_count %v", got)
		}
		c.Expect(202, "DELETE", fmt.Sprintf("/projects/%d", apptest.ID(f2)), c.Srv.RootToken, nil)
		if got := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(src)), alice, nil).Object(t)["forks_count"]; got != float64(0) {
			t.Fatalf("forks_count after deleting the fork %v", got)
		}
		// The projects list no longer has it.
		for _, q := range c.Expect(200, "GET", "/projects?per_page=100", c.Srv.RootToken, nil).List(t) {
			if apptest.ID(q) == apptest.ID(p) {
				t.Fatalf("deleted project listed")
			}
		}
	})
}

func TestStarAndArchive(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		p, tok := roles(c, "toggle")
		path := fmt.Sprintf("/projects/%d", apptest.ID(p))
		_, stranger := c.User("stranger")

		s := c.Expect(201, "POST", path+"/star", tok[10], nil).Object(t)
		if s["star_count"] != float64(1) || apptest.ID(s) != apptest.ID(p) {
			t.Fatalf("star: %v", s["star_count"])
		}
		r := c.Expect(304, "POST", path+"/star", tok[10], nil)
		if len(r.Body) != 0 {
			t.Fatalf("304 with a body: %s", r.Body)
		}
		if s = c.Expect(201, "POST", path+"/unstar", tok[10], nil).Object(t); s["star_count"] != float64(0) {
			t.Fatalf("unstar: %v", s["star_count"])
		}
		c.Expect(304, "POST", path+"/unstar", tok[10], nil)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", path+"/star", stranger, nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", path+"/star", "", nil)

		// Archive: owners and administrators, idempotent, 201 with the project.
		for _, level := range []int{10, 20, 30, 40} {
			c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", path+"/archive", tok[level], nil)
		}
		for i := 0; i < 2; i++ {
			if a := c.Expect(201, "POST", path+"/archive", tok[50], nil).Object(t); a["archived"] != true {
				t.Fatalf("archive: %v", a["archived"])
			}
		}
		for i := 0; i < 2; i++ {
			if a := c.Expect(201, "POST", path+"/unarchive", c.Srv.RootToken, nil).Object(t); a["archived"] != false {
				t.Fatalf("unarchive: %v", a["archived"])
			}
		}
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", path+"/archive", "", nil)

		// Concurrent stars by many users count exactly.
		pub := c.Project(c.Srv.RootToken, "name", "popular", "visibility", "public")
		const n = 50
		tokens := make([]string, n)
		for i := range tokens {
			_, tokens[i] = c.User(fmt.Sprintf("fan%d", i))
		}
		var wg sync.WaitGroup
		for _, tk := range tokens {
			wg.Add(1)
			go func(tk string) {
				defer wg.Done()
				if r := c.Send("POST", fmt.Sprintf("/projects/%d/star", apptest.ID(pub)), tk, nil); r.Status != 201 {
					t.Errorf("star: %d %s", r.Status, r.Body)
				}
			}(tk)
		}
		wg.Wait()
		if got := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(pub)), "", nil).Object(t)["star_count"]; got != float64(n) {
			t.Fatalf("star_count %v, want %d", got, n)
		}
	})
}

func TestShareProject(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		p, tok := roles(c, "shr")
		path := fmt.Sprintf("/projects/%d/share", apptest.ID(p))
		guests := group(c, "guests", "public")
		hidden := group(c, "hidden", "private")
		readerID, reader := c.User("reader")
		c.AddMember("groups", guests, readerID, 10)

		// Non-members of the project cannot see it until it is shared.
		c.Expect(404, "GET", fmt.Sprintf("/projects/%d", apptest.ID(p)), reader, nil)
		c.ExpectBody(201, fmt.Sprintf(`{"id":null,"project_id":%d,"group_id":%d,"group_access":30,"expires_at":"2099-01-02"}`, apptest.ID(p), guests),
			"POST", path, tok[40], apptest.Form("group_id", fmt.Sprint(guests), "group_access", "30", "expires_at", "2099-01-02"))
		pr := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(p)), reader, nil).Object(t)
		sw := pr["shared_with_groups"].([]any)
		if len(sw) != 1 || sw[0].(map[string]any)["group_access_level"] != float64(30) {
			t.Fatalf("shared_with_groups: %v", sw)
		}
		c.ExpectBody(409, `{"message":"Group already shared with this group"}`, "POST", path, tok[40], apptest.Form("group_id", fmt.Sprint(guests), "group_access", "10"))
		// The project's own group and its ancestors are no share.
		own := int64(pr["namespace"].(map[string]any)["id"].(float64))
		c.ExpectBody(409, `{"message":"Project cannot be shared with the group it is in or one of its ancestors."}`,
			"POST", path, tok[40], apptest.Form("group_id", fmt.Sprint(own), "group_access", "10"))
		// Validation.
		c.ExpectBody(400, `{"error":"group_access does not have a valid value"}`, "POST", path, tok[40], apptest.Form("group_id", fmt.Sprint(guests), "group_access", "50"))
		c.ExpectBody(400, `{"error":"group_access does not have a valid value"}`, "POST", path, tok[40], apptest.Form("group_id", fmt.Sprint(guests), "group_access", "15"))
		c.ExpectBody(400, `{"error":"group_id is missing, group_access is missing"}`, "POST", path, tok[40], nil)
		c.ExpectBody(400, `{"error":"group_id is invalid"}`, "POST", path, tok[40], apptest.Form("group_id", "abc", "group_access", "10"))
		c.ExpectBody(400, `{"error":"expires_at is invalid"}`, "POST", path, tok[40], apptest.Form("group_id", fmt.Sprint(hidden), "group_access", "10", "expires_at", "soon"))
		// A group the caller cannot see is a 404; one that does not exist too.
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "POST", path, tok[40], apptest.Form("group_id", fmt.Sprint(hidden), "group_access", "10"))
		c.ExpectBody(404, `{"message":"404 Group Not Found"}`, "POST", path, tok[40], apptest.Form("group_id", "999999", "group_access", "10"))
		// Rights.
		for _, level := range []int{10, 20, 30} {
			c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", path, tok[level], apptest.Form("group_id", fmt.Sprint(guests), "group_access", "10"))
		}
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", fmt.Sprintf("/projects/%d/share", apptest.ID(p)+1000), tok[40], apptest.Form("group_id", "1", "group_access", "10"))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", path, "", apptest.Form("group_id", fmt.Sprint(guests), "group_access", "10"))

		// Unshare.
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", fmt.Sprintf("%s/%d", path, guests), tok[30], nil)
		r := c.Expect(204, "DELETE", fmt.Sprintf("%s/%d", path, guests), tok[40], nil)
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body %s", r.Body)
		}
		c.ExpectBody(404, `{"message":"404 Group Link Not Found"}`, "DELETE", fmt.Sprintf("%s/%d", path, guests), tok[40], nil)
		c.ExpectBody(404, `{"message":"404 Group Link Not Found"}`, "DELETE", path+"/abc", tok[40], nil)
		c.Expect(404, "GET", fmt.Sprintf("/projects/%d", apptest.ID(p)), reader, nil)
		// Administrators share with any group.
		c.Expect(201, "POST", path, c.Srv.RootToken, apptest.Form("group_id", fmt.Sprint(hidden), "group_access", "20"))
	})
}
