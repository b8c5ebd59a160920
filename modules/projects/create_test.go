package projects_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var projectFields = []string{"id", "description", "default_branch", "visibility", "ssh_url_to_repo", "http_url_to_repo",
	"web_url", "tag_list", "owner", "name", "name_with_namespace", "path", "path_with_namespace", "issues_enabled",
	"merge_requests_enabled", "jobs_enabled", "wiki_enabled", "snippets_enabled", "container_registry_enabled",
	"open_issues_count", "forks_count", "star_count", "created_at", "last_activity_at", "creator_id", "namespace",
	"import_status", "import_error", "archived", "avatar_url", "shared_runners_enabled", "public_jobs",
	"shared_with_groups", "only_allow_merge_if_pipeline_succeeds", "only_allow_merge_if_all_discussions_are_resolved",
	"printing_merge_requests_link_enabled", "request_access_enabled", "lfs_enabled", "ci_config_path"}

func TestCreateProject(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		aliceID, alice := c.user("alice")

		// The path comes from the name, parameterized as GitLab does.
		p := c.project(alice, "name", "My Projéct -- the Best.")
		if p["path"] != "my-project-the-best" || p["name"] != "My Projéct -- the Best." {
			t.Fatalf("name/path: %v %v", p["name"], p["path"])
		}
		hasKeys(t, p, projectFields...)
		lacksKeys(t, p, "permissions", "statistics")
		if p["visibility"] != "private" || p["default_branch"] != "master" || p["import_status"] != "none" ||
			p["path_with_namespace"] != "alice/my-project-the-best" || p["creator_id"] != float64(aliceID) {
			t.Fatalf("defaults: %s", c.send("GET", fmt.Sprintf("/projects/%d", id(p)), alice, nil).body)
		}
		ns := p["namespace"].(map[string]any)
		if ns["kind"] != "user" || ns["path"] != "alice" || ns["full_path"] != "alice" {
			t.Fatalf("namespace: %v", ns)
		}
		if owner := p["owner"].(map[string]any); owner["id"] != float64(aliceID) {
			t.Fatalf("owner: %v", owner)
		}
		if !strings.HasSuffix(p["http_url_to_repo"].(string), "/alice/my-project-the-best.git") ||
			!strings.HasPrefix(p["ssh_url_to_repo"].(string), "git@") {
			t.Fatalf("urls: %v %v", p["http_url_to_repo"], p["ssh_url_to_repo"])
		}
		// The repository exists, its HEAD names master.
		head, err := os.ReadFile(filepath.Join(c.repoDir(id(p)), "HEAD"))
		if err != nil || strings.TrimSpace(string(head)) != "ref: refs/heads/master" {
			t.Fatalf("repository HEAD: %q %v", head, err)
		}

		// The name comes from the path; every parameter is kept.
		p = c.project(alice, "path", "from-path", "description", "d", "visibility", "internal",
			"issues_enabled", "false", "merge_requests_enabled", "0", "jobs_enabled", "false", "wiki_enabled", "false",
			"snippets_enabled", "false", "container_registry_enabled", "true", "shared_runners_enabled", "false",
			"public_jobs", "false", "only_allow_merge_if_pipeline_succeeds", "true",
			"only_allow_merge_if_all_discussions_are_resolved", "true", "lfs_enabled", "false",
			"request_access_enabled", "true", "tag_list", "go, api,go", "printing_merge_request_link_enabled", "false",
			"ci_config_path", "/ci/build.yml", "import_url", "https://example.com/x.git", "default_branch", "ignored")
		want := map[string]any{"name": "from-path", "path": "from-path", "description": "d", "visibility": "internal",
			"issues_enabled": false, "merge_requests_enabled": false, "jobs_enabled": false, "wiki_enabled": false,
			"snippets_enabled": false, "container_registry_enabled": true, "shared_runners_enabled": false,
			"public_jobs": false, "only_allow_merge_if_pipeline_succeeds": true,
			"only_allow_merge_if_all_discussions_are_resolved": true, "lfs_enabled": false,
			"request_access_enabled": true, "printing_merge_requests_link_enabled": false,
			"ci_config_path": "ci/build.yml", "default_branch": "master"}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("%s = %v, want %v", k, p[k], v)
			}
		}
		if fmt.Sprint(p["tag_list"]) != "[go api]" {
			t.Errorf("tag_list = %v", p["tag_list"])
		}
		// JSON bodies work alike.
		j := c.expect(201, "POST", "/projects", alice, map[string]any{"name": "json one", "tag_list": []string{"a", "b"}, "wiki_enabled": false}).object(t)
		if j["path"] != "json-one" || fmt.Sprint(j["tag_list"]) != "[a b]" || j["wiki_enabled"] != false {
			t.Fatalf("json create: %v", j)
		}

		// Taken names and paths are GitLab's field map.
		c.expectBody(400, `{"message":{"name":["has already been taken"],"path":["has already been taken"]}}`,
			"POST", "/projects", alice, form("name", "from-path"))
		c.expectBody(400, `{"message":{"path":["has already been taken"]}}`,
			"POST", "/projects", alice, form("name", "Other", "path", "FROM-PATH"))
		// Bad paths and names.
		pathMsg := "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"
		for _, bad := range []string{"-x", "a b", "x.git", "y.atom", "a/b", "ü"} {
			c.expectBody(400, `{"message":{"path":["`+pathMsg+`"]}}`, "POST", "/projects", alice, form("name", "ok name", "path", bad))
		}
		c.expectBody(400, `{"message":{"path":["new is a reserved name"]}}`, "POST", "/projects", alice, form("path", "new"))
		c.expectBody(400, `{"message":{"name":["can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'."]}}`,
			"POST", "/projects", alice, form("name", "-bad", "path", "fine"))
		c.expectBody(400, `{"message":{"name":["can't be blank"],"path":["can't be blank"]}}`, "POST", "/projects", alice, form("name", "  "))
		c.expectBody(400, `{"message":{"path":["can't be blank"]}}`, "POST", "/projects", alice, form("name", "日本"))
		c.expectBody(400, `{"message":{"name":["is too long (maximum is 255 characters)"],"path":["is too long (maximum is 255 characters)"]}}`,
			"POST", "/projects", alice, form("name", strings.Repeat("n", 256)))
		c.expectBody(400, `{"message":{"import_url":["must be a valid URL"]}}`, "POST", "/projects", alice, form("name", "imp", "import_url", "ftp://x/y"))
		c.expectBody(400, `{"message":{"ci_config_path":["cannot include directory traversal."]}}`, "POST", "/projects", alice, form("name", "ci", "ci_config_path", "../x.yml"))
		// Request validation.
		c.expectBody(400, `{"error":"name, path are missing, at least one parameter must be provided"}`, "POST", "/projects", alice, form("description", "x"))
		c.expectBody(400, `{"error":"visibility does not have a valid value"}`, "POST", "/projects", alice, form("name", "v", "visibility", "secret"))
		c.expectBody(400, `{"error":"issues_enabled is invalid"}`, "POST", "/projects", alice, form("name", "v", "issues_enabled", "maybe"))
		c.expectBody(400, `{"error":"namespace_id is invalid"}`, "POST", "/projects", alice, form("name", "v", "namespace_id", "abc"))
		c.expectBody(400, `{"error":"avatar is invalid"}`, "POST", "/projects", alice, form("name", "v", "avatar", "not-a-file"))
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/projects", "", form("name", "anon"))
	})
}

