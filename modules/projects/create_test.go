package projects_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

var projectFields = []string{"id", "description", "default_branch", "visibility", "ssh_url_to_repo", "http_url_to_repo",
	"web_url", "tag_list", "owner", "name", "name_with_namespace", "path", "path_with_namespace", "issues_enabled",
	"merge_requests_enabled", "jobs_enabled", "wiki_enabled", "snippets_enabled", "container_registry_enabled",
	"open_issues_count", "forks_count", "star_count", "created_at", "last_activity_at", "creator_id", "namespace",
	"import_status", "import_error", "archived", "avatar_url", "shared_runners_enabled", "public_jobs",
	"shared_with_groups", "only_allow_merge_if_pipeline_succeeds", "only_allow_merge_if_all_discussions_are_resolved",
	"printing_merge_requests_link_enabled", "request_access_enabled", "lfs_enabled", "ci_config_path"}

func TestCreateProject(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		aliceID, alice := c.User("alice")

		// The path comes from the name, parameterized as GitLab does.
		p := c.Project(alice, "name", "My Projéct -- the Best.")
		if p["path"] != "my-project-the-best" || p["name"] != "My Projéct -- the Best." {
			t.Fatalf("name/path: %v %v", p["name"], p["path"])
		}
		apptest.HasKeys(t, p, projectFields...)
		apptest.LacksKeys(t, p, "permissions", "statistics")
		if p["visibility"] != "private" || p["default_branch"] != "master" || p["import_status"] != "none" ||
			p["path_with_namespace"] != "alice/my-project-the-best" || p["creator_id"] != float64(aliceID) {
			t.Fatalf("defaults: %s", c.Send("GET", fmt.Sprintf("/projects/%d", apptest.ID(p)), alice, nil).Body)
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
		head, err := os.ReadFile(filepath.Join(c.Srv.RepoDir(apptest.ID(p)), "HEAD"))
		if err != nil || strings.TrimSpace(string(head)) != "ref: refs/heads/master" {
			t.Fatalf("repository HEAD: %q %v", head, err)
		}

		// The name comes from the path; every parameter is kept.
		p = c.Project(alice, "path", "from-path", "description", "d", "visibility", "internal",
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
		j := c.Expect(201, "POST", "/projects", alice, map[string]any{"name": "json one", "tag_list": []string{"a", "b"}, "wiki_enabled": false}).Object(t)
		if j["path"] != "json-one" || fmt.Sprint(j["tag_list"]) != "[a b]" || j["wiki_enabled"] != false {
			t.Fatalf("json create: %v", j)
		}

		// Taken names and paths are GitLab's field map.
		c.ExpectBody(400, `{"message":{"name":["has already been taken"],"path":["has already been taken"]}}`,
			"POST", "/projects", alice, apptest.Form("name", "from-path"))
		c.ExpectBody(400, `{"message":{"path":["has already been taken"]}}`,
			"POST", "/projects", alice, apptest.Form("name", "Other", "path", "FROM-PATH"))
		// Bad paths and names.
		pathMsg := "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"
		for _, bad := range []string{"-x", "a b", "x.git", "y.atom", "a/b", "ü"} {
			c.ExpectBody(400, `{"message":{"path":["`+pathMsg+`"]}}`, "POST", "/projects", alice, apptest.Form("name", "ok name", "path", bad))
		}
		c.ExpectBody(400, `{"message":{"path":["new is a reserved name"]}}`, "POST", "/projects", alice, apptest.Form("path", "new"))
		c.ExpectBody(400, `{"message":{"name":["can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'."]}}`,
			"POST", "/projects", alice, apptest.Form("name", "-bad", "path", "fine"))
		c.ExpectBody(400, `{"message":{"name":["can't be blank"],"path":["can't be blank"]}}`, "POST", "/projects", alice, apptest.Form("name", "  "))
		c.ExpectBody(400, `{"message":{"path":["can't be blank"]}}`, "POST", "/projects", alice, apptest.Form("name", "日本"))
		c.ExpectBody(400, `{"message":{"name":["is too long (maximum is 255 characters)"],"path":["is too long (maximum is 255 characters)"]}}`,
			"POST", "/projects", alice, apptest.Form("name", strings.Repeat("n", 256)))
		c.ExpectBody(400, `{"message":{"import_url":["must be a valid URL"]}}`, "POST", "/projects", alice, apptest.Form("name", "imp", "import_url", "ftp://x/y"))
		c.ExpectBody(400, `{"message":{"ci_config_path":["cannot include directory traversal."]}}`, "POST", "/projects", alice, apptest.Form("name", "ci", "ci_config_path", "../x.yml"))
		// Request validation.
		c.ExpectBody(400, `{"error":"name, path are missing, at least one parameter must be provided"}`, "POST", "/projects", alice, apptest.Form("description", "x"))
		c.ExpectBody(400, `{"error":"visibility does not have a valid value"}`, "POST", "/projects", alice, apptest.Form("name", "v", "visibility", "secret"))
		c.ExpectBody(400, `{"error":"issues_enabled is invalid"}`, "POST", "/projects", alice, apptest.Form("name", "v", "issues_enabled", "maybe"))
		c.ExpectBody(400, `{"error":"namespace_id is invalid"}`, "POST", "/projects", alice, apptest.Form("name", "v", "namespace_id", "abc"))
		c.ExpectBody(400, `{"error":"avatar is invalid"}`, "POST", "/projects", alice, apptest.Form("name", "v", "avatar", "not-a-file"))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/projects", "", apptest.Form("name", "anon"))
	})
}

