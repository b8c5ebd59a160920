package users_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// client drives one test server and fails on any 5xx, and on any JSON body
// whose Content-Type is not exactly application/json.
type client struct {
	t   *testing.T
	srv *apptest.Server
}

// eachDriver runs fn against a fresh server on SQLite and on Postgres (the
// Postgres run skips when no server answers, unless CI is set).
func eachDriver(t *testing.T, fn func(t *testing.T, c client)) {
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			fn(t, client{t: t, srv: apptest.New(t, apptest.Driver(driver))})
		})
	}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (c client) send(method, path, token string, body any, header map[string]string) reply {
	c.t.Helper()
	var rd *bytes.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case url.Values:
		rd, ctype = bytes.NewReader([]byte(b.Encode())), "application/x-www-form-urlencoded"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd, ctype = bytes.NewReader(raw), "application/json"
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequest(method, c.srv.API()+path, rd)
	} else {
		req, err = http.NewRequest(method, c.srv.API()+path, nil)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, body: buf.Bytes()}
	if r.status >= 500 {
		c.t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
	}
	if len(r.body) > 0 && resp.Header.Get("Content-Type") != "application/json" {
		c.t.Fatalf("%s %s: Content-Type %q", method, path, resp.Header.Get("Content-Type"))
	}
	return r
}

func (c client) expect(status int, method, path, token string, body any) reply {
	c.t.Helper()
	r := c.send(method, path, token, body, nil)
	if r.status != status {
		c.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, status, r.body)
	}
	return r
}

// expectBody checks the status and that the body equals want as JSON.
func (c client) expectBody(status int, want, method, path, token string, body any) {
	c.t.Helper()
	r := c.expect(status, method, path, token, body)
	if !jsonEqual(r.body, []byte(want)) {
		c.t.Fatalf("%s %s: body %s, want %s", method, path, r.body, want)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

func (r reply) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return m
}

func (r reply) list(t *testing.T) []map[string]any {
	t.Helper()
	var l []map[string]any
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return l
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

func id(m map[string]any) int64 { return int64(m["id"].(float64)) }

// user creates an ordinary user (password "secret-<name>") and returns its
// ID and an api impersonation token.
func (c client) user(name string) (int64, string) {
	c.t.Helper()
	u := c.expect(201, "POST", "/users", c.srv.RootToken, form("username", name, "email", name+"@example.com",
		"name", strings.ToUpper(name), "password", "secret-"+name)).object(c.t)
	tok := c.expect(201, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", id(u)), c.srv.RootToken,
		form("name", "t", "scopes[]", "api")).object(c.t)
	return id(u), tok["token"].(string)
}

func hasKeys(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("missing %q in %v", k, m)
		}
	}
}

func lacksKeys(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; ok {
			t.Errorf("%q must not be shown: %v", k, m)
		}
	}
}

var (
	briefFields  = []string{"id", "username", "name", "state", "avatar_url", "web_url"}
	publicFields = append(append([]string(nil), briefFields...), "created_at", "bio", "location", "skype", "linkedin",
		"twitter", "website_url", "organization")
	fullFields = append(append([]string(nil), publicFields...), "email", "last_sign_in_at", "confirmed_at",
		"last_activity_on", "color_scheme_id", "projects_limit", "current_sign_in_at", "identities",
		"can_create_group", "can_create_project", "two_factor_enabled", "external")
)

func ed25519Key(comment string) string {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	var blob []byte
	for _, part := range [][]byte{[]byte("ssh-ed25519"), pub} {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(part)))
		blob = append(blob, part...)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + comment
}

func rsaKey(e int, n *big.Int) string {
	var blob []byte
	for _, part := range [][]byte{[]byte("ssh-rsa"), big.NewInt(int64(e)).Bytes(), append([]byte{0}, n.Bytes()...)} {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(part)))
		blob = append(blob, part...)
	}
	return "ssh-rsa " + base64.StdEncoding.EncodeToString(blob) + " rsa@host"
}

func TestSessionAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		s := c.expect(201, "POST", "/session", "", form("login", "root", "password", apptest.RootPassword)).object(t)
		hasKeys(t, s, append(fullFields, "is_admin", "private_token")...)
		if s["is_admin"] != true || len(s["private_token"].(string)) < 20 {
			t.Errorf("session %v", s)
		}
		me := c.expect(200, "GET", "/user", s["private_token"].(string), nil).object(t)
		if me["username"] != "root" || me["private_token"] != s["private_token"] {
			t.Errorf("session token is root's private token: %v", me)
		}
		if me["current_sign_in_at"] == nil || me["last_activity_on"] == nil {
			t.Errorf("sign-in recorded: %v", me)
		}
		// email (any case), JSON body
		c.expect(201, "POST", "/session", "", map[string]string{"email": "ADMIN@example.com", "password": apptest.RootPassword})
		// ordinary users get is_admin false and their own private token
		c.user("sal")
		sal := c.expect(201, "POST", "/session", "", form("login", "sal", "password", "secret-sal")).object(t)
		if sal["is_admin"] != false || sal["private_token"] == nil {
			t.Errorf("ordinary session %v", sal)
		}
		unauthorized := `{"message":"401 Unauthorized"}`
		c.expectBody(401, unauthorized, "POST", "/session", "", form("login", "root", "password", "wrong"))
		c.expectBody(401, unauthorized, "POST", "/session", "", form("login", "nobody", "password", "whatever1"))
		c.expectBody(400, `{"error":"password is missing"}`, "POST", "/session", "", form("login", "root"))
		c.expectBody(400, `{"error":"login, email are missing, at least one parameter must be provided"}`, "POST", "/session", "", form("password", "x"))
		c.expectBody(400, `{"error":"password is missing, login, email are missing, at least one parameter must be provided"}`, "POST", "/session", "", nil)
	})
}

func TestCurrentUserAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		unauthorized := `{"message":"401 Unauthorized"}`
		c.expectBody(401, unauthorized, "GET", "/user", "", nil)
		c.expectBody(401, unauthorized, "GET", "/user", "glpat-not-a-token", nil)
		root := c.expect(200, "GET", "/user", c.srv.RootToken, nil).object(t)
		hasKeys(t, root, append(fullFields, "is_admin", "private_token")...)
		if root["private_token"] != c.srv.RootToken || root["is_admin"] != true {
			t.Errorf("admin /user %v", root)
		}
		if root["web_url"] != c.srv.URL+"/root" || root["avatar_url"] != nil || root["bio"] != nil {
			t.Errorf("web_url/avatar_url/bio %v %v %v", root["web_url"], root["avatar_url"], root["bio"])
		}
		if ids, ok := root["identities"].([]any); !ok || len(ids) != 0 {
			t.Errorf("identities %v", root["identities"])
		}
		aliceID, alice := c.user("alice")
		me := c.expect(200, "GET", "/user", alice, nil).object(t)
		hasKeys(t, me, fullFields...)
		lacksKeys(t, me, "is_admin", "private_token")
		if me["email"] != "alice@example.com" || me["last_sign_in_at"] != nil {
			t.Errorf("alice %v", me)
		}
		// sudo: header and parameter, by username and by ID
		for _, r := range []reply{
			c.send("GET", "/user", c.srv.RootToken, nil, map[string]string{"Sudo": "alice"}),
			c.send("GET", fmt.Sprintf("/user?sudo=%d", aliceID), c.srv.RootToken, nil, nil),
		} {
			as := r.object(t)
			if r.status != 200 || as["username"] != "alice" {
				t.Errorf("sudo: %d %v", r.status, as)
			}
			lacksKeys(t, as, "private_token")
		}
		// sudo to another admin shows the admin view without a token
		c.expect(200, "PUT", fmt.Sprintf("/users/%d", aliceID), c.srv.RootToken, form("admin", "true"))
		as := c.expect(200, "GET", "/user?sudo=alice", c.srv.RootToken, nil).object(t)
		if as["is_admin"] != true || as["private_token"] != nil {
			t.Errorf("sudo to an admin: %v", as)
		}
		c.expect(200, "PUT", fmt.Sprintf("/users/%d", aliceID), c.srv.RootToken, form("admin", "false"))
		c.expectBody(403, `{"message":"403 Forbidden - Must be admin to use sudo"}`, "GET", "/user?sudo=root", alice, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/user?sudo=ghost", c.srv.RootToken, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/user?sudo=999999", c.srv.RootToken, nil)
		// An administrator's impersonation token may not sudo.
		imp := c.expect(201, "POST", "/users/1/impersonation_tokens", c.srv.RootToken, form("name", "i", "scopes[]", "api")).object(t)["token"].(string)
		c.expectBody(403, `{"message":"403 Forbidden - Must be admin to use sudo"}`, "GET", "/user?sudo=alice", imp, nil)
		// read_user tokens read but do not write.
		ro := c.expect(201, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", aliceID), c.srv.RootToken,
			form("name", "ro", "scopes[]", "read_user")).object(t)["token"].(string)
		c.expect(200, "GET", "/user", ro, nil)
		c.expect(200, "GET", "/user/keys", ro, nil)
		c.expect(403, "POST", "/user/emails", ro, form("email", "ro@example.com"))
	})
}

func TestCreateUserAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		u := c.expect(201, "POST", "/users", root, form("username", "bob", "email", "Bob@Example.com", "name", "Bob",
			"password", "password1", "bio", "hi", "location", "Lyon", "skype", "bs", "linkedin", "bl", "twitter", "bt",
			"website_url", "https://bob.example", "organization", "Acme", "projects_limit", "7", "admin", "false",
			"can_create_group", "false", "external", "true", "extern_uid", "uid-1", "provider", "ldapmain", "confirm", "false")).object(t)
		hasKeys(t, u, append(fullFields, "is_admin")...)
		want := map[string]any{"username": "bob", "email": "bob@example.com", "name": "Bob", "state": "active", "bio": "hi",
			"location": "Lyon", "skype": "bs", "linkedin": "bl", "twitter": "bt", "website_url": "https://bob.example",
			"organization": "Acme", "projects_limit": float64(7), "is_admin": false, "can_create_group": false,
			"can_create_project": true, "external": true, "confirmed_at": nil, "last_sign_in_at": nil,
			"current_sign_in_at": nil, "last_activity_on": nil, "avatar_url": nil, "two_factor_enabled": false,
			"web_url": c.srv.URL + "/bob"}
		for k, v := range want {
			if u[k] != v {
				t.Errorf("%s = %v, want %v", k, u[k], v)
			}
		}
		if ids := u["identities"].([]any); len(ids) != 1 || ids[0].(map[string]any)["provider"] != "ldapmain" {
			t.Errorf("identities %v", u["identities"])
		}
		// JSON bodies, reset_password instead of a password
		j := c.expect(201, "POST", "/users", root, map[string]any{"username": "carol", "email": "carol@example.com",
			"name": "Carol", "reset_password": true, "admin": true, "projects_limit": 0}).object(t)
		if j["is_admin"] != true || j["can_create_project"] != false || j["confirmed_at"] == nil {
			t.Errorf("json create %v", j)
		}
		// request validation: {"error": ...}
		c.expectBody(400, `{"error":"email is missing, username is missing, password, reset_password are missing, at least one parameter must be provided"}`,
			"POST", "/users", root, form("name", "x"))
		c.expectBody(400, `{"error":"password, reset_password are missing, at least one parameter must be provided"}`,
			"POST", "/users", root, form("username", "dan", "email", "dan@example.com", "name", "Dan"))
		c.expectBody(400, `{"error":"projects_limit is invalid, admin is invalid"}`, "POST", "/users", root,
			form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "password1", "projects_limit", "lots", "admin", "maybe"))
		c.expectBody(400, `{"error":"extern_uid, provider provide all or none of parameters"}`, "POST", "/users", root,
			form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "password1", "extern_uid", "x"))
		c.expectBody(400, `{"error":"name is missing"}`, "POST", "/users", root,
			map[string]any{"username": "dan", "email": "dan@example.com", "name": nil, "password": "password1"})
		// model validation: {"message": {field: [...]}}
		c.expectBody(400, `{"message":{"password":["is too short (minimum is 8 characters)"]}}`, "POST", "/users", root,
			form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "short"))
		c.expectBody(400, `{"message":{"email":["is invalid"]}}`, "POST", "/users", root,
			form("username", "dan", "email", "not-an-email", "name", "Dan", "password", "password1"))
		c.expectBody(400, `{"message":{"username":["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."]}}`,
			"POST", "/users", root, form("username", "dan.git", "email", "dan@example.com", "name", "Dan", "password", "password1"))
		c.expectBody(400, `{"message":{"username":["admin is a reserved name"]}}`, "POST", "/users", root,
			form("username", "admin", "email", "dan@example.com", "name", "Dan", "password", "password1"))
		c.expectBody(400, `{"message":{"projects_limit":["must be greater than or equal to 0"]}}`, "POST", "/users", root,
			form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "password1", "projects_limit", "-1"))
		// conflicts
		c.expectBody(409, `{"message":"Username has already been taken"}`, "POST", "/users", root,
			form("username", "BOB", "email", "other@example.com", "name", "B", "password", "password1"))
		c.expectBody(409, `{"message":"Email has already been taken"}`, "POST", "/users", root,
			form("username", "bob2", "email", "BOB@example.com", "name", "B", "password", "password1"))
		c.expectBody(400, `{"message":{"extern_uid":["has already been taken"]}}`, "POST", "/users", root,
			form("username", "bob3", "email", "bob3@example.com", "name", "B", "password", "password1", "extern_uid", "uid-1", "provider", "ldapmain"))
		// access
		_, eve := c.user("eve")
		c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", "/users", eve, form("name", "x"))
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/users", "", form("name", "x"))
		// the new user joined the feed
		if l := c.expect(200, "GET", fmt.Sprintf("/users/%d/events", id(u)), root, nil).list(t); len(l) != 1 || l[0]["action_name"] != "joined" {
			t.Errorf("joined event %v", l)
		}
	})
}

func TestGetUserAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		fid, frank := c.user("frank")
		_, grace := c.user("grace")
		path := fmt.Sprintf("/users/%d", fid)
		admin := c.expect(200, "GET", path, c.srv.RootToken, nil).object(t)
		hasKeys(t, admin, append(fullFields, "is_admin")...)
		for _, tok := range []string{grace, frank, ""} { // other, self, anonymous
			pub := c.expect(200, "GET", path, tok, nil).object(t)
			hasKeys(t, pub, publicFields...)
			lacksKeys(t, pub, "email", "is_admin", "private_token", "projects_limit", "identities")
		}
		notFound := `{"message":"404 User Not Found"}`
		for _, p := range []string{"/users/999999", "/users/abc", "/users/0", "/users/-1", "/users/1.5"} {
			c.expectBody(404, notFound, "GET", p, c.srv.RootToken, nil)
		}
	})
}

func TestListUsersAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		for i := 0; i < 25; i++ {
			c.expect(201, "POST", "/users", root, form("username", fmt.Sprintf("u%02d", i), "email", fmt.Sprintf("u%02d@example.com", i),
				"name", fmt.Sprintf("User %d", i), "password", "password1"))
		}
		c.expect(201, "POST", "/users", root, form("username", "ext", "email", "ext@example.com", "name", "Ext",
			"password", "password1", "external", "true", "extern_uid", "cn=ext", "provider", "ldapmain"))
		r := c.expect(200, "GET", "/users", root, nil)
		if r.header.Get("X-Total") != "27" || r.header.Get("X-Per-Page") != "20" || r.header.Get("X-Next-Page") != "2" ||
			r.header.Get("X-Total-Pages") != "2" || !strings.Contains(r.header.Get("Link"), `rel="next"`) {
			t.Errorf("headers %v", r.header)
		}
		full := r.list(t)
		if len(full) != 20 || full[0]["username"] != "root" {
			t.Fatalf("first page %d users", len(full))
		}
		hasKeys(t, full[0], append(fullFields, "is_admin")...)
		_, tok := c.user("heidi")
		brief := c.expect(200, "GET", "/users?per_page=5&page=2", tok, nil).list(t)
		if len(brief) != 5 {
			t.Fatalf("page 2: %d", len(brief))
		}
		hasKeys(t, brief[0], briefFields...)
		lacksKeys(t, brief[0], "email", "is_admin", "created_at")
		// anonymous: a username lookup only
		anon := c.expect(200, "GET", "/users?username=U07", "", nil).list(t)
		if len(anon) != 1 || anon[0]["username"] != "u07" {
			t.Errorf("anonymous lookup %v", anon)
		}
		lacksKeys(t, anon[0], "email")
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/users", "", nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/users?search=u0", "", nil)
		// filters
		count := func(q string) int {
			t.Helper()
			return len(c.expect(200, "GET", "/users?per_page=100&"+q, root, nil).list(t))
		}
		if n := count("search=U1"); n != 10 {
			t.Errorf("search: %d", n)
		}
		if n := count("search=u07@EXAMPLE"); n != 1 {
			t.Errorf("search by email: %d", n)
		}
		if n := count("external=true"); n != 1 {
			t.Errorf("external: %d", n)
		}
		if n := count("extern_uid=cn%3Dext&provider=ldapmain"); n != 1 {
			t.Errorf("extern_uid: %d", n)
		}
		if n := count("active=false"); n != 28 {
			t.Errorf("active=false is no filter: %d", n)
		}
		if n := count("created_after=2999-01-01"); n != 0 {
			t.Errorf("created_after: %d", n)
		}
		c.expectBody(403, `{"message":"403 Forbidden"}`, "GET", "/users?external=true", tok, nil)
		c.expectBody(403, `{"message":"403 Forbidden"}`, "GET", "/users?extern_uid=cn%3Dext&provider=ldapmain", tok, nil)
		c.expectBody(400, `{"error":"extern_uid, provider provide all or none of parameters"}`, "GET", "/users?extern_uid=x", root, nil)
		c.expectBody(400, `{"error":"per_page is invalid"}`, "GET", "/users?per_page=abc", root, nil)
		c.expectBody(400, `{"error":"active is invalid"}`, "GET", "/users?active=maybe", root, nil)
		c.expectBody(400, `{"error":"created_before is invalid"}`, "GET", "/users?created_before=yesterday", root, nil)
	})
}

func TestUpdateUserAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		ivan, _ := c.user("ivan")
		c.user("judy")
		path := fmt.Sprintf("/users/%d", ivan)
		u := c.expect(200, "PUT", path, root, form("name", "Ivan the Great", "bio", "tsar", "projects_limit", "3",
			"can_create_group", "false", "extern_uid", "42", "provider", "github")).object(t)
		if u["name"] != "Ivan the Great" || u["bio"] != "tsar" || u["projects_limit"] != float64(3) || u["email"] != "ivan@example.com" ||
			u["can_create_group"] != false || len(u["identities"].([]any)) != 1 {
			t.Errorf("updated %v", u)
		}
		hasKeys(t, u, append(fullFields, "is_admin")...)
		// no parameters: the user unchanged
		if same := c.expect(200, "PUT", path, root, nil).object(t); same["name"] != "Ivan the Great" {
			t.Errorf("empty update %v", same)
		}
		// renames
		u = c.expect(200, "PUT", path, root, map[string]any{"username": "ivan2", "email": "IVAN2@example.com"}).object(t)
		if u["username"] != "ivan2" || u["email"] != "ivan2@example.com" || u["web_url"] != c.srv.URL+"/ivan2" {
			t.Errorf("rename %v", u)
		}
		c.expectBody(409, `{"message":"Email has already been taken"}`, "PUT", path, root, form("email", "judy@example.com"))
		c.expectBody(409, `{"message":"Username has already been taken"}`, "PUT", path, root, form("username", "JUDY"))
		c.expectBody(400, `{"error":"projects_limit is invalid"}`, "PUT", path, root, form("projects_limit", "x"))
		c.expectBody(400, `{"message":{"email":["is invalid"]}}`, "PUT", path, root, form("email", "nope"))
		c.expectBody(400, `{"message":{"name":["can't be blank"]}}`, "PUT", path, root, form("name", ""))
		c.expectBody(400, `{"message":{"password":["is too short (minimum is 8 characters)"]}}`, "PUT", path, root, form("password", "short"))
		c.expectBody(404, `{"message":"404 User Not Found"}`, "PUT", "/users/999999", root, form("name", "x"))
		c.expectBody(404, `{"message":"404 User Not Found"}`, "PUT", "/users/abc", root, form("name", "x"))
		_, mallory := c.user("mallory")
		c.expectBody(403, `{"message":"403 Forbidden"}`, "PUT", path, mallory, form("name", "x"))
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "PUT", path, "", form("name", "x"))
		// A password change takes effect at once; the API keeps password sign-in working.
		c.expect(200, "PUT", path, root, form("password", "brand-new-pass"))
		c.expect(201, "POST", "/session", "", form("login", "ivan2", "password", "brand-new-pass"))
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/session", "", form("login", "ivan2", "password", "secret-ivan"))
	})
}

func TestDeleteUserAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		kim, tok := c.user("kim")
		c.expect(201, "POST", "/user/keys", tok, form("title", "k", "key", ed25519Key("kim")))
		c.expectBody(400, `{"error":"hard_delete is invalid"}`, "DELETE", fmt.Sprintf("/users/%d?hard_delete=maybe", kim), root, nil)
		d := c.expect(200, "DELETE", fmt.Sprintf("/users/%d?hard_delete=true", kim), root, nil).object(t)
		if d["username"] != "kim" {
			t.Errorf("delete body %v", d)
		}
		for _, p := range []string{fmt.Sprintf("/users/%d", kim), "/users/999999"} {
			if r := c.expect(200, "DELETE", p, root, nil); len(r.body) != 0 {
				t.Errorf("DELETE %s of nobody: body %q", p, r.body)
			}
		}
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", tok, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", fmt.Sprintf("/users/%d", kim), root, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "DELETE", "/users/abc", root, nil)
		_, lee := c.user("lee")
		c.expectBody(403, `{"message":"403 Forbidden"}`, "DELETE", "/users/1", lee, nil)
		c.expectBody(403, `{"message":"403 Forbidden - An administrator cannot delete their own account"}`, "DELETE", "/users/1", root, nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "DELETE", "/users/1", "", nil)
	})
}

func TestBlockAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		sam, tok := c.user("sam")
		sess := c.expect(201, "POST", "/session", "", form("login", "sam", "password", "secret-sam")).object(t)["private_token"].(string)
		block, unblock := fmt.Sprintf("/users/%d/block", sam), fmt.Sprintf("/users/%d/unblock", sam)
		c.expectBody(201, `true`, "POST", block, root, nil)
		c.expectBody(201, `true`, "POST", block, root, nil) // repeat
		unauthorized := `{"message":"401 Unauthorized"}`
		for _, secret := range []string{tok, sess} {
			c.expectBody(401, unauthorized, "GET", "/user", secret, nil)
			c.expectBody(401, unauthorized, "GET", "/user/keys", secret, nil)
		}
		c.expectBody(401, unauthorized, "POST", "/session", "", form("login", "sam", "password", "secret-sam"))
		if u := c.expect(200, "GET", fmt.Sprintf("/users/%d", sam), root, nil).object(t); u["state"] != "blocked" {
			t.Errorf("state %v", u["state"])
		}
		if l := c.expect(200, "GET", "/users?blocked=true", root, nil).list(t); len(l) != 1 || l[0]["username"] != "sam" {
			t.Errorf("blocked=true %v", l)
		}
		c.expectBody(201, `true`, "POST", unblock, root, nil)
		c.expect(200, "GET", "/user", tok, nil)
		c.expect(200, "GET", "/user", sess, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/block", root, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/unblock", root, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/abc/block", root, nil)
		c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", "/users/1/block", tok, nil)
		c.expectBody(403, `{"message":"403 Forbidden - The API initiating user cannot be blocked by the API"}`, "POST", "/users/1/block", root, nil)
		c.expectBody(401, unauthorized, "POST", block, "", nil)
	})
}

func TestKeysAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		nina, tok := c.user("nina")
		_, other := c.user("oscar")
		key := ed25519Key("nina@laptop")
		k := c.expect(201, "POST", "/user/keys", tok, form("title", "laptop", "key", key)).object(t)
		if len(k) != 4 || k["title"] != "laptop" || k["key"] != key || k["created_at"] == nil {
			t.Errorf("key %v", k)
		}
		kid := id(k)
		rk, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		c.expect(201, "POST", "/user/keys", tok, map[string]string{"title": "rsa", "key": rsaKey(rk.E, rk.N)})
		invalid := `{"message":{"key":["is invalid"],"fingerprint":["cannot be generated"]}}`
		c.expectBody(400, `{"message":{"fingerprint":["has already been taken"]}}`, "POST", "/user/keys", other, form("title", "stolen", "key", key))
		c.expectBody(400, invalid, "POST", "/user/keys", tok, form("title", "bad", "key", "ssh-ed25519 AAAAnot-base64!!"))
		c.expectBody(400, invalid, "POST", "/user/keys", tok, form("title", "bad", "key", "ssh-rsa "+strings.Fields(key)[1]))
		c.expectBody(400, invalid, "POST", "/user/keys", tok, form("title", "bad", "key", "hello world"))
		small, _ := new(big.Int).SetString(strings.Repeat("f", 128), 16)
		c.expectBody(400, `{"message":{"key":["must be at least 1024 bits"]}}`, "POST", "/user/keys", tok, form("title", "small", "key", rsaKey(65537, small)))
		c.expectBody(400, `{"error":"title is missing"}`, "POST", "/user/keys", tok, form("key", ed25519Key("x")))
		c.expectBody(400, `{"error":"title is missing, key is missing"}`, "POST", "/user/keys", tok, nil)
		if l := c.expect(200, "GET", "/user/keys", tok, nil).list(t); len(l) != 2 {
			t.Errorf("own keys %v", l)
		}
		c.expect(200, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
		notFound := `{"message":"404 Key Not Found"}`
		c.expectBody(404, notFound, "GET", fmt.Sprintf("/user/keys/%d", kid), other, nil)
		c.expectBody(404, notFound, "GET", "/user/keys/abc", tok, nil)
		full := c.expect(200, "GET", fmt.Sprintf("/keys/%d", kid), root, nil).object(t)
		hasKeys(t, full["user"].(map[string]any), fullFields...)
		if full["user"].(map[string]any)["username"] != "nina" || full["key"] != key {
			t.Errorf("GET /keys/:id %v", full)
		}
		c.expectBody(403, `{"message":"403 Forbidden"}`, "GET", fmt.Sprintf("/keys/%d", kid), tok, nil)
		c.expectBody(404, notFound, "GET", "/keys/999999", root, nil)
		// administrators and other users' keys
		base := fmt.Sprintf("/users/%d/keys", nina)
		if l := c.expect(200, "GET", base, root, nil).list(t); len(l) != 2 {
			t.Errorf("admin list %v", l)
		}
		c.expectBody(403, `{"message":"403 Forbidden"}`, "GET", base, other, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/keys", root, nil)
		k2 := c.expect(201, "POST", base, root, form("title", "ci", "key", ed25519Key("ci"))).object(t)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/keys", root, form("title", "ci", "key", ed25519Key("ci")))
		c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", base, other, form("title", "ci", "key", ed25519Key("ci")))
		if d := c.expect(200, "DELETE", fmt.Sprintf("%s/%d", base, id(k2)), root, nil).object(t); d["title"] != "ci" {
			t.Errorf("delete body %v", d)
		}
		c.expectBody(404, notFound, "DELETE", fmt.Sprintf("%s/%d", base, id(k2)), root, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "DELETE", fmt.Sprintf("/users/999999/keys/%d", kid), root, nil)
		c.expectBody(403, `{"message":"403 Forbidden"}`, "DELETE", fmt.Sprintf("%s/%d", base, kid), other, nil)
		// own deletes are idempotent and never touch another user's key
		c.expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), other, nil)
		c.expect(200, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
		c.expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
		if r := c.expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), tok, nil); len(r.body) != 0 {
			t.Errorf("second delete body %q", r.body)
		}
		c.expectBody(404, notFound, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user/keys", "", nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/user/keys", "", form("title", "x", "key", key))
	})
}

func TestEmailsAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		peggy, tok := c.user("peggy")
		_, other := c.user("quinn")
		e := c.expect(201, "POST", "/user/emails", tok, form("email", "Peggy.Work@example.com")).object(t)
		if len(e) != 2 || e["email"] != "peggy.work@example.com" {
			t.Errorf("email %v", e)
		}
		eid := id(e)
		taken := `{"message":{"email":["has already been taken"]}}`
		for _, addr := range []string{"PEGGY.work@example.com", "peggy@example.com", "admin@example.com"} {
			c.expectBody(400, taken, "POST", "/user/emails", other, form("email", addr))
		}
		c.expectBody(400, taken, "POST", "/user/emails", tok, form("email", "peggy@example.com"))
		c.expectBody(400, `{"message":{"email":["is invalid"]}}`, "POST", "/user/emails", tok, form("email", "nope"))
		c.expectBody(400, `{"error":"email is missing"}`, "POST", "/user/emails", tok, nil)
		c.expectBody(409, `{"message":"Email has already been taken"}`, "POST", "/users", root,
			form("username", "ray", "email", "peggy.work@example.com", "name", "R", "password", "password1"))
		if l := c.expect(200, "GET", "/user/emails", tok, nil).list(t); len(l) != 1 {
			t.Errorf("own emails %v", l)
		}
		c.expect(200, "GET", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
		notFound := `{"message":"404 Email Not Found"}`
		c.expectBody(404, notFound, "GET", fmt.Sprintf("/user/emails/%d", eid), other, nil)
		c.expectBody(404, notFound, "GET", "/user/emails/abc", tok, nil)
		base := fmt.Sprintf("/users/%d/emails", peggy)
		if l := c.expect(200, "GET", base, root, nil).list(t); len(l) != 1 {
			t.Errorf("admin list %v", l)
		}
		c.expectBody(403, `{"message":"403 Forbidden"}`, "GET", base, other, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/emails", root, nil)
		e2 := c.expect(201, "POST", base, root, form("email", "peggy.home@example.com")).object(t)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/emails", root, form("email", "z@example.com"))
		c.expect(200, "DELETE", fmt.Sprintf("%s/%d", base, id(e2)), root, nil)
		c.expectBody(404, notFound, "DELETE", fmt.Sprintf("%s/%d", base, id(e2)), root, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "DELETE", fmt.Sprintf("/users/999999/emails/%d", eid), root, nil)
		c.expect(200, "DELETE", fmt.Sprintf("/user/emails/%d", eid), other, nil) // not theirs: untouched
		c.expect(200, "GET", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
		c.expect(200, "DELETE", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
		c.expect(200, "DELETE", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
		c.expect(201, "POST", "/user/emails", other, form("email", "peggy.work@example.com"))
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user/emails", "", nil)
	})
}

func TestImpersonationTokensAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		trent, own := c.user("trent")
		base := fmt.Sprintf("/users/%d/impersonation_tokens", trent)
		tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
		tk := c.expect(201, "POST", base, root, form("name", "imp", "scopes[]", "api", "scopes[]", "read_user", "expires_at", tomorrow)).object(t)
		hasKeys(t, tk, "id", "name", "active", "revoked", "scopes", "token", "impersonation", "created_at", "expires_at")
		if tk["impersonation"] != true || tk["active"] != true || tk["revoked"] != false || tk["expires_at"] != tomorrow ||
			len(tk["scopes"].([]any)) != 2 || !strings.HasPrefix(tk["token"].(string), "glpat-") {
			t.Errorf("token %v", tk)
		}
		secret, tid := tk["token"].(string), id(tk)
		if me := c.expect(200, "GET", "/user", secret, nil).object(t); me["username"] != "trent" {
			t.Errorf("acts as %v", me["username"])
		}
		one := c.expect(200, "GET", fmt.Sprintf("%s/%d", base, tid), root, nil).object(t)
		lacksKeys(t, one, "token")
		if l := c.expect(200, "GET", base+"?state=active", root, nil).list(t); len(l) != 2 {
			t.Errorf("active %d", len(l))
		}
		// JSON array scopes, no expiry
		js := c.expect(201, "POST", base, root, map[string]any{"name": "json", "scopes": []string{"api"}}).object(t)
		if js["expires_at"] != nil {
			t.Errorf("json token %v", js)
		}
		// bad input
		c.expectBody(400, `{"error":"scopes is missing"}`, "POST", base, root, form("name", "x"))
		c.expectBody(400, `{"error":"name is missing, scopes is missing"}`, "POST", base, root, nil)
		c.expectBody(400, `{"error":"scopes does not have a valid value"}`, "POST", base, root, form("name", "x", "scopes[]", "sudo"))
		c.expectBody(400, `{"error":"expires_at is invalid"}`, "POST", base, root, form("name", "x", "scopes[]", "api", "expires_at", "soon"))
		c.expectBody(400, `{"message":{"expires_at":["cannot be a date in the past"]}}`, "POST", base, root, form("name", "x", "scopes[]", "api", "expires_at", "2001-01-01"))
		c.expectBody(400, `{"error":"state does not have a valid value"}`, "GET", base+"?state=sleepy", root, nil)
		c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/impersonation_tokens", root, form("name", "x", "scopes[]", "api"))
		c.expectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/impersonation_tokens", root, nil)
		c.expectBody(404, `{"message":"404 Impersonation Token Not Found"}`, "GET", base+"/999999", root, nil)
		c.expectBody(404, `{"message":"404 Impersonation Token Not Found"}`, "GET", base+"/abc", root, nil)
		c.expectBody(404, `{"message":"404 Impersonation Token Not Found"}`, "DELETE", base+"/999999", root, nil)
		forbidden := `{"message":"403 Forbidden"}`
		c.expectBody(403, forbidden, "GET", base, own, nil)
		c.expectBody(403, forbidden, "POST", base, own, form("name", "x", "scopes[]", "api"))
		c.expectBody(403, forbidden, "DELETE", fmt.Sprintf("%s/%d", base, tid), own, nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", base, "", nil)
		// hidden from the user's personal token list
		for _, l := range c.expect(200, "GET", fmt.Sprintf("/users/%d/personal_access_tokens", trent), root, nil).list(t) {
			t.Errorf("impersonation token among personal tokens: %v", l)
		}
		// revoke: 204, fails at once everywhere, shows as inactive
		if r := c.expect(204, "DELETE", fmt.Sprintf("%s/%d", base, tid), root, nil); len(r.body) != 0 {
			t.Errorf("revoke body %q", r.body)
		}
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", secret, nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user/keys", secret, nil)
		if got := c.expect(200, "GET", fmt.Sprintf("%s/%d", base, tid), root, nil).object(t); got["revoked"] != true || got["active"] != false {
			t.Errorf("after revoke %v", got)
		}
		c.expect(204, "DELETE", fmt.Sprintf("%s/%d", base, tid), root, nil)
		if l := c.expect(200, "GET", base+"?state=inactive", root, nil).list(t); len(l) != 1 {
			t.Errorf("inactive %d", len(l))
		}
		// expiry: the token dies on its date
		exp := c.expect(201, "POST", base, root, form("name", "short", "scopes[]", "api", "expires_at", tomorrow)).object(t)["token"].(string)
		c.expect(200, "GET", "/user", exp, nil)
		c.srv.Advance(48 * time.Hour)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", exp, nil)
		c.expect(200, "GET", "/user", own, nil)
	})
}

func TestPersonalTokensAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		root := c.srv.RootToken
		uma, tok := c.user("uma")
		base := fmt.Sprintf("/users/%d/personal_access_tokens", uma)
		p := c.expect(201, "POST", base, root, form("name", "ci", "scopes[]", "api", "scopes[]", "sudo")).object(t)
		hasKeys(t, p, "id", "name", "active", "revoked", "scopes", "token", "impersonation", "created_at", "expires_at")
		if p["impersonation"] != false || p["expires_at"] != nil || p["active"] != true {
			t.Errorf("personal token %v", p)
		}
		if me := c.expect(200, "GET", "/user", p["token"].(string), nil).object(t); me["username"] != "uma" {
			t.Errorf("acts as %v", me["username"])
		}
		// the session token is not listed either
		c.expect(201, "POST", "/session", "", form("login", "uma", "password", "secret-uma"))
		l := c.expect(200, "GET", base, root, nil).list(t)
		if len(l) != 1 || id(l[0]) != id(p) {
			t.Errorf("personal list %v", l)
		}
		lacksKeys(t, l[0], "token")
		c.expect(200, "GET", fmt.Sprintf("%s/%d", base, id(p)), root, nil)
		c.expectBody(404, `{"message":"404 Personal Access Token Not Found"}`, "GET", base+"/999999", root, nil)
		c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", base, tok, form("name", "ci", "scopes[]", "api"))
		c.expectBody(400, `{"error":"scopes is missing"}`, "POST", base, root, form("name", "ci"))
		c.expectBody(400, `{"error":"scopes does not have a valid value"}`, "POST", base, root, form("name", "ci", "scopes[]", "write_everything"))
		c.expectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/personal_access_tokens", root, form("name", "ci", "scopes[]", "api"))
		c.expect(204, "DELETE", fmt.Sprintf("%s/%d", base, id(p)), root, nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", p["token"].(string), nil)
	})
}

func TestActivitiesAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		c.expect(201, "POST", "/session", "", form("login", "root", "password", apptest.RootPassword))
		_, tok := c.user("victor")
		c.expect(201, "POST", "/session", "", form("login", "victor", "password", "secret-victor"))
		r := c.expect(200, "GET", "/user/activities", c.srv.RootToken, nil)
		l := r.list(t)
		today := time.Now().UTC().Format("2006-01-02")
		if len(l) != 2 || r.header.Get("X-Total") != "2" {
			t.Fatalf("activities %v", l)
		}
		for _, a := range l {
			if len(a) != 3 || a["last_activity_on"] != today || a["last_activity_at"] != today {
				t.Errorf("entry %v", a)
			}
		}
		if l := c.expect(200, "GET", "/user/activities?from=2999-01-01", c.srv.RootToken, nil).list(t); len(l) != 0 {
			t.Errorf("future: %v", l)
		}
		c.expectBody(400, `{"error":"from is invalid"}`, "GET", "/user/activities?from=last-week", c.srv.RootToken, nil)
		c.expectBody(400, `{"error":"per_page is invalid"}`, "GET", "/user/activities?per_page=x", c.srv.RootToken, nil)
		c.expectBody(403, `{"message":"403 Forbidden"}`, "GET", "/user/activities", tok, nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user/activities", "", nil)
	})
}

func TestLockoutAPI(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		c.user("yuri")
		unauthorized := `{"message":"401 Unauthorized"}`
		for i := 0; i < 10; i++ {
			c.expectBody(401, unauthorized, "POST", "/session", "", form("login", "yuri", "password", "wrong-password"))
		}
		c.expectBody(401, unauthorized, "POST", "/session", "", form("login", "yuri", "password", "secret-yuri"))
		c.expectBody(401, unauthorized, "POST", "/session", "", form("email", "yuri@example.com", "password", "secret-yuri"))
		c.srv.Advance(10 * time.Minute)
		c.expect(201, "POST", "/session", "", form("login", "yuri", "password", "secret-yuri"))
	})
}

// TestNoSecretsInLogs signs in, creates tokens and uses them (also as query
// parameters) and checks no password or token reaches the log.
func TestNoSecretsInLogs(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		wid, tok := c.user("wanda")
		sess := c.expect(201, "POST", "/session", "", form("login", "wanda", "password", "secret-wanda")).object(t)["private_token"].(string)
		pat := c.expect(201, "POST", fmt.Sprintf("/users/%d/personal_access_tokens", wid), c.srv.RootToken,
			form("name", "p", "scopes[]", "api")).object(t)["token"].(string)
		c.expect(200, "GET", "/user?private_token="+url.QueryEscape(pat), "", nil)
		c.expect(401, "POST", "/session", "", form("login", "wanda", "password", "typo-password"))
		c.expect(200, "PUT", fmt.Sprintf("/users/%d", wid), c.srv.RootToken, form("password", "changed-password"))
		logs := c.srv.Logs()
		if !strings.Contains(logs, "token created") {
			t.Fatal("the test server's log is not captured")
		}
		for _, secret := range []string{tok, sess, pat, c.srv.RootToken, apptest.RootPassword, "secret-wanda", "typo-password", "changed-password"} {
			if strings.Contains(logs, secret) {
				t.Errorf("log contains a secret %q", secret[:4]+"...")
			}
		}
	})
}
