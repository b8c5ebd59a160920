package settings_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

const settingsPath = "/application/settings"

// TestSettingsPermissions: administrators only; anonymous callers are
// 401, other users 403, for reading and writing alike.
func TestSettingsPermissions(t *testing.T) {
	t.Parallel()
	c := apptest.New(t).Client(t)
	_, user := c.User("alice")
	for _, m := range []string{"GET", "PUT"} {
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, m, settingsPath, "", apptest.Form("signup_enabled", "false"))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, m, settingsPath, user, apptest.Form("signup_enabled", "false"))
	}
	c.Expect(200, "GET", settingsPath, c.Srv.RootToken, nil)
	got := c.Expect(200, "GET", settingsPath, c.Srv.RootToken, nil).Object(t)
	if got["signup_enabled"] != true {
		t.Fatalf("a refused PUT changed the settings: %v", got["signup_enabled"])
	}
}

// TestSettingsDefaultsAndRoundTrip reads GitLab 9.x's defaults, then
// changes settings with a form and with JSON, on both databases.
func TestSettingsDefaultsAndRoundTrip(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		r := c.Expect(200, "GET", settingsPath, root, nil)
		got := r.Object(t)
		created := got["created_at"]
		delete(got, "created_at")
		delete(got, "updated_at")
		want := map[string]any{
			"id": 1.0, "default_projects_limit": 100000.0, "signup_enabled": true, "signin_enabled": true,
			"gravatar_enabled": true, "sign_in_text": nil, "after_sign_up_text": nil, "home_page_url": nil,
			"default_branch_protection": 2.0, "restricted_visibility_levels": []any{}, "max_attachment_size": 10.0,
			"session_expire_delay": 10080.0, "default_project_visibility": "private",
			"default_snippet_visibility": "private", "default_group_visibility": "private",
			"domain_whitelist": []any{}, "domain_blacklist_enabled": false, "domain_blacklist": []any{},
			"user_oauth_applications": true, "after_sign_out_path": nil, "container_registry_token_expire_delay": 5.0,
			"repository_storages": []any{"default"}, "koding_enabled": false, "koding_url": nil,
			"plantuml_enabled": false, "plantuml_url": nil, "terminal_max_session_time": 0.0,
			"polling_interval_multiplier": 1.0, "rsa_key_restriction": 0.0, "dsa_key_restriction": 0.0,
			"ecdsa_key_restriction": 0.0, "ed25519_key_restriction": 0.0,
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("defaults:\n got %v\nwant %v", got, want)
		}

		c.Srv.Advance(time.Second)
		form := apptest.Form("default_projects_limit", "50", "signup_enabled", "false", "sign_in_text", "Hello",
			"restricted_visibility_levels[]", "public", "restricted_visibility_levels[]", "10",
			"default_project_visibility", "internal", "default_group_visibility", "20",
			"domain_blacklist_enabled", "true", "domain_blacklist", "spam.com, *.evil.org",
			"home_page_url", "https://example.com/home", "polling_interval_multiplier", "1.5",
			"koding_enabled", "true", "koding_url", "http://koding.example.com")
		put := c.Expect(200, "PUT", settingsPath, root, form).Object(t)
		for k, v := range map[string]any{
			"default_projects_limit": 50.0, "signup_enabled": false, "sign_in_text": "Hello",
			"restricted_visibility_levels": []any{"public", "internal"}, "default_project_visibility": "internal",
			"default_group_visibility": "public", "domain_blacklist_enabled": true,
			"domain_blacklist": []any{"spam.com", "*.evil.org"}, "home_page_url": "https://example.com/home",
			"polling_interval_multiplier": 1.5, "koding_enabled": true, "koding_url": "http://koding.example.com",
			"created_at": created,
		} {
			if fmt.Sprint(put[k]) != fmt.Sprint(v) {
				t.Errorf("after PUT %s = %v, want %v", k, put[k], v)
			}
		}
		if put["updated_at"] == created {
			t.Errorf("updated_at did not move: %v", put["updated_at"])
		}
		// JSON body; password_authentication_enabled is 10.x's name of
		// signin_enabled; an empty list clears the restrictions.
		c.Expect(200, "PUT", settingsPath, root, map[string]any{
			"password_authentication_enabled": false, "restricted_visibility_levels": []string{}, "gravatar_enabled": false,
		})
		again := c.Expect(200, "GET", settingsPath, root, nil).Object(t)
		if again["signin_enabled"] != false || again["gravatar_enabled"] != false ||
			fmt.Sprint(again["restricted_visibility_levels"]) != "[]" || again["default_projects_limit"] != 50.0 {
			t.Fatalf("after JSON PUT: %v", again)
		}
	}, apptest.BranchProtection())
}

