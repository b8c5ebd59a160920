package contracttests

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// APIServerFactory starts a fresh server for one subtest. Advance, when the
// server supports it, moves the server's clock forward.
type APIServerFactory func(t *testing.T) (APIServer, func(time.Duration))

// RunAPISuite drives the HTTP API as GitLab clients do. Every subtest gets
// a fresh server; every response is checked for a GitLab-shaped status and
// exactly "application/json", and no request may answer 500. The subtests
// run in parallel (t.Parallel), so newServer is called from several
// goroutines at once.
func RunAPISuite(t *testing.T, newServer APIServerFactory) {
	cases := []struct {
		name string
		fn   func(t *testing.T, c apiClient, advance func(time.Duration))
	}{
		{"Meta", apiMeta},
		{"Session", apiSession},
		{"CurrentUserAndSudo", apiCurrentUser},
		{"CreateUser", apiCreateUser},
		{"GetUser", apiGetUser},
		{"ListUsersPaginatesAndFilters", apiListUsers},
		{"UpdateUser", apiUpdateUser},
		{"DeleteUser", apiDeleteUser},
		{"SSHKeys", apiKeys},
		{"Emails", apiEmails},
		{"BlockUnblock", apiBlock},
		{"ImpersonationTokens", apiImpersonation},
		{"PersonalAccessTokens", apiPersonalTokens},
		{"Activities", apiActivities},
		{"Events", apiEvents},
		{"SignInLockout", apiLockout},
		{"ProjectsLifecycle", apiProjectsLifecycle},
		{"GroupsAndMembers", apiGroupsAndMembers},
		{"MergeRequests", apiMergeRequests},
		{"IssuesNotesSnippets", apiIssuesNotesSnippets},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, advance := newServer(t)
			tc.fn(t, apiClient{t: t, srv: srv}, advance)
		})
	}
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// newUser creates a user as root and returns its ID and an api token.
func newUser(c apiClient, username string) (int64, string) {
	c.t.Helper()
	u := c.expect(201, "POST", "/users", c.srv.RootToken, form(
		"username", username, "email", username+"@example.com", "name", strings.ToUpper(username), "password", "secret-"+username)).object(c.t)
	id := int64(u["id"].(float64))
	tok := c.expect(201, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", id), c.srv.RootToken,
		form("name", "t", "scopes[]", "api")).object(c.t)
	return id, tok["token"].(string)
}

func wantKeys(t *testing.T, obj map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("missing field %q in %v", k, obj)
		}
	}
}

func wantNoKeys(t *testing.T, obj map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := obj[k]; ok {
			t.Errorf("field %q must not be shown: %v", k, obj)
		}
	}
}

// wantError checks a 400 request-validation body lists every message.
func wantError(t *testing.T, r reply, msgs ...string) {
	t.Helper()
	m := r.object(t)
	s, _ := m["error"].(string)
	for _, msg := range msgs {
		if !strings.Contains(s, msg) {
			t.Errorf("error %q lacks %q", s, msg)
		}
	}
}

// wantField checks a 400 model-validation body names field.
func wantField(t *testing.T, r reply, field, msg string) {
	t.Helper()
	m, ok := r.object(t)["message"].(map[string]any)
	if !ok {
		t.Fatalf("want a field map, got %s", r.body)
	}
	list, _ := m[field].([]any)
	for _, x := range list {
		if msg == "" || x == msg {
			return
		}
	}
	t.Errorf("field %q lacks %q: %s", field, msg, r.body)
}

var isoTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func apiMeta(t *testing.T, c apiClient, _ func(time.Duration)) {
	c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/version", "", nil)
	v := c.expect(200, "GET", "/version", c.srv.RootToken, nil).object(t)
	if v["version"] != "9.5.10-hearth" || v["revision"] == "" {
		t.Errorf("version %v", v)
	}
	for _, p := range []string{"/-/health", "/-/readiness", "/-/liveness"} {
		c.expect(200, "GET", p, "", nil)
	}
	c.expectBody(404, `{"error":"404 Not Found"}`, "GET", "/no/such/route", c.srv.RootToken, nil)
}