func TestCreateInNamespaces(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		masterID, master := c.User("master")
		devID, dev := c.User("dev")
		_, outsider := c.User("outsider")
		bobID, _ := c.User("bob")
		priv := group(c, "priv", "private")
		pub := group(c, "pub", "public")
		c.AddMember("groups", priv, masterID, 40)
		c.AddMember("groups", priv, devID, 30)
		c.AddMember("groups", pub, masterID, 40)

		p := c.Project(master, "name", "in group", "namespace_id", fmt.Sprint(priv))
		if p["path_with_namespace"] != "priv/in-group" || p["namespace"].(map[string]any)["kind"] != "group" {
			t.Fatalf("group project: %v", p["path_with_namespace"])
		}
		apptest.LacksKeys(t, p, "owner")
		invalid := `{"message":{"namespace":["is not valid"]}}`
		// Developers may not create in a group (GitLab 9.x: master or owner).
		c.ExpectBody(400, invalid, "POST", "/projects", dev, apptest.Form("name", "x", "namespace_id", fmt.Sprint(priv)))
		// A group one cannot see, another user's namespace and a missing
		// namespace are all the same answer.
		c.ExpectBody(400, invalid, "POST", "/projects", outsider, apptest.Form("name", "x", "namespace_id", fmt.Sprint(priv)))
		c.ExpectBody(400, invalid, "POST", "/projects", outsider, apptest.Form("name", "x", "namespace_id", fmt.Sprint(pub)))
		var bobNS float64
		for _, n := range c.Expect(200, "GET", "/namespaces?search=bob", c.Srv.RootToken, nil).List(t) {
			if n["path"] == "bob" {
				bobNS = n["id"].(float64)
			}
		}
		c.ExpectBody(400, invalid, "POST", "/projects", outsider, apptest.Form("name", "x", "namespace_id", fmt.Sprint(int64(bobNS))))
		c.ExpectBody(400, invalid, "POST", "/projects", outsider, apptest.Form("name", "x", "namespace_id", "999999"))
		// Administrators create anywhere.
		c.Project(c.Srv.RootToken, "name", "root in bob", "namespace_id", fmt.Sprint(int64(bobNS)))
		// A project may not be more visible than its group.
		c.ExpectBody(400, `{"message":{"visibility_level":["public is not allowed in a private group."]}}`,
			"POST", "/projects", master, apptest.Form("name", "loud", "namespace_id", fmt.Sprint(priv), "visibility", "public"))
		c.Project(master, "name", "loud", "namespace_id", fmt.Sprint(pub), "visibility", "public")
		_ = bobID
	})
}

func TestCreateForUser(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		bobID, bob := c.User("bob")
		p := c.Expect(201, "POST", fmt.Sprintf("/projects/user/%d", bobID), c.Srv.RootToken,
			apptest.Form("name", "For Bob", "default_branch", "main", "description", "given")).Object(t)
		if p["path_with_namespace"] != "bob/for-bob" || p["creator_id"] != float64(bobID) || p["default_branch"] != "main" ||
			p["owner"].(map[string]any)["id"] != float64(bobID) {
			t.Fatalf("project for bob: %v", p)
		}
		head, _ := os.ReadFile(filepath.Join(c.Srv.RepoDir(apptest.ID(p)), "HEAD"))
		if strings.TrimSpace(string(head)) != "ref: refs/heads/main" {
			t.Fatalf("HEAD %q", head)
		}
		// Bob owns it.
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/archive", apptest.ID(p)), bob, nil)

		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", fmt.Sprintf("/projects/user/%d", bobID), bob, apptest.Form("name", "x"))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", fmt.Sprintf("/projects/user/%d", bobID), "", apptest.Form("name", "x"))
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", "/projects/user/999999", c.Srv.RootToken, apptest.Form("name", "x"))
		c.ExpectBody(400, `{"error":"user_id is invalid"}`, "POST", "/projects/user/bob", c.Srv.RootToken, apptest.Form("name", "x"))
		c.ExpectBody(400, `{"error":"name is missing"}`, "POST", fmt.Sprintf("/projects/user/%d", bobID), c.Srv.RootToken, apptest.Form("path", "x"))
		c.ExpectBody(400, `{"message":{"default_branch":["is invalid"]}}`, "POST", fmt.Sprintf("/projects/user/%d", bobID), c.Srv.RootToken,
			apptest.Form("name", "x", "default_branch", "-bad..ref"))
	})
}