func TestCreateInNamespaces(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		masterID, master := c.user("master")
		devID, dev := c.user("dev")
		_, outsider := c.user("outsider")
		bobID, _ := c.user("bob")
		priv := c.group("priv", "private")
		pub := c.group("pub", "public")
		c.addMember("groups", priv, masterID, 40)
		c.addMember("groups", priv, devID, 30)
		c.addMember("groups", pub, masterID, 40)

		p := c.project(master, "name", "in group", "namespace_id", fmt.Sprint(priv))
		if p["path_with_namespace"] != "priv/in-group" || p["namespace"].(map[string]any)["kind"] != "group" {
			t.Fatalf("group project: %v", p["path_with_namespace"])
		}
		lacksKeys(t, p, "owner")
		invalid := `{"message":{"namespace":["is not valid"]}}`
		// Developers may not create in a group (GitLab 9.x: master or owner).
		c.expectBody(400, invalid, "POST", "/projects", dev, form("name", "x", "namespace_id", fmt.Sprint(priv)))
		// A group one cannot see, another user's namespace and a missing
		// namespace are all the same answer.
		c.expectBody(400, invalid, "POST", "/projects", outsider, form("name", "x", "namespace_id", fmt.Sprint(priv)))
		c.expectBody(400, invalid, "POST", "/projects", outsider, form("name", "x", "namespace_id", fmt.Sprint(pub)))
		var bobNS float64
		for _, n := range c.expect(200, "GET", "/namespaces?search=bob", c.srv.RootToken, nil).list(t) {
			if n["path"] == "bob" {
				bobNS = n["id"].(float64)
			}
		}
		c.expectBody(400, invalid, "POST", "/projects", outsider, form("name", "x", "namespace_id", fmt.Sprint(int64(bobNS))))
		c.expectBody(400, invalid, "POST", "/projects", outsider, form("name", "x", "namespace_id", "999999"))
		// Administrators create anywhere.
		c.project(c.srv.RootToken, "name", "root in bob", "namespace_id", fmt.Sprint(int64(bobNS)))
		// A project may not be more visible than its group.
		c.expectBody(400, `{"message":{"visibility_level":["public is not allowed in a private group."]}}`,
			"POST", "/projects", master, form("name", "loud", "namespace_id", fmt.Sprint(priv), "visibility", "public"))
		c.project(master, "name", "loud", "namespace_id", fmt.Sprint(pub), "visibility", "public")
		_ = bobID
	})
}