func apiSession(t *testing.T, c apiClient, _ func(time.Duration)) {
	s := c.expect(201, "POST", "/session", "", form("login", "root", "password", c.srv.RootPassword)).object(t)
	wantKeys(t, s, "id", "username", "name", "state", "avatar_url", "created_at", "bio", "skype", "linkedin",
		"twitter", "website_url", "email", "color_scheme_id", "projects_limit", "current_sign_in_at",
		"identities", "can_create_group", "can_create_project", "two_factor_enabled", "is_admin", "private_token")
	if s["is_admin"] != true || s["username"] != "root" {
		t.Errorf("session %v", s)
	}
	tok := s["private_token"].(string)
	if len(tok) < 20 {
		t.Errorf("private token %q too short", tok)
	}
	u := c.expect(200, "GET", "/user", tok, nil).object(t)
	if u["username"] != "root" {
		t.Errorf("token from session is %v", u["username"])
	}
	// email login, JSON body.
	email := u["email"].(string)
	c.expect(201, "POST", "/session", "", map[string]string{"email": strings.ToUpper(email), "password": c.srv.RootPassword})
	c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/session", "", form("login", "root", "password", "wrong"))
	c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/session", "", form("login", "nobody", "password", "whatever1"))
	wantError(t, c.expect(400, "POST", "/session", "", form("login", "root")), "password is missing")
	c.expect(400, "POST", "/session", "", form("password", "x"))
}

func apiCurrentUser(t *testing.T, c apiClient, _ func(time.Duration)) {
	c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", "", nil)
	c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", "not-a-token", nil)
	root := c.expect(200, "GET", "/user", c.srv.RootToken, nil).object(t)
	wantKeys(t, root, "id", "username", "name", "state", "avatar_url", "web_url", "created_at", "bio", "location",
		"skype", "linkedin", "twitter", "website_url", "organization", "email", "is_admin", "last_sign_in_at",
		"confirmed_at", "last_activity_on", "color_scheme_id", "projects_limit", "current_sign_in_at",
		"identities", "can_create_group", "can_create_project", "two_factor_enabled", "external", "private_token")
	if root["is_admin"] != true || root["private_token"] != c.srv.RootToken {
		t.Errorf("admin view of /user: %v", root)
	}
	if !isoTime.MatchString(root["created_at"].(string)) {
		t.Errorf("created_at %q is not GitLab's timestamp format", root["created_at"])
	}
	if !strings.HasPrefix(root["web_url"].(string), "http") || !strings.HasSuffix(root["web_url"].(string), "/root") {
		t.Errorf("web_url %v", root["web_url"])
	}
	id, tok := newUser(c, "alice")
	me := c.expect(200, "GET", "/user", tok, nil).object(t)
	if me["username"] != "alice" || me["email"] != "alice@example.com" {
		t.Errorf("alice's /user: %v", me)
	}
	if pt, ok := me["private_token"]; ok && pt != nil {
		t.Errorf("non-admins never see private_token: %v", pt)
	}
	// sudo by ID and by username, parameter and header.
	as := c.expect(200, "GET", "/user?sudo=alice", c.srv.RootToken, nil).object(t)
	if as["username"] != "alice" {
		t.Errorf("sudo by username: %v", as["username"])
	}
	as = c.expect(200, "GET", fmt.Sprintf("/user?sudo=%d", id), c.srv.RootToken, nil).object(t)
	if as["username"] != "alice" {
		t.Errorf("sudo by id: %v", as["username"])
	}
	c.expectBody(403, `{"message":"403 Forbidden - Must be admin to use sudo"}`, "GET", "/user?sudo=root", tok, nil)
	c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/user?sudo=ghost", c.srv.RootToken, nil)
}