func TestProjectsLimit(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		capID, capped := c.User("capped", "projects_limit", "2")
		c.Project(capped, "name", "one")
		c.Project(capped, "name", "two")
		limit := `{"message":"403 Forbidden - Your project limit is 2 projects! Please contact your administrator to increase it"}`
		c.ExpectBody(403, limit, "POST", "/projects", capped, apptest.Form("name", "three"))
		// Groups do not count against the limit.
		g := group(c, "room", "private")
		c.AddMember("groups", g, capID, 40)
		c.Project(capped, "name", "three", "namespace_id", fmt.Sprint(g))
		// Creating for the user: GitLab's field map.
		c.ExpectBody(400, `{"message":{"limit_reached":["Your project limit is 2 projects! Please contact your administrator to increase it"]}}`,
			"POST", fmt.Sprintf("/projects/user/%d", capID), c.Srv.RootToken, apptest.Form("name", "four"))
		// Forking into the personal namespace: GitLab's 409 with the errors.
		_, other := c.User("other")
		src := c.Project(other, "name", "src", "visibility", "public")
		c.ExpectBody(409, `{"message":{"limit_reached":["Your project limit is 2 projects! Please contact your administrator to increase it"]}}`,
			"POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), capped, nil)
		// A limit of 0 forbids personal projects.
		_, none := c.User("none", "projects_limit", "0")
		c.ExpectBody(403, `{"message":"403 Forbidden - Your project limit is 0 projects! Please contact your administrator to increase it"}`,
			"POST", "/projects", none, apptest.Form("name", "x"))
		// Raising the limit lets the user go on.
		c.Expect(200, "PUT", fmt.Sprintf("/users/%d", capID), c.Srv.RootToken, apptest.Form("projects_limit", "3"))
		c.Project(capped, "name", "four")
	})
}

// TestConcurrentCreation: many creations of the same name in one namespace
// give exactly one project and clean 400s; concurrent creations under a
// limit never exceed it.
func TestConcurrentCreation(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		_, tok := c.User("racer", "projects_limit", "1000")
		const n = 50
		statuses := make([]int, n)
		bodies := make([]string, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := c.Send("POST", "/projects", tok, apptest.Form("name", "same name"))
				statuses[i], bodies[i] = r.Status, string(r.Body)
			}(i)
		}
		wg.Wait()
		created := 0
		for i, s := range statuses {
			switch s {
			case 201:
				created++
			case 400:
				if !apptest.JSONEqual([]byte(bodies[i]), []byte(`{"message":{"name":["has already been taken"],"path":["has already been taken"]}}`)) {
					t.Errorf("400 body %s", bodies[i])
				}
			default:
				t.Errorf("status %d: %s", s, bodies[i])
			}
		}
		if created != 1 {
			t.Fatalf("%d projects created, want 1", created)
		}
		_, small := c.User("small", "projects_limit", "3")
		var mu sync.Mutex
		ok := 0
		for i := 0; i < 12; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := c.Send("POST", "/projects", small, url.Values{"name": {fmt.Sprintf("p%d", i)}})
				if r.Status != 201 && r.Status != 403 {
					t.Errorf("status %d: %s", r.Status, r.Body)
				}
				if r.Status == 201 {
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

// TestPersonalProjectOwnerIsMaster: as GitLab's Projects::CreateService
// does, the owner of a project created in a user's namespace (by that user,
// for them by an administrator, or as a fork) becomes its master member; a
// group's project gets no member (its group's members reach it).
func TestPersonalProjectOwnerIsMaster(t *testing.T) {
	t.Parallel()
	c := apptest.New(t).Client(t)
	_, alice := c.User("alice")
	bobID, bob := c.User("bob")
	members := func(projectID int64) string {
		var out []string
		for _, m := range c.Expect(200, "GET", fmt.Sprintf("/projects/%d/members", projectID), c.Srv.RootToken, nil).List(t) {
			out = append(out, fmt.Sprintf("%v:%v", m["username"], m["access_level"]))
		}
		return strings.Join(out, ",")
	}
	own := c.Project(alice, "name", "own", "visibility", "public")
	if got := members(apptest.ID(own)); got != "alice:40" {
		t.Errorf("alice's own project: members %q, want alice:40", got)
	}
	forUser := c.Expect(201, "POST", fmt.Sprintf("/projects/user/%d", bobID), c.Srv.RootToken, apptest.Form("name", "given")).Object(t)
	if got := members(apptest.ID(forUser)); got != "bob:40" {
		t.Errorf("project created for bob by root: members %q, want bob:40", got)
	}
	fork := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(own)), bob, nil).Object(t)
	if got := members(apptest.ID(fork)); got != "bob:40" {
		t.Errorf("bob's fork: members %q, want bob:40", got)
	}
	g := c.Group(alice, "name", "team", "path", "team")
	inGroup := c.Project(alice, "name", "shared", "namespace_id", fmt.Sprint(apptest.ID(g)))
	if got := members(apptest.ID(inGroup)); got != "" {
		t.Errorf("group project: members %q, want none", got)
	}
}