// TestSettingsValidation: Grape's parameter errors and the model's field
// errors, in GitLab's shapes, and nothing saved.
func TestSettingsValidation(t *testing.T) {
	t.Parallel()
	c := apptest.New(t).Client(t)
	root := c.Srv.RootToken
	for _, tc := range []struct {
		body any
		want string
	}{
		{apptest.Form("default_projects_limit", "-1"),
			`{"message":{"default_projects_limit":["must be greater than or equal to 0"]}}`},
		{apptest.Form("default_projects_limit", "many"), `{"error":"default_projects_limit is invalid"}`},
		{apptest.Form("default_branch_protection", "3"), `{"error":"default_branch_protection does not have a valid value"}`},
		{apptest.Form("default_project_visibility", "secret"), `{"error":"default_project_visibility does not have a valid value"}`},
		{apptest.Form("koding_enabled", "true"), `{"error":"koding_url is missing"}`},
		{apptest.Form("plantuml_enabled", "true"), `{"error":"plantuml_url is missing"}`},
		{apptest.Form("domain_blacklist_enabled", "true"), `{"error":"domain_blacklist is missing"}`},
		{map[string]any{"restricted_visibility_levels": []string{"secret"}, "max_attachment_size": 0, "home_page_url": "not a url"},
			`{"message":{"restricted_visibility_levels":["'secret' is not a valid visibility level"],` +
				`"max_attachment_size":["must be greater than 0"],"home_page_url":["must be a valid URL"]}}`},
		{apptest.Form("repository_storages", "elsewhere"), `{"message":{"repository_storages":["can't include: elsewhere"]}}`},
		{apptest.Form("rsa_key_restriction", "1000"), `{"message":{"rsa_key_restriction":["is not included in the list"]}}`},
		{apptest.Form("plantuml_enabled", "true", "plantuml_url", ""), `{"message":{"plantuml_url":["can't be blank"]}}`},
	} {
		c.ExpectBody(400, tc.want, "PUT", settingsPath, root, tc.body)
	}
	r := c.Expect(400, "PUT", settingsPath, root, nil).Object(t)
	if msg, _ := r["error"].(string); !strings.HasPrefix(msg, "default_branch_protection, ") ||
		!strings.HasSuffix(msg, " are missing, at least one parameter must be provided") {
		t.Fatalf("no parameters: %v", r)
	}
	got := c.Expect(200, "GET", settingsPath, root, nil).Object(t)
	if got["default_projects_limit"] != 100000.0 || got["koding_enabled"] != false || got["max_attachment_size"] != 10.0 {
		t.Fatalf("a refused PUT changed the settings: %v", got)
	}
}

// TestSettingsTakeEffect: the settings Hearth honours change what the API
// does, at once on the node that saved them.
func TestSettingsTakeEffect(t *testing.T) {
	t.Parallel()
	c := apptest.New(t).Client(t)
	root := c.Srv.RootToken
	_, user := c.User("bob")
	c.Expect(200, "PUT", settingsPath, root, apptest.Form("default_project_visibility", "internal",
		"default_group_visibility", "public", "restricted_visibility_levels[]", "public", "default_projects_limit", "3"))

	t.Run("default visibility", func(t *testing.T) {
		if p := c.Project(user, "name", "defaulted"); p["visibility"] != "internal" {
			t.Errorf("project visibility %v, want internal", p["visibility"])
		}
		// The default is restricted too: only an admin gets it.
		c.ExpectBody(400, `{"message":{"visibility_level":["public has been restricted by your GitLab administrator"]}}`,
			"POST", "/groups", user, apptest.Form("name", "g1", "path", "g1"))
		if g := c.Group(root, "name", "g2", "path", "g2"); g["visibility"] != "public" {
			t.Errorf("group visibility %v, want public", g["visibility"])
		}
	})

	t.Run("restricted visibility", func(t *testing.T) {
		restricted := `{"message":{"visibility_level":["public has been restricted by your GitLab administrator"]}}`
		c.ExpectBody(400, restricted, "POST", "/projects", user, apptest.Form("name", "open", "visibility", "public"))
		p := c.Project(user, "name", "closed", "visibility", "private")
		c.ExpectBody(400, restricted, "PUT", fmt.Sprintf("/projects/%d", apptest.ID(p)), user, apptest.Form("visibility", "public"))
		g := c.Group(user, "name", "mine", "path", "mine", "visibility", "private")
		c.ExpectBody(400, restricted, "PUT", fmt.Sprintf("/groups/%d", apptest.ID(g)), user, apptest.Form("visibility", "public"))
		snippet := apptest.Form("title", "s", "file_name", "s.txt", "content", "x", "visibility", "public")
		c.ExpectBody(400, restricted, "POST", "/snippets", user, snippet)
		sn := c.Expect(201, "POST", "/snippets", user, apptest.Form("title", "s", "file_name", "s.txt", "content", "x", "visibility", "private")).Object(t)
		c.ExpectBody(400, restricted, "PUT", fmt.Sprintf("/snippets/%d", apptest.ID(sn)), user, apptest.Form("visibility", "public"))
		c.ExpectBody(400, restricted, "POST", fmt.Sprintf("/projects/%d/snippets", apptest.ID(p)), user,
			apptest.Form("title", "s", "file_name", "s.txt", "code", "x", "visibility", "public"))
		// Administrators are not restricted.
		ap := c.Project(root, "name", "admin-open", "visibility", "public")
		if ap["visibility"] != "public" {
			t.Errorf("admin project visibility %v", ap["visibility"])
		}
		c.Expect(201, "POST", "/snippets", root, snippet)
		// A fork of a project at a restricted level gets the highest
		// level allowed (GitLab's ForkService).
		f := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(ap)), user, nil).Object(t)
		if f["visibility"] != "internal" {
			t.Errorf("fork visibility %v, want internal", f["visibility"])
		}
	})

	t.Run("default projects limit", func(t *testing.T) {
		u := c.Expect(201, "POST", "/users", root, apptest.Form("username", "carol", "email", "carol@example.com",
			"name", "Carol", "password", "secret-carol")).Object(t)
		if u["projects_limit"] != 3.0 {
			t.Errorf("projects_limit %v, want 3", u["projects_limit"])
		}
		u = c.Expect(201, "POST", "/users", root, apptest.Form("username", "dave", "email", "dave@example.com",
			"name", "Dave", "password", "secret-dave", "projects_limit", "9")).Object(t)
		if u["projects_limit"] != 9.0 {
			t.Errorf("given projects_limit %v, want 9", u["projects_limit"])
		}
	})
}