func apiCreateUser(t *testing.T, c apiClient, _ func(time.Duration)) {
	u := c.expect(201, "POST", "/users", c.srv.RootToken, form("username", "bob", "email", "bob@example.com",
		"name", "Bob", "password", "password1", "bio", "hi", "projects_limit", "7", "admin", "false",
		"can_create_group", "true", "external", "true", "extern_uid", "uid-1", "provider", "ldapmain")).object(t)
	wantKeys(t, u, "id", "username", "email", "is_admin", "projects_limit", "identities", "external", "can_create_group")
	if u["username"] != "bob" || u["projects_limit"] != float64(7) || u["external"] != true || u["is_admin"] != false || u["bio"] != "hi" {
		t.Errorf("created %v", u)
	}
	ids, _ := u["identities"].([]any)
	if len(ids) != 1 || ids[0].(map[string]any)["extern_uid"] != "uid-1" {
		t.Errorf("identities %v", u["identities"])
	}
	// JSON bodies work the same.
	c.expect(201, "POST", "/users", c.srv.RootToken, map[string]any{"username": "carol", "email": "carol@example.com", "name": "Carol", "password": "password1", "admin": true})
	wantError(t, c.expect(400, "POST", "/users", c.srv.RootToken, form("name", "x")), "email is missing", "username is missing")
	wantError(t, c.expect(400, "POST", "/users", c.srv.RootToken, form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "password1", "projects_limit", "lots")), "projects_limit is invalid")
	wantError(t, c.expect(400, "POST", "/users", c.srv.RootToken, form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "password1", "admin", "maybe")), "admin is invalid")
	c.expect(400, "POST", "/users", c.srv.RootToken, form("username", "dan", "email", "dan@example.com", "name", "Dan"))
	wantField(t, c.expect(400, "POST", "/users", c.srv.RootToken, form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "short")), "password", "")
	wantField(t, c.expect(400, "POST", "/users", c.srv.RootToken, form("username", "dan", "email", "not-an-email", "name", "Dan", "password", "password1")), "email", "")
	wantField(t, c.expect(400, "POST", "/users", c.srv.RootToken, form("username", "-dan", "email", "dan@example.com", "name", "Dan", "password", "password1")), "username", "")
	c.expectBody(409, `{"message":"Username has already been taken"}`, "POST", "/users", c.srv.RootToken,
		form("username", "BOB", "email", "other@example.com", "name", "B", "password", "password1"))
	c.expectBody(409, `{"message":"Email has already been taken"}`, "POST", "/users", c.srv.RootToken,
		form("username", "bob2", "email", "Bob@Example.com", "name", "B", "password", "password1"))
	_, tok := newUser(c, "eve")
	c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", "/users", tok, form("username", "x", "email", "x@example.com", "name", "x", "password", "password1"))
	c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/users", "", form("username", "x", "email", "x@example.com", "name", "x", "password", "password1"))
}

func apiGetUser(t *testing.T, c apiClient, _ func(time.Duration)) {
	id, tok := newUser(c, "frank")
	_, other := newUser(c, "grace")
	admin := c.expect(200, "GET", fmt.Sprintf("/users/%d", id), c.srv.RootToken, nil).object(t)
	wantKeys(t, admin, "email", "is_admin", "last_sign_in_at", "identities", "projects_limit")
	pub := c.expect(200, "GET", fmt.Sprintf("/users/%d", id), other, nil).object(t)
	wantKeys(t, pub, "id", "username", "name", "state", "avatar_url", "web_url", "created_at", "bio", "location",
		"skype", "linkedin", "twitter", "website_url", "organization")
	wantNoKeys(t, pub, "email", "is_admin", "private_token", "projects_limit")
	if pub["state"] != "active" {
		t.Errorf("state %v", pub["state"])
	}
	self := c.expect(200, "GET", fmt.Sprintf("/users/%d", id), tok, nil).object(t)
	if self["username"] != "frank" {
		t.Errorf("self %v", self)
	}
	c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999", c.srv.RootToken, nil)
	c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/abc", c.srv.RootToken, nil)
}