func TestCreateForUser(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		bobID, bob := c.user("bob")
		p := c.expect(201, "POST", fmt.Sprintf("/projects/user/%d", bobID), c.srv.RootToken,
			form("name", "For Bob", "default_branch", "main", "description", "given")).object(t)
		if p["path_with_namespace"] != "bob/for-bob" || p["creator_id"] != float64(bobID) || p["default_branch"] != "main" ||
			p["owner"].(map[string]any)["id"] != float64(bobID) {
			t.Fatalf("project for bob: %v", p)
		}
		head, _ := os.ReadFile(filepath.Join(c.repoDir(id(p)), "HEAD"))
		if strings.TrimSpace(string(head)) != "ref: refs/heads/main" {
			t.Fatalf("HEAD %q", head)
		}
		// Bob owns it.
		c.expect(201, "POST", fmt.Sprintf("/projects/%d/archive", id(p)), bob, nil)

		c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", fmt.Sprintf("/projects/user/%d", bobID), bob, form("name", "x"))
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", fmt.Sprintf("/projects/user/%d", bobID), "", form("name", "x"))
		c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/projects/user/999999", c.srv.RootToken, form("name", "x"))
		c.expectBody(400, `{"error":"user_id is invalid"}`, "POST", "/projects/user/bob", c.srv.RootToken, form("name", "x"))
		c.expectBody(400, `{"error":"name is missing"}`, "POST", fmt.Sprintf("/projects/user/%d", bobID), c.srv.RootToken, form("path", "x"))
		c.expectBody(400, `{"message":{"default_branch":["is invalid"]}}`, "POST", fmt.Sprintf("/projects/user/%d", bobID), c.srv.RootToken,
			form("name", "x", "default_branch", "-bad..ref"))
	})
}

func TestProjectsLimit(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		capID, capped := c.user("capped", "projects_limit", "2")
		c.project(capped, "name", "one")
		c.project(capped, "name", "two")
		limit := `{"message":"403 Forbidden - Your project limit is 2 projects! Please contact your administrator to increase it"}`
		c.expectBody(403, limit, "POST", "/projects", capped, form("name", "three"))
		// Groups do not count against the limit.
		g := c.group("room", "private")
		c.addMember("groups", g, capID, 40)
		c.project(capped, "name", "three", "namespace_id", fmt.Sprint(g))
		// Creating for the user: GitLab's field map.
		c.expectBody(400, `{"message":{"limit_reached":["Your project limit is 2 projects! Please contact your administrator to increase it"]}}`,
			"POST", fmt.Sprintf("/projects/user/%d", capID), c.srv.RootToken, form("name", "four"))
		// Forking into the personal namespace: GitLab's 409 with the errors.
		_, other := c.user("other")
		src := c.project(other, "name", "src", "visibility", "public")
		c.expectBody(409, `{"message":{"limit_reached":["Your project limit is 2 projects! Please contact your administrator to increase it"]}}`,
			"POST", fmt.Sprintf("/projects/%d/fork", id(src)), capped, nil)
		// A limit of 0 forbids personal projects.
		_, none := c.user("none", "projects_limit", "0")
		c.expectBody(403, `{"message":"403 Forbidden - Your project limit is 0 projects! Please contact your administrator to increase it"}`,
			"POST", "/projects", none, form("name", "x"))
		// Raising the limit lets the user go on.
		c.expect(200, "PUT", fmt.Sprintf("/users/%d", capID), c.srv.RootToken, form("projects_limit", "3"))
		c.project(capped, "name", "four")
	})
}

// TestConcurrentCreation: many creations of the same name in one namespace
// give exactly one project and clean 400s; concurrent creations under a
// limit never exceed it.
func TestConcurrentCreation(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		_, tok := c.user("racer", "projects_limit", "1000")
		const n = 50
		statuses := make([]int, n)
		bodies := make([]string, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := c.send("POST", "/projects", tok, form("name", "same name"))
				statuses[i], bodies[i] = r.status, string(r.body)
			}(i)
		}
		wg.Wait()
		created := 0
		for i, s := range statuses {
			switch s {
			case 201:
				created++
			case 400:
				if !jsonEqual([]byte(bodies[i]), []byte(`{"message":{"name":["has already been taken"],"path":["has already been taken"]}}`)) {
					t.Errorf("400 body %s", bodies[i])
				}
			default:
				t.Errorf("status %d: %s", s, bodies[i])
			}
		}
		if created != 1 {
			t.Fatalf("%d projects created, want 1", created)
		}
		_, small := c.user("small", "projects_limit", "3")
		var mu sync.Mutex
		ok := 0
		for i := 0; i < 12; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := c.send("POST", "/projects", small, url.Values{"name": {fmt.Sprintf("p%d", i)}})
				if r.status != 201 && r.status != 403 {
					t.Errorf("status %d: %s", r.status, r.body)
				}
				if r.status == 201 {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}(i)
		}
		wg.Wait()
		if ok != 3 {
			t.Fatalf("%d projects created under a limit of 3", ok)
		}
	})
}