// TestSettingsSigninDisabled: password sign-in (POST /session, git over
// HTTP with a password) is refused; tokens keep working.
func TestSettingsSigninDisabled(t *testing.T) {
	t.Parallel()
	c := apptest.New(t).Client(t)
	root := c.Srv.RootToken
	_, user := c.User("erin")
	p := c.Project(user, "name", "code", "visibility", "private")
	c.Expect(201, "POST", "/session", "", apptest.Form("login", "erin", "password", "secret-erin"))
	c.Expect(200, "PUT", settingsPath, root, apptest.Form("signin_enabled", "false"))
	c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/session", "", apptest.Form("login", "erin", "password", "secret-erin"))
	c.Expect(200, "GET", "/user", user, nil)

	refs := func(secret string) int {
		req, err := http.NewRequest("GET", c.Srv.URL+"/erin/"+p["path"].(string)+".git/info/refs?service=git-upload-pack", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("erin", secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := refs("secret-erin"); got != 401 {
		t.Errorf("git with a password: %d, want 401", got)
	}
	if got := refs(user); got != 200 {
		t.Errorf("git with a token: %d, want 200", got)
	}
	c.Expect(200, "PUT", settingsPath, root, apptest.Form("signin_enabled", "true"))
	c.Expect(201, "POST", "/session", "", apptest.Form("login", "erin", "password", "secret-erin"))
}

// TestSettingsSharedAcrossNodes: two nodes on one database; a change saved
// on one reaches the other once its cache expires.
func TestSettingsSharedAcrossNodes(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	b := apptest.New(t, apptest.At(a.Config.DataDir, a.Config.Storage.DSN))
	ca, cb := a.Client(t), b.Client(t)
	_, userA := ca.User("frank")
	// b reads (and caches) the settings before a changes them.
	cb.Expect(201, "POST", "/session", "", apptest.Form("login", "frank", "password", "secret-frank"))
	ca.Expect(200, "PUT", settingsPath, a.RootToken, apptest.Form("signin_enabled", "false"))
	ca.Expect(401, "POST", "/session", "", apptest.Form("login", "frank", "password", "secret-frank"))
	// Within cacheTTL b serves its cached settings without reading them.
	b.QueryLog() // starts the log
	cb.Expect(201, "POST", "/session", "", apptest.Form("login", "frank", "password", "secret-frank"))
	queries := b.QueryLog()
	if len(queries) == 0 {
		t.Fatal("no queries logged")
	}
	for _, q := range queries {
		if strings.Contains(q, "application_settings") {
			t.Errorf("a cached read queried the settings: %s", q)
		}
	}
	b.Advance(10 * time.Second)
	cb.Expect(401, "POST", "/session", "", apptest.Form("login", "frank", "password", "secret-frank"))
	cb.Expect(200, "GET", "/user", userA, nil)
}