func apiListUsers(t *testing.T, c apiClient, _ func(time.Duration)) {
	const n = 105
	for i := 0; i < n; i++ {
		c.expect(201, "POST", "/users", c.srv.RootToken, form("username", fmt.Sprintf("user%03d", i),
			"email", fmt.Sprintf("user%03d@example.com", i), "name", fmt.Sprintf("User %d", i), "password", "password1"))
	}
	seen := map[string]bool{}
	next := "/users?per_page=100"
	pages := 0
	for next != "" {
		r := c.expect(200, "GET", next, c.srv.RootToken, nil)
		pages++
		if r.header.Get("X-Total") != fmt.Sprint(n+1) || r.header.Get("X-Total-Pages") != "2" || r.header.Get("X-Per-Page") != "100" {
			t.Fatalf("headers %v", r.header)
		}
		for _, u := range r.list(t) {
			name := u["username"].(string)
			if seen[name] {
				t.Fatalf("%s on two pages", name)
			}
			seen[name] = true
			wantKeys(t, u, "email", "is_admin")
		}
		next = ""
		for _, part := range strings.Split(r.header.Get("Link"), ",") {
			if strings.Contains(part, `rel="next"`) {
				next = strings.Trim(strings.TrimSpace(strings.Split(part, ";")[0]), "<>")
				if !strings.HasPrefix(next, "http") {
					t.Fatalf("Link URL is not absolute: %q", next)
				}
			}
		}
		if pages > 3 {
			t.Fatal("pagination does not end")
		}
	}
	if len(seen) != n+1 || pages != 2 {
		t.Fatalf("walked %d users on %d pages", len(seen), pages)
	}
	// Ordinary callers get brief users.
	_, tok := newUser(c, "heidi")
	brief := c.expect(200, "GET", "/users?username=user007", tok, nil).list(t)
	if len(brief) != 1 || brief[0]["username"] != "user007" {
		t.Fatalf("username filter: %v", brief)
	}
	wantNoKeys(t, brief[0], "email", "is_admin")
	if l := c.expect(200, "GET", "/users?search=USER10", c.srv.RootToken, nil).list(t); len(l) != 5 {
		t.Errorf("search USER10: %d results", len(l))
	}
	if l := c.expect(200, "GET", "/users?search=user100@example", c.srv.RootToken, nil).list(t); len(l) != 1 {
		t.Errorf("search by email: %d results", len(l))
	}
	blocked := c.expect(200, "GET", "/users?username=user050", c.srv.RootToken, nil).list(t)[0]
	c.expect(201, "POST", fmt.Sprintf("/users/%v/block", blocked["id"]), c.srv.RootToken, nil)
	if l := c.expect(200, "GET", "/users?blocked=true", c.srv.RootToken, nil).list(t); len(l) != 1 || l[0]["username"] != "user050" {
		t.Errorf("blocked=true: %v", l)
	}
	r := c.expect(200, "GET", "/users?active=true&per_page=1", c.srv.RootToken, nil)
	if r.header.Get("X-Total") != fmt.Sprint(n+1) { // n+2 users, one blocked
		t.Errorf("active=true total %s", r.header.Get("X-Total"))
	}
	if l := c.expect(200, "GET", "/users?created_after=2999-01-01T00:00:00Z", c.srv.RootToken, nil).list(t); len(l) != 0 {
		t.Errorf("created_after future: %d", len(l))
	}
	if l := c.expect(200, "GET", "/users?created_before=2999-01-01T00:00:00Z&per_page=5", c.srv.RootToken, nil).list(t); len(l) != 5 {
		t.Errorf("created_before future: %d", len(l))
	}
	c.expect(400, "GET", "/users?per_page=many", c.srv.RootToken, nil)
	c.expect(400, "GET", "/users?created_after=yesterday", c.srv.RootToken, nil)
	c.expect(401, "GET", "/users", "", nil)
}

func apiUpdateUser(t *testing.T, c apiClient, _ func(time.Duration)) {
	id, _ := newUser(c, "ivan")
	newUser(c, "judy")
	u := c.expect(200, "PUT", fmt.Sprintf("/users/%d", id), c.srv.RootToken, form("name", "Ivan the Great", "projects_limit", "3", "admin", "true")).object(t)
	if u["name"] != "Ivan the Great" || u["projects_limit"] != float64(3) || u["is_admin"] != true || u["email"] != "ivan@example.com" {
		t.Errorf("updated %v", u)
	}
	c.expectBody(409, `{"message":"Email has already been taken"}`, "PUT", fmt.Sprintf("/users/%d", id), c.srv.RootToken, form("email", "judy@example.com"))
	c.expectBody(409, `{"message":"Username has already been taken"}`, "PUT", fmt.Sprintf("/users/%d", id), c.srv.RootToken, form("username", "judy"))
	c.expect(400, "PUT", fmt.Sprintf("/users/%d", id), c.srv.RootToken, form("projects_limit", "x"))
	c.expectBody(404, `{"message":"404 User Not Found"}`, "PUT", "/users/999999", c.srv.RootToken, form("name", "x"))
	// Ivan is an administrator now, so use a fresh non-admin.
	_, other := newUser(c, "mallory")
	c.expect(403, "PUT", fmt.Sprintf("/users/%d", id), other, form("name", "x"))
	// The new password works.
	c.expect(200, "PUT", fmt.Sprintf("/users/%d", id), c.srv.RootToken, form("password", "brand-new-pass"))
	c.expect(201, "POST", "/session", "", form("login", "ivan", "password", "brand-new-pass"))
	c.expect(401, "POST", "/session", "", form("login", "ivan", "password", "secret-ivan"))
}

func apiDeleteUser(t *testing.T, c apiClient, _ func(time.Duration)) {
	id, tok := newUser(c, "kim")
	c.expect(201, "POST", "/user/keys", tok, form("title", "k", "key", NewSSHKey("kim@host")))
	d := c.expect(200, "DELETE", fmt.Sprintf("/users/%d", id), c.srv.RootToken, nil)
	if d.object(t)["username"] != "kim" {
		t.Errorf("delete body %s", d.body)
	}
	again := c.expect(200, "DELETE", fmt.Sprintf("/users/%d", id), c.srv.RootToken, nil)
	if s := strings.TrimSpace(string(again.body)); s != "" && s != "null" && s != "{}" {
		t.Errorf("second delete body %q", s)
	}
	c.expect(200, "DELETE", "/users/999999", c.srv.RootToken, nil)
	c.expect(401, "GET", "/user", tok, nil)
	c.expect(404, "GET", fmt.Sprintf("/users/%d", id), c.srv.RootToken, nil)
	_, other := newUser(c, "lee")
	c.expect(403, "DELETE", "/users/1", other, nil)
}

func apiKeys(t *testing.T, c apiClient, _ func(time.Duration)) {
	id, tok := newUser(c, "nina")
	_, other := newUser(c, "oscar")
	key := NewSSHKey("nina@laptop")
	k := c.expect(201, "POST", "/user/keys", tok, form("title", "laptop", "key", key)).object(t)
	wantKeys(t, k, "id", "title", "key", "created_at")
	if k["title"] != "laptop" || !strings.HasPrefix(k["key"].(string), "ssh-ed25519 ") {
		t.Errorf("key %v", k)
	}
	kid := int64(k["id"].(float64))
	// The same key for someone else: fingerprint taken.
	wantField(t, c.expect(400, "POST", "/user/keys", other, form("title", "stolen", "key", key)), "fingerprint", "has already been taken")
	wantField(t, c.expect(400, "POST", "/user/keys", tok, form("title", "bad", "key", "ssh-ed25519 AAAAnot-base64!!")), "key", "")
	wantField(t, c.expect(400, "POST", "/user/keys", tok, form("title", "bad", "key", "ssh-rsa "+strings.Fields(key)[1])), "key", "")
	wantError(t, c.expect(400, "POST", "/user/keys", tok, form("key", NewSSHKey("x"))), "title is missing")
	wantError(t, c.expect(400, "POST", "/user/keys", tok, form("title", "x")), "key is missing")
	if l := c.expect(200, "GET", "/user/keys", tok, nil).list(t); len(l) != 1 {
		t.Errorf("own keys %v", l)
	}
	c.expect(200, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
	c.expectBody(404, `{"message":"404 Key Not Found"}`, "GET", fmt.Sprintf("/user/keys/%d", kid), other, nil)
	full := c.expect(200, "GET", fmt.Sprintf("/keys/%d", kid), c.srv.RootToken, nil).object(t)
	if u, _ := full["user"].(map[string]any); u == nil || u["username"] != "nina" {
		t.Errorf("GET /keys/:id user %v", full["user"])
	}
	c.expect(403, "GET", fmt.Sprintf("/keys/%d", kid), tok, nil)
	c.expect(404, "GET", "/keys/999999", c.srv.RootToken, nil)
	// Admin views of another user's keys.
	if l := c.expect(200, "GET", fmt.Sprintf("/users/%d/keys", id), c.srv.RootToken, nil).list(t); len(l) != 1 {
		t.Errorf("admin list %v", l)
	}
	c.expect(403, "GET", fmt.Sprintf("/users/%d/keys", id), other, nil)
	k2 := c.expect(201, "POST", fmt.Sprintf("/users/%d/keys", id), c.srv.RootToken, form("title", "ci", "key", NewSSHKey("ci"))).object(t)
	c.expect(404, "POST", "/users/999999/keys", c.srv.RootToken, form("title", "ci", "key", NewSSHKey("ci")))
	c.expect(200, "DELETE", fmt.Sprintf("/users/%d/keys/%v", id, k2["id"]), c.srv.RootToken, nil)
	c.expect(404, "DELETE", fmt.Sprintf("/users/%d/keys/%v", id, k2["id"]), c.srv.RootToken, nil)
	c.expect(404, "DELETE", fmt.Sprintf("/users/999999/keys/%d", kid), c.srv.RootToken, nil)
	// Own deletes are idempotent; another user's key is untouched.
	c.expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), other, nil)
	c.expect(200, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
	c.expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
	c.expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
	c.expect(404, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
	c.expect(401, "GET", "/user/keys", "", nil)
}

func apiEmails(t *testing.T, c apiClient, _ func(time.Duration)) {
	id, tok := newUser(c, "peggy")
	_, other := newUser(c, "quinn")
	e := c.expect(201, "POST", "/user/emails", tok, form("email", "peggy.work@example.com")).object(t)
	if e["email"] != "peggy.work@example.com" || e["id"] == nil {
		t.Errorf("email %v", e)
	}
	eid := int64(e["id"].(float64))
	wantField(t, c.expect(400, "POST", "/user/emails", other, form("email", "PEGGY.work@example.com")), "email", "has already been taken")
	wantField(t, c.expect(400, "POST", "/user/emails", other, form("email", "peggy@example.com")), "email", "has already been taken")
	wantField(t, c.expect(400, "POST", "/user/emails", tok, form("email", "quinn@example.com")), "email", "has already been taken")
	wantField(t, c.expect(400, "POST", "/user/emails", tok, form("email", "nope")), "email", "")
	wantError(t, c.expect(400, "POST", "/user/emails", tok, nil), "email is missing")
	// A new user may not take a secondary address either.
	c.expect(409, "POST", "/users", c.srv.RootToken, form("username", "ray", "email", "peggy.work@example.com", "name", "R", "password", "password1"))
	if l := c.expect(200, "GET", "/user/emails", tok, nil).list(t); len(l) != 1 || l[0]["email"] != "peggy.work@example.com" {
		t.Errorf("own emails %v", l)
	}
	c.expect(200, "GET", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
	c.expectBody(404, `{"message":"404 Email Not Found"}`, "GET", fmt.Sprintf("/user/emails/%d", eid), other, nil)
	if l := c.expect(200, "GET", fmt.Sprintf("/users/%d/emails", id), c.srv.RootToken, nil).list(t); len(l) != 1 {
		t.Errorf("admin list %v", l)
	}
	c.expect(403, "GET", fmt.Sprintf("/users/%d/emails", id), other, nil)
	e2 := c.expect(201, "POST", fmt.Sprintf("/users/%d/emails", id), c.srv.RootToken, form("email", "peggy.home@example.com")).object(t)
	c.expect(404, "POST", "/users/999999/emails", c.srv.RootToken, form("email", "z@example.com"))
	c.expect(200, "DELETE", fmt.Sprintf("/users/%d/emails/%v", id, e2["id"]), c.srv.RootToken, nil)
	c.expect(404, "DELETE", fmt.Sprintf("/users/%d/emails/%v", id, e2["id"]), c.srv.RootToken, nil)
	c.expect(200, "DELETE", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
	c.expect(200, "DELETE", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
	// Freed addresses can be taken again.
	c.expect(201, "POST", "/user/emails", other, form("email", "peggy.work@example.com"))
}

func apiBlock(t *testing.T, c apiClient, _ func(time.Duration)) {
	id, tok := newUser(c, "sam")
	c.expect(201, "POST", "/session", "", form("login", "sam", "password", "secret-sam"))
	c.expect(200, "GET", "/user", tok, nil)
	r := c.expect(201, "POST", fmt.Sprintf("/users/%d/block", id), c.srv.RootToken, nil)
	if strings.TrimSpace(string(r.body)) != "true" {
		t.Errorf("block body %q", r.body)
	}
	// Every channel stops at once.
	c.expect(401, "GET", "/user", tok, nil)
	c.expect(401, "POST", "/session", "", form("login", "sam", "password", "secret-sam"))
	if u := c.expect(200, "GET", fmt.Sprintf("/users/%d", id), c.srv.RootToken, nil).object(t); u["state"] != "blocked" {
		t.Errorf("state %v", u["state"])
	}
	c.expect(201, "POST", fmt.Sprintf("/users/%d/unblock", id), c.srv.RootToken, nil)
	c.expect(200, "GET", "/user", tok, nil)
	c.expect(201, "POST", "/session", "", form("login", "sam", "password", "secret-sam"))
	c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/block", c.srv.RootToken, nil)
	c.expect(404, "POST", "/users/999999/unblock", c.srv.RootToken, nil)
	c.expect(403, "POST", "/users/1/block", tok, nil)
}

func apiImpersonation(t *testing.T, c apiClient, advance func(time.Duration)) {
	id, own := newUser(c, "trent")
	base := fmt.Sprintf("/users/%d/impersonation_tokens", id)
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	tk := c.expect(201, "POST", base, c.srv.RootToken, form("name", "imp", "scopes[]", "api", "scopes[]", "read_user", "expires_at", tomorrow)).object(t)
	wantKeys(t, tk, "id", "name", "active", "revoked", "scopes", "token", "impersonation", "created_at", "expires_at")
	if tk["impersonation"] != true || tk["active"] != true || tk["revoked"] != false || tk["expires_at"] != tomorrow {
		t.Errorf("token %v", tk)
	}
	secret := tk["token"].(string)
	if me := c.expect(200, "GET", "/user", secret, nil).object(t); me["username"] != "trent" {
		t.Errorf("impersonation acts as %v", me["username"])
	}
	tid := int64(tk["id"].(float64))
	one := c.expect(200, "GET", fmt.Sprintf("%s/%d", base, tid), c.srv.RootToken, nil).object(t)
	if _, shown := one["token"]; shown {
		t.Errorf("the secret is shown only at creation: %v", one)
	}
	// newUser made one active token already.
	if l := c.expect(200, "GET", base+"?state=active", c.srv.RootToken, nil).list(t); len(l) != 2 {
		t.Errorf("active tokens %d", len(l))
	}
	// Hidden from the user's own token lists.
	c.expect(403, "GET", base, own, nil)
	c.expect(403, "POST", base, own, form("name", "x", "scopes[]", "api"))
	wantError(t, c.expect(400, "POST", base, c.srv.RootToken, form("name", "x")), "scopes is missing")
	c.expect(400, "POST", base, c.srv.RootToken, form("name", "x", "scopes[]", "root"))
	c.expect(400, "POST", base, c.srv.RootToken, form("scopes[]", "api"))
	c.expect(400, "POST", base, c.srv.RootToken, form("name", "x", "scopes[]", "api", "expires_at", "soon"))
	c.expect(404, "POST", "/users/999999/impersonation_tokens", c.srv.RootToken, form("name", "x", "scopes[]", "api"))
	c.expect(404, "GET", base+"/999999", c.srv.RootToken, nil)
	// read_user tokens read but do not write.
	ro := c.expect(201, "POST", base, c.srv.RootToken, form("name", "ro", "scopes[]", "read_user")).object(t)["token"].(string)
	c.expect(200, "GET", "/user", ro, nil)
	c.expect(403, "POST", "/user/keys", ro, form("title", "k", "key", NewSSHKey("ro")))
	// Revoke.
	rv := c.do("DELETE", fmt.Sprintf("%s/%d", base, tid), c.srv.RootToken, nil)
	if rv.status != 204 && rv.status != 200 {
		t.Fatalf("revoke: %d %s", rv.status, rv.body)
	}
	c.expect(401, "GET", "/user", secret, nil)
	if got := c.expect(200, "GET", fmt.Sprintf("%s/%d", base, tid), c.srv.RootToken, nil).object(t); got["revoked"] != true || got["active"] != false {
		t.Errorf("after revoke %v", got)
	}
	if l := c.expect(200, "GET", base+"?state=inactive", c.srv.RootToken, nil).list(t); len(l) != 1 {
		t.Errorf("inactive tokens %d", len(l))
	}
	c.expect(400, "GET", base+"?state=sleepy", c.srv.RootToken, nil)
	// Expiry: the token dies on its date.
	exp := c.expect(201, "POST", base, c.srv.RootToken, form("name", "short", "scopes[]", "api", "expires_at", tomorrow)).object(t)["token"].(string)
	c.expect(200, "GET", "/user", exp, nil)
	if advance == nil {
		t.Fatal("the server must let the suite move its clock to test expiry")
	}
	advance(48 * time.Hour)
	c.expect(401, "GET", "/user", exp, nil)
	c.expect(200, "GET", "/user", own, nil)
}

func apiPersonalTokens(t *testing.T, c apiClient, _ func(time.Duration)) {
	id, tok := newUser(c, "uma")
	base := fmt.Sprintf("/users/%d/personal_access_tokens", id)
	p := c.expect(201, "POST", base, c.srv.RootToken, form("name", "ci", "scopes[]", "api")).object(t)
	wantKeys(t, p, "id", "name", "active", "revoked", "scopes", "token", "impersonation", "created_at", "expires_at")
	if p["impersonation"] != false || p["expires_at"] != nil {
		t.Errorf("personal token %v", p)
	}
	if me := c.expect(200, "GET", "/user", p["token"].(string), nil).object(t); me["username"] != "uma" {
		t.Errorf("acts as %v", me["username"])
	}
	c.expect(403, "POST", base, tok, form("name", "ci", "scopes[]", "api"))
	c.expect(400, "POST", base, c.srv.RootToken, form("name", "ci"))
	c.expect(404, "POST", "/users/999999/personal_access_tokens", c.srv.RootToken, form("name", "ci", "scopes[]", "api"))
	// Impersonation tokens are not personal tokens.
	for _, l := range c.expect(200, "GET", base, c.srv.RootToken, nil).list(t) {
		if l["impersonation"] != false {
			t.Errorf("impersonation token in personal list: %v", l)
		}
	}
}

func apiActivities(t *testing.T, c apiClient, _ func(time.Duration)) {
	c.expect(201, "POST", "/session", "", form("login", "root", "password", c.srv.RootPassword))
	_, tok := newUser(c, "victor")
	c.expect(201, "POST", "/session", "", form("login", "victor", "password", "secret-victor"))
	l := c.expect(200, "GET", "/user/activities", c.srv.RootToken, nil).list(t)
	found := map[string]bool{}
	today := time.Now().UTC().Format("2006-01-02")
	for _, a := range l {
		wantKeys(t, a, "username", "last_activity_on", "last_activity_at")
		found[a["username"].(string)] = true
		if a["last_activity_on"] != today {
			t.Errorf("activity %v", a)
		}
	}
	if !found["root"] || !found["victor"] {
		t.Errorf("activities %v", l)
	}
	if l := c.expect(200, "GET", "/user/activities?from=2999-01-01", c.srv.RootToken, nil).list(t); len(l) != 0 {
		t.Errorf("from the future: %v", l)
	}
	c.expect(400, "GET", "/user/activities?from=last-week", c.srv.RootToken, nil)
	c.expect(403, "GET", "/user/activities", tok, nil)
	c.expect(401, "GET", "/user/activities", "", nil)
}

func apiEvents(t *testing.T, c apiClient, _ func(time.Duration)) {
	id, tok := newUser(c, "wendy")
	_, other := newUser(c, "xavier")
	own := c.expect(200, "GET", "/events", tok, nil)
	evs := own.list(t)
	if len(evs) != 1 || evs[0]["action_name"] != "joined" || evs[0]["target_type"] != "User" || evs[0]["author_username"] != "wendy" {
		t.Fatalf("events %s", own.body)
	}
	wantKeys(t, evs[0], "title", "project_id", "action_name", "target_id", "target_type", "author_id", "target_title", "created_at", "author", "author_username", "data")
	if own.header.Get("X-Total") != "1" {
		t.Errorf("X-Total %q", own.header.Get("X-Total"))
	}
	path := fmt.Sprintf("/users/%d/events", id)
	if l := c.expect(200, "GET", path, other, nil).list(t); len(l) != 1 {
		t.Errorf("user events by id: %v", l)
	}
	if l := c.expect(200, "GET", "/users/wendy/events", other, nil).list(t); len(l) != 1 {
		t.Errorf("user events by username: %v", l)
	}
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	for q, want := range map[string]int{
		"action=joined": 1, "action=pushed": 0, "target_type=user": 1, "target_type=issue": 0,
		"before=" + tomorrow: 1, "before=" + yesterday: 0, "after=" + yesterday: 1, "after=" + tomorrow: 0, "sort=asc": 1,
	} {
		if l := c.expect(200, "GET", path+"?"+q, other, nil).list(t); len(l) != want {
			t.Errorf("%s: %d events, want %d", q, len(l), want)
		}
	}
	c.expect(400, "GET", path+"?action=danced", other, nil)
	c.expect(400, "GET", path+"?target_type=spaceship", other, nil)
	c.expect(400, "GET", path+"?sort=sideways", other, nil)
	c.expect(400, "GET", path+"?before=someday", other, nil)
	c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/events", other, nil)
	c.expect(401, "GET", "/events", "", nil)
}

func apiLockout(t *testing.T, c apiClient, advance func(time.Duration)) {
	newUser(c, "yuri")
	for i := 0; i < 10; i++ {
		c.expect(401, "POST", "/session", "", form("login", "yuri", "password", "wrong-password"))
	}
	// Locked: the right password fails too.
	c.expect(401, "POST", "/session", "", form("login", "yuri", "password", "secret-yuri"))
	if advance == nil {
		t.Fatal("the server must let the suite move its clock to test the lock's end")
	}
	advance(11 * time.Minute)
	c.expect(201, "POST", "/session", "", form("login", "yuri", "password", "secret-yuri"))
	// A success resets the count: nine failures do not lock.
	for i := 0; i < 9; i++ {
		c.expect(401, "POST", "/session", "", form("login", "yuri", "password", "wrong-password"))
	}
	c.expect(201, "POST", "/session", "", form("login", "yuri", "password", "secret-yuri"))
}
