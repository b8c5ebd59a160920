package users_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// sudoAs is GET /user as root with a Sudo header, which Client.Send does
// not set: it makes the request itself and checks what Send checks.
func sudoAs(c *apptest.Client, user string) apptest.Reply {
	c.T.Helper()
	req, err := http.NewRequest("GET", c.Srv.API()+"/user", nil)
	if err != nil {
		c.T.Fatal(err)
	}
	req.Header.Set("PRIVATE-TOKEN", c.Srv.RootToken)
	req.Header.Set("Sudo", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.T.Fatalf("GET /user as %s: %v", user, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.T.Fatal(err)
	}
	if resp.StatusCode >= 500 || (len(body) > 0 && resp.Header.Get("Content-Type") != "application/json") {
		c.T.Fatalf("GET /user as %s: %d %q %s", user, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return apptest.Reply{Status: resp.StatusCode, Header: resp.Header, Body: body}
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
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		s := c.Expect(201, "POST", "/session", "", apptest.Form("login", "root", "password", apptest.RootPassword)).Object(t)
		apptest.HasKeys(t, s, append(fullFields, "is_admin", "private_token")...)
		if s["is_admin"] != true || len(s["private_token"].(string)) < 20 {
			t.Errorf("session %v", s)
		}
		me := c.Expect(200, "GET", "/user", s["private_token"].(string), nil).Object(t)
		if me["username"] != "root" || me["private_token"] != s["private_token"] {
			t.Errorf("session token is root's private token: %v", me)
		}
		if me["current_sign_in_at"] == nil || me["last_activity_on"] == nil {
			t.Errorf("sign-in recorded: %v", me)
		}
		// email (any case), JSON body
		c.Expect(201, "POST", "/session", "", map[string]string{"email": "ADMIN@example.com", "password": apptest.RootPassword})
		// ordinary users get is_admin false and their own private token
		c.User("sal")
		sal := c.Expect(201, "POST", "/session", "", apptest.Form("login", "sal", "password", "secret-sal")).Object(t)
		if sal["is_admin"] != false || sal["private_token"] == nil {
			t.Errorf("ordinary session %v", sal)
		}
		unauthorized := `{"message":"401 Unauthorized"}`
		c.ExpectBody(401, unauthorized, "POST", "/session", "", apptest.Form("login", "root", "password", "wrong"))
		c.ExpectBody(401, unauthorized, "POST", "/session", "", apptest.Form("login", "nobody", "password", "whatever1"))
		c.ExpectBody(400, `{"error":"password is missing"}`, "POST", "/session", "", apptest.Form("login", "root"))
		c.ExpectBody(400, `{"error":"login, email are missing, at least one parameter must be provided"}`, "POST", "/session", "", apptest.Form("password", "x"))
		c.ExpectBody(400, `{"error":"password is missing, login, email are missing, at least one parameter must be provided"}`, "POST", "/session", "", nil)
	})
}

func TestCurrentUserAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		unauthorized := `{"message":"401 Unauthorized"}`
		c.ExpectBody(401, unauthorized, "GET", "/user", "", nil)
		c.ExpectBody(401, unauthorized, "GET", "/user", "glpat-not-a-token", nil)
		root := c.Expect(200, "GET", "/user", c.Srv.RootToken, nil).Object(t)
		apptest.HasKeys(t, root, append(fullFields, "is_admin", "private_token")...)
		if root["private_token"] != c.Srv.RootToken || root["is_admin"] != true {
			t.Errorf("admin /user %v", root)
		}
		if root["web_url"] != c.Srv.URL+"/root" || root["avatar_url"] != nil || root["bio"] != nil {
			t.Errorf("web_url/avatar_url/bio %v %v %v", root["web_url"], root["avatar_url"], root["bio"])
		}
		if ids, ok := root["identities"].([]any); !ok || len(ids) != 0 {
			t.Errorf("identities %v", root["identities"])
		}
		aliceID, alice := c.User("alice")
		me := c.Expect(200, "GET", "/user", alice, nil).Object(t)
		apptest.HasKeys(t, me, fullFields...)
		apptest.LacksKeys(t, me, "is_admin", "private_token")
		if me["email"] != "alice@example.com" || me["last_sign_in_at"] != nil {
			t.Errorf("alice %v", me)
		}
		// sudo: header and parameter, by username and by ID
		for _, r := range []apptest.Reply{
			sudoAs(c, "alice"),
			c.Send("GET", fmt.Sprintf("/user?sudo=%d", aliceID), c.Srv.RootToken, nil),
		} {
			as := r.Object(t)
			if r.Status != 200 || as["username"] != "alice" {
				t.Errorf("sudo: %d %v", r.Status, as)
			}
			apptest.LacksKeys(t, as, "private_token")
		}
		// sudo to another admin shows the admin view without a token
		c.Expect(200, "PUT", fmt.Sprintf("/users/%d", aliceID), c.Srv.RootToken, apptest.Form("admin", "true"))
		as := c.Expect(200, "GET", "/user?sudo=alice", c.Srv.RootToken, nil).Object(t)
		if as["is_admin"] != true || as["private_token"] != nil {
			t.Errorf("sudo to an admin: %v", as)
		}
		c.Expect(200, "PUT", fmt.Sprintf("/users/%d", aliceID), c.Srv.RootToken, apptest.Form("admin", "false"))
		c.ExpectBody(403, `{"message":"403 Forbidden - Must be admin to use sudo"}`, "GET", "/user?sudo=root", alice, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "GET", "/user?sudo=ghost", c.Srv.RootToken, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "GET", "/user?sudo=999999", c.Srv.RootToken, nil)
		// An administrator's impersonation token may not sudo.
		imp := c.Expect(201, "POST", "/users/1/impersonation_tokens", c.Srv.RootToken, apptest.Form("name", "i", "scopes[]", "api")).Object(t)["token"].(string)
		c.ExpectBody(403, `{"message":"403 Forbidden - Must be admin to use sudo"}`, "GET", "/user?sudo=alice", imp, nil)
		// read_user tokens read but do not write.
		ro := c.Expect(201, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", aliceID), c.Srv.RootToken,
			apptest.Form("name", "ro", "scopes[]", "read_user")).Object(t)["token"].(string)
		c.Expect(200, "GET", "/user", ro, nil)
		c.Expect(200, "GET", "/user/keys", ro, nil)
		c.Expect(403, "POST", "/user/emails", ro, apptest.Form("email", "ro@example.com"))
	})
}

func TestCreateUserAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		u := c.Expect(201, "POST", "/users", root, apptest.Form("username", "bob", "email", "Bob@Example.com", "name", "Bob",
			"password", "password1", "bio", "hi", "location", "Lyon", "skype", "bs", "linkedin", "bl", "twitter", "bt",
			"website_url", "https://bob.example", "organization", "Acme", "projects_limit", "7", "admin", "false",
			"can_create_group", "false", "external", "true", "extern_uid", "uid-1", "provider", "ldapmain", "confirm", "false")).Object(t)
		apptest.HasKeys(t, u, append(fullFields, "is_admin")...)
		want := map[string]any{"username": "bob", "email": "bob@example.com", "name": "Bob", "state": "active", "bio": "hi",
			"location": "Lyon", "skype": "bs", "linkedin": "bl", "twitter": "bt", "website_url": "https://bob.example",
			"organization": "Acme", "projects_limit": float64(7), "is_admin": false, "can_create_group": false,
			"can_create_project": true, "external": true, "confirmed_at": nil, "last_sign_in_at": nil,
			"current_sign_in_at": nil, "last_activity_on": nil, "avatar_url": nil, "two_factor_enabled": false,
			"web_url": c.Srv.URL + "/bob"}
		for k, v := range want {
			if u[k] != v {
				t.Errorf("%s = %v, want %v", k, u[k], v)
			}
		}
		if ids := u["identities"].([]any); len(ids) != 1 || ids[0].(map[string]any)["provider"] != "ldapmain" {
			t.Errorf("identities %v", u["identities"])
		}
		// JSON bodies, reset_password instead of a password
		j := c.Expect(201, "POST", "/users", root, map[string]any{"username": "carol", "email": "carol@example.com",
			"name": "Carol", "reset_password": true, "admin": true, "projects_limit": 0}).Object(t)
		if j["is_admin"] != true || j["can_create_project"] != false || j["confirmed_at"] == nil {
			t.Errorf("json create %v", j)
		}
		// request validation: {"error": ...}
		c.ExpectBody(400, `{"error":"email is missing, username is missing, password, reset_password are missing, at least one parameter must be provided"}`,
			"POST", "/users", root, apptest.Form("name", "x"))
		c.ExpectBody(400, `{"error":"password, reset_password are missing, at least one parameter must be provided"}`,
			"POST", "/users", root, apptest.Form("username", "dan", "email", "dan@example.com", "name", "Dan"))
		c.ExpectBody(400, `{"error":"projects_limit is invalid, admin is invalid"}`, "POST", "/users", root,
			apptest.Form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "password1", "projects_limit", "lots", "admin", "maybe"))
		c.ExpectBody(400, `{"error":"extern_uid, provider provide all or none of parameters"}`, "POST", "/users", root,
			apptest.Form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "password1", "extern_uid", "x"))
		c.ExpectBody(400, `{"error":"name is missing"}`, "POST", "/users", root,
			map[string]any{"username": "dan", "email": "dan@example.com", "name": nil, "password": "password1"})
		// model validation: {"message": {field: [...]}}
		c.ExpectBody(400, `{"message":{"password":["is too short (minimum is 8 characters)"]}}`, "POST", "/users", root,
			apptest.Form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "short"))
		c.ExpectBody(400, `{"message":{"email":["is invalid"]}}`, "POST", "/users", root,
			apptest.Form("username", "dan", "email", "not-an-email", "name", "Dan", "password", "password1"))
		c.ExpectBody(400, `{"message":{"username":["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."]}}`,
			"POST", "/users", root, apptest.Form("username", "dan.git", "email", "dan@example.com", "name", "Dan", "password", "password1"))
		c.ExpectBody(400, `{"message":{"username":["admin is a reserved name"]}}`, "POST", "/users", root,
			apptest.Form("username", "admin", "email", "dan@example.com", "name", "Dan", "password", "password1"))
		c.ExpectBody(400, `{"message":{"projects_limit":["must be greater than or equal to 0"]}}`, "POST", "/users", root,
			apptest.Form("username", "dan", "email", "dan@example.com", "name", "Dan", "password", "password1", "projects_limit", "-1"))
		// conflicts
		c.ExpectBody(409, `{"message":"Username has already been taken"}`, "POST", "/users", root,
			apptest.Form("username", "BOB", "email", "other@example.com", "name", "B", "password", "password1"))
		c.ExpectBody(409, `{"message":"Email has already been taken"}`, "POST", "/users", root,
			apptest.Form("username", "bob2", "email", "BOB@example.com", "name", "B", "password", "password1"))
		c.ExpectBody(400, `{"message":{"extern_uid":["has already been taken"]}}`, "POST", "/users", root,
			apptest.Form("username", "bob3", "email", "bob3@example.com", "name", "B", "password", "password1", "extern_uid", "uid-1", "provider", "ldapmain"))
		// access
		_, eve := c.User("eve")
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", "/users", eve, apptest.Form("name", "x"))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/users", "", apptest.Form("name", "x"))
		// the new user joined the feed
		if l := c.Expect(200, "GET", fmt.Sprintf("/users/%d/events", apptest.ID(u)), root, nil).List(t); len(l) != 1 || l[0]["action_name"] != "joined" {
			t.Errorf("joined event %v", l)
		}
	})
}

func TestGetUserAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		fid, frank := c.User("frank")
		_, grace := c.User("grace")
		path := fmt.Sprintf("/users/%d", fid)
		admin := c.Expect(200, "GET", path, c.Srv.RootToken, nil).Object(t)
		apptest.HasKeys(t, admin, append(fullFields, "is_admin")...)
		for _, tok := range []string{grace, frank, ""} { // other, self, anonymous
			pub := c.Expect(200, "GET", path, tok, nil).Object(t)
			apptest.HasKeys(t, pub, publicFields...)
			apptest.LacksKeys(t, pub, "email", "is_admin", "private_token", "projects_limit", "identities")
		}
		notFound := `{"message":"404 User Not Found"}`
		for _, p := range []string{"/users/999999", "/users/abc", "/users/0", "/users/-1", "/users/1.5"} {
			c.ExpectBody(404, notFound, "GET", p, c.Srv.RootToken, nil)
		}
	})
}

func TestListUsersAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		for i := 0; i < 25; i++ {
			c.Expect(201, "POST", "/users", root, apptest.Form("username", fmt.Sprintf("u%02d", i), "email", fmt.Sprintf("u%02d@example.com", i),
				"name", fmt.Sprintf("User %d", i), "password", "password1"))
		}
		c.Expect(201, "POST", "/users", root, apptest.Form("username", "ext", "email", "ext@example.com", "name", "Ext",
			"password", "password1", "external", "true", "extern_uid", "cn=ext", "provider", "ldapmain"))
		r := c.Expect(200, "GET", "/users", root, nil)
		if r.Header.Get("X-Total") != "27" || r.Header.Get("X-Per-Page") != "20" || r.Header.Get("X-Next-Page") != "2" ||
			r.Header.Get("X-Total-Pages") != "2" || !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
			t.Errorf("headers %v", r.Header)
		}
		full := r.List(t)
		if len(full) != 20 || full[0]["username"] != "root" {
			t.Fatalf("first page %d users", len(full))
		}
		apptest.HasKeys(t, full[0], append(fullFields, "is_admin")...)
		_, tok := c.User("heidi")
		brief := c.Expect(200, "GET", "/users?per_page=5&page=2", tok, nil).List(t)
		if len(brief) != 5 {
			t.Fatalf("page 2: %d", len(brief))
		}
		apptest.HasKeys(t, brief[0], briefFields...)
		apptest.LacksKeys(t, brief[0], "email", "is_admin", "created_at")
		// anonymous: a username lookup only
		anon := c.Expect(200, "GET", "/users?username=U07", "", nil).List(t)
		if len(anon) != 1 || anon[0]["username"] != "u07" {
			t.Errorf("anonymous lookup %v", anon)
		}
		apptest.LacksKeys(t, anon[0], "email")
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/users", "", nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/users?search=u0", "", nil)
		// filters
		count := func(q string) int {
			t.Helper()
			return len(c.Expect(200, "GET", "/users?per_page=100&"+q, root, nil).List(t))
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
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", "/users?external=true", tok, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", "/users?extern_uid=cn%3Dext&provider=ldapmain", tok, nil)
		c.ExpectBody(400, `{"error":"extern_uid, provider provide all or none of parameters"}`, "GET", "/users?extern_uid=x", root, nil)
		c.ExpectBody(400, `{"error":"per_page is invalid"}`, "GET", "/users?per_page=abc", root, nil)
		c.ExpectBody(400, `{"error":"active is invalid"}`, "GET", "/users?active=maybe", root, nil)
		c.ExpectBody(400, `{"error":"created_before is invalid"}`, "GET", "/users?created_before=yesterday", root, nil)
	})
}

func TestUpdateUserAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		ivan, _ := c.User("ivan")
		c.User("judy")
		path := fmt.Sprintf("/users/%d", ivan)
		u := c.Expect(200, "PUT", path, root, apptest.Form("name", "Ivan the Great", "bio", "tsar", "projects_limit", "3",
			"can_create_group", "false", "extern_uid", "42", "provider", "github")).Object(t)
		if u["name"] != "Ivan the Great" || u["bio"] != "tsar" || u["projects_limit"] != float64(3) || u["email"] != "ivan@example.com" ||
			u["can_create_group"] != false || len(u["identities"].([]any)) != 1 {
			t.Errorf("updated %v", u)
		}
		apptest.HasKeys(t, u, append(fullFields, "is_admin")...)
		// no parameters: the user unchanged
		if same := c.Expect(200, "PUT", path, root, nil).Object(t); same["name"] != "Ivan the Great" {
			t.Errorf("empty update %v", same)
		}
		// renames
		u = c.Expect(200, "PUT", path, root, map[string]any{"username": "ivan2", "email": "IVAN2@example.com"}).Object(t)
		if u["username"] != "ivan2" || u["email"] != "ivan2@example.com" || u["web_url"] != c.Srv.URL+"/ivan2" {
			t.Errorf("rename %v", u)
		}
		c.ExpectBody(409, `{"message":"Email has already been taken"}`, "PUT", path, root, apptest.Form("email", "judy@example.com"))
		c.ExpectBody(409, `{"message":"Username has already been taken"}`, "PUT", path, root, apptest.Form("username", "JUDY"))
		c.ExpectBody(400, `{"error":"projects_limit is invalid"}`, "PUT", path, root, apptest.Form("projects_limit", "x"))
		c.ExpectBody(400, `{"message":{"email":["is invalid"]}}`, "PUT", path, root, apptest.Form("email", "nope"))
		c.ExpectBody(400, `{"message":{"name":["can't be blank"]}}`, "PUT", path, root, apptest.Form("name", ""))
		c.ExpectBody(400, `{"message":{"password":["is too short (minimum is 8 characters)"]}}`, "PUT", path, root, apptest.Form("password", "short"))
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "PUT", "/users/999999", root, apptest.Form("name", "x"))
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "PUT", "/users/abc", root, apptest.Form("name", "x"))
		_, mallory := c.User("mallory")
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", path, mallory, apptest.Form("name", "x"))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "PUT", path, "", apptest.Form("name", "x"))
		// A password change takes effect at once; the API keeps password sign-in working.
		c.Expect(200, "PUT", path, root, apptest.Form("password", "brand-new-pass"))
		c.Expect(201, "POST", "/session", "", apptest.Form("login", "ivan2", "password", "brand-new-pass"))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/session", "", apptest.Form("login", "ivan2", "password", "secret-ivan"))
	})
}

func TestDeleteUserAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		kim, tok := c.User("kim")
		c.Expect(201, "POST", "/user/keys", tok, apptest.Form("title", "k", "key", ed25519Key("kim")))
		c.ExpectBody(400, `{"error":"hard_delete is invalid"}`, "DELETE", fmt.Sprintf("/users/%d?hard_delete=maybe", kim), root, nil)
		d := c.Expect(200, "DELETE", fmt.Sprintf("/users/%d?hard_delete=true", kim), root, nil).Object(t)
		if d["username"] != "kim" {
			t.Errorf("delete body %v", d)
		}
		for _, p := range []string{fmt.Sprintf("/users/%d", kim), "/users/999999"} {
			if r := c.Expect(200, "DELETE", p, root, nil); len(r.Body) != 0 {
				t.Errorf("DELETE %s of nobody: body %q", p, r.Body)
			}
		}
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", tok, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "GET", fmt.Sprintf("/users/%d", kim), root, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "DELETE", "/users/abc", root, nil)
		_, lee := c.User("lee")
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", "/users/1", lee, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden - An administrator cannot delete their own account"}`, "DELETE", "/users/1", root, nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "DELETE", "/users/1", "", nil)
	})
}

func TestBlockAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		sam, tok := c.User("sam")
		sess := c.Expect(201, "POST", "/session", "", apptest.Form("login", "sam", "password", "secret-sam")).Object(t)["private_token"].(string)
		block, unblock := fmt.Sprintf("/users/%d/block", sam), fmt.Sprintf("/users/%d/unblock", sam)
		c.ExpectBody(201, `true`, "POST", block, root, nil)
		c.ExpectBody(201, `true`, "POST", block, root, nil) // repeat
		unauthorized := `{"message":"401 Unauthorized"}`
		for _, secret := range []string{tok, sess} {
			c.ExpectBody(401, unauthorized, "GET", "/user", secret, nil)
			c.ExpectBody(401, unauthorized, "GET", "/user/keys", secret, nil)
		}
		c.ExpectBody(401, unauthorized, "POST", "/session", "", apptest.Form("login", "sam", "password", "secret-sam"))
		if u := c.Expect(200, "GET", fmt.Sprintf("/users/%d", sam), root, nil).Object(t); u["state"] != "blocked" {
			t.Errorf("state %v", u["state"])
		}
		if l := c.Expect(200, "GET", "/users?blocked=true", root, nil).List(t); len(l) != 1 || l[0]["username"] != "sam" {
			t.Errorf("blocked=true %v", l)
		}
		c.ExpectBody(201, `true`, "POST", unblock, root, nil)
		c.Expect(200, "GET", "/user", tok, nil)
		c.Expect(200, "GET", "/user", sess, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/block", root, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/unblock", root, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/abc/block", root, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", "/users/1/block", tok, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden - The API initiating user cannot be blocked by the API"}`, "POST", "/users/1/block", root, nil)
		c.ExpectBody(401, unauthorized, "POST", block, "", nil)
	})
}

func TestKeysAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		nina, tok := c.User("nina")
		_, other := c.User("oscar")
		key := ed25519Key("nina@laptop")
		k := c.Expect(201, "POST", "/user/keys", tok, apptest.Form("title", "laptop", "key", key)).Object(t)
		if len(k) != 4 || k["title"] != "laptop" || k["key"] != key || k["created_at"] == nil {
			t.Errorf("key %v", k)
		}
		kid := apptest.ID(k)
		rk, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		c.Expect(201, "POST", "/user/keys", tok, map[string]string{"title": "rsa", "key": rsaKey(rk.E, rk.N)})
		invalid := `{"message":{"key":["is invalid"],"fingerprint":["cannot be generated"]}}`
		c.ExpectBody(400, `{"message":{"fingerprint":["has already been taken"]}}`, "POST", "/user/keys", other, apptest.Form("title", "stolen", "key", key))
		c.ExpectBody(400, invalid, "POST", "/user/keys", tok, apptest.Form("title", "bad", "key", "ssh-ed25519 AAAAnot-base64!!"))
		c.ExpectBody(400, invalid, "POST", "/user/keys", tok, apptest.Form("title", "bad", "key", "ssh-rsa "+strings.Fields(key)[1]))
		c.ExpectBody(400, invalid, "POST", "/user/keys", tok, apptest.Form("title", "bad", "key", "hello world"))
		small, _ := new(big.Int).SetString(strings.Repeat("f", 128), 16)
		c.ExpectBody(400, `{"message":{"key":["must be at least 1024 bits"]}}`, "POST", "/user/keys", tok, apptest.Form("title", "small", "key", rsaKey(65537, small)))
		c.ExpectBody(400, `{"error":"title is missing"}`, "POST", "/user/keys", tok, apptest.Form("key", ed25519Key("x")))
		c.ExpectBody(400, `{"error":"title is missing, key is missing"}`, "POST", "/user/keys", tok, nil)
		if l := c.Expect(200, "GET", "/user/keys", tok, nil).List(t); len(l) != 2 {
			t.Errorf("own keys %v", l)
		}
		c.Expect(200, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
		notFound := `{"message":"404 Key Not Found"}`
		c.ExpectBody(404, notFound, "GET", fmt.Sprintf("/user/keys/%d", kid), other, nil)
		c.ExpectBody(404, notFound, "GET", "/user/keys/abc", tok, nil)
		full := c.Expect(200, "GET", fmt.Sprintf("/keys/%d", kid), root, nil).Object(t)
		apptest.HasKeys(t, full["user"].(map[string]any), fullFields...)
		if full["user"].(map[string]any)["username"] != "nina" || full["key"] != key {
			t.Errorf("GET /keys/:id %v", full)
		}
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", fmt.Sprintf("/keys/%d", kid), tok, nil)
		c.ExpectBody(404, notFound, "GET", "/keys/999999", root, nil)
		// administrators and other users' keys
		base := fmt.Sprintf("/users/%d/keys", nina)
		if l := c.Expect(200, "GET", base, root, nil).List(t); len(l) != 2 {
			t.Errorf("admin list %v", l)
		}
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", base, other, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/keys", root, nil)
		k2 := c.Expect(201, "POST", base, root, apptest.Form("title", "ci", "key", ed25519Key("ci"))).Object(t)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/keys", root, apptest.Form("title", "ci", "key", ed25519Key("ci")))
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", base, other, apptest.Form("title", "ci", "key", ed25519Key("ci")))
		if d := c.Expect(200, "DELETE", fmt.Sprintf("%s/%d", base, apptest.ID(k2)), root, nil).Object(t); d["title"] != "ci" {
			t.Errorf("delete body %v", d)
		}
		c.ExpectBody(404, notFound, "DELETE", fmt.Sprintf("%s/%d", base, apptest.ID(k2)), root, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "DELETE", fmt.Sprintf("/users/999999/keys/%d", kid), root, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", fmt.Sprintf("%s/%d", base, kid), other, nil)
		// own deletes are idempotent and never touch another user's key
		c.Expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), other, nil)
		c.Expect(200, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
		c.Expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
		if r := c.Expect(200, "DELETE", fmt.Sprintf("/user/keys/%d", kid), tok, nil); len(r.Body) != 0 {
			t.Errorf("second delete body %q", r.Body)
		}
		c.ExpectBody(404, notFound, "GET", fmt.Sprintf("/user/keys/%d", kid), tok, nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user/keys", "", nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", "/user/keys", "", apptest.Form("title", "x", "key", key))
	})
}

func TestEmailsAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		peggy, tok := c.User("peggy")
		_, other := c.User("quinn")
		e := c.Expect(201, "POST", "/user/emails", tok, apptest.Form("email", "Peggy.Work@example.com")).Object(t)
		if len(e) != 2 || e["email"] != "peggy.work@example.com" {
			t.Errorf("email %v", e)
		}
		eid := apptest.ID(e)
		taken := `{"message":{"email":["has already been taken"]}}`
		for _, addr := range []string{"PEGGY.work@example.com", "peggy@example.com", "admin@example.com"} {
			c.ExpectBody(400, taken, "POST", "/user/emails", other, apptest.Form("email", addr))
		}
		c.ExpectBody(400, taken, "POST", "/user/emails", tok, apptest.Form("email", "peggy@example.com"))
		c.ExpectBody(400, `{"message":{"email":["is invalid"]}}`, "POST", "/user/emails", tok, apptest.Form("email", "nope"))
		c.ExpectBody(400, `{"error":"email is missing"}`, "POST", "/user/emails", tok, nil)
		c.ExpectBody(409, `{"message":"Email has already been taken"}`, "POST", "/users", root,
			apptest.Form("username", "ray", "email", "peggy.work@example.com", "name", "R", "password", "password1"))
		if l := c.Expect(200, "GET", "/user/emails", tok, nil).List(t); len(l) != 1 {
			t.Errorf("own emails %v", l)
		}
		c.Expect(200, "GET", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
		notFound := `{"message":"404 Email Not Found"}`
		c.ExpectBody(404, notFound, "GET", fmt.Sprintf("/user/emails/%d", eid), other, nil)
		c.ExpectBody(404, notFound, "GET", "/user/emails/abc", tok, nil)
		base := fmt.Sprintf("/users/%d/emails", peggy)
		if l := c.Expect(200, "GET", base, root, nil).List(t); len(l) != 1 {
			t.Errorf("admin list %v", l)
		}
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", base, other, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/emails", root, nil)
		e2 := c.Expect(201, "POST", base, root, apptest.Form("email", "peggy.home@example.com")).Object(t)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/emails", root, apptest.Form("email", "z@example.com"))
		c.Expect(200, "DELETE", fmt.Sprintf("%s/%d", base, apptest.ID(e2)), root, nil)
		c.ExpectBody(404, notFound, "DELETE", fmt.Sprintf("%s/%d", base, apptest.ID(e2)), root, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "DELETE", fmt.Sprintf("/users/999999/emails/%d", eid), root, nil)
		c.Expect(200, "DELETE", fmt.Sprintf("/user/emails/%d", eid), other, nil) // not theirs: untouched
		c.Expect(200, "GET", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
		c.Expect(200, "DELETE", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
		c.Expect(200, "DELETE", fmt.Sprintf("/user/emails/%d", eid), tok, nil)
		c.Expect(201, "POST", "/user/emails", other, apptest.Form("email", "peggy.work@example.com"))
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user/emails", "", nil)
	})
}

func TestImpersonationTokensAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		trent, own := c.User("trent")
		base := fmt.Sprintf("/users/%d/impersonation_tokens", trent)
		tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
		tk := c.Expect(201, "POST", base, root, apptest.Form("name", "imp", "scopes[]", "api", "scopes[]", "read_user", "expires_at", tomorrow)).Object(t)
		apptest.HasKeys(t, tk, "id", "name", "active", "revoked", "scopes", "token", "impersonation", "created_at", "expires_at")
		if tk["impersonation"] != true || tk["active"] != true || tk["revoked"] != false || tk["expires_at"] != tomorrow ||
			len(tk["scopes"].([]any)) != 2 || !strings.HasPrefix(tk["token"].(string), "glpat-") {
			t.Errorf("token %v", tk)
		}
		secret, tid := tk["token"].(string), apptest.ID(tk)
		if me := c.Expect(200, "GET", "/user", secret, nil).Object(t); me["username"] != "trent" {
			t.Errorf("acts as %v", me["username"])
		}
		one := c.Expect(200, "GET", fmt.Sprintf("%s/%d", base, tid), root, nil).Object(t)
		apptest.LacksKeys(t, one, "token")
		if l := c.Expect(200, "GET", base+"?state=active", root, nil).List(t); len(l) != 2 {
			t.Errorf("active %d", len(l))
		}
		// JSON array scopes, no expiry
		js := c.Expect(201, "POST", base, root, map[string]any{"name": "json", "scopes": []string{"api"}}).Object(t)
		if js["expires_at"] != nil {
			t.Errorf("json token %v", js)
		}
		// bad input
		c.ExpectBody(400, `{"error":"scopes is missing"}`, "POST", base, root, apptest.Form("name", "x"))
		c.ExpectBody(400, `{"error":"name is missing, scopes is missing"}`, "POST", base, root, nil)
		c.ExpectBody(400, `{"error":"scopes does not have a valid value"}`, "POST", base, root, apptest.Form("name", "x", "scopes[]", "sudo"))
		c.ExpectBody(400, `{"error":"expires_at is invalid"}`, "POST", base, root, apptest.Form("name", "x", "scopes[]", "api", "expires_at", "soon"))
		c.ExpectBody(400, `{"message":{"expires_at":["cannot be a date in the past"]}}`, "POST", base, root, apptest.Form("name", "x", "scopes[]", "api", "expires_at", "2001-01-01"))
		c.ExpectBody(400, `{"error":"state does not have a valid value"}`, "GET", base+"?state=sleepy", root, nil)
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/impersonation_tokens", root, apptest.Form("name", "x", "scopes[]", "api"))
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "GET", "/users/999999/impersonation_tokens", root, nil)
		c.ExpectBody(404, `{"message":"404 Impersonation Token Not Found"}`, "GET", base+"/999999", root, nil)
		c.ExpectBody(404, `{"message":"404 Impersonation Token Not Found"}`, "GET", base+"/abc", root, nil)
		c.ExpectBody(404, `{"message":"404 Impersonation Token Not Found"}`, "DELETE", base+"/999999", root, nil)
		forbidden := `{"message":"403 Forbidden"}`
		c.ExpectBody(403, forbidden, "GET", base, own, nil)
		c.ExpectBody(403, forbidden, "POST", base, own, apptest.Form("name", "x", "scopes[]", "api"))
		c.ExpectBody(403, forbidden, "DELETE", fmt.Sprintf("%s/%d", base, tid), own, nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", base, "", nil)
		// hidden from the user's personal token list
		for _, l := range c.Expect(200, "GET", fmt.Sprintf("/users/%d/personal_access_tokens", trent), root, nil).List(t) {
			t.Errorf("impersonation token among personal tokens: %v", l)
		}
		// revoke: 204, fails at once everywhere, shows as inactive
		if r := c.Expect(204, "DELETE", fmt.Sprintf("%s/%d", base, tid), root, nil); len(r.Body) != 0 {
			t.Errorf("revoke body %q", r.Body)
		}
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", secret, nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user/keys", secret, nil)
		if got := c.Expect(200, "GET", fmt.Sprintf("%s/%d", base, tid), root, nil).Object(t); got["revoked"] != true || got["active"] != false {
			t.Errorf("after revoke %v", got)
		}
		c.Expect(204, "DELETE", fmt.Sprintf("%s/%d", base, tid), root, nil)
		if l := c.Expect(200, "GET", base+"?state=inactive", root, nil).List(t); len(l) != 1 {
			t.Errorf("inactive %d", len(l))
		}
		// expiry: the token dies on its date
		exp := c.Expect(201, "POST", base, root, apptest.Form("name", "short", "scopes[]", "api", "expires_at", tomorrow)).Object(t)["token"].(string)
		c.Expect(200, "GET", "/user", exp, nil)
		c.Srv.Advance(48 * time.Hour)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", exp, nil)
		c.Expect(200, "GET", "/user", own, nil)
	})
}

func TestPersonalTokensAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken
		uma, tok := c.User("uma")
		base := fmt.Sprintf("/users/%d/personal_access_tokens", uma)
		p := c.Expect(201, "POST", base, root, apptest.Form("name", "ci", "scopes[]", "api", "scopes[]", "sudo")).Object(t)
		apptest.HasKeys(t, p, "id", "name", "active", "revoked", "scopes", "token", "impersonation", "created_at", "expires_at")
		if p["impersonation"] != false || p["expires_at"] != nil || p["active"] != true {
			t.Errorf("personal token %v", p)
		}
		if me := c.Expect(200, "GET", "/user", p["token"].(string), nil).Object(t); me["username"] != "uma" {
			t.Errorf("acts as %v", me["username"])
		}
		// the session token is not listed either
		c.Expect(201, "POST", "/session", "", apptest.Form("login", "uma", "password", "secret-uma"))
		l := c.Expect(200, "GET", base, root, nil).List(t)
		if len(l) != 1 || apptest.ID(l[0]) != apptest.ID(p) {
			t.Errorf("personal list %v", l)
		}
		apptest.LacksKeys(t, l[0], "token")
		c.Expect(200, "GET", fmt.Sprintf("%s/%d", base, apptest.ID(p)), root, nil)
		c.ExpectBody(404, `{"message":"404 Personal Access Token Not Found"}`, "GET", base+"/999999", root, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", base, tok, apptest.Form("name", "ci", "scopes[]", "api"))
		c.ExpectBody(400, `{"error":"scopes is missing"}`, "POST", base, root, apptest.Form("name", "ci"))
		c.ExpectBody(400, `{"error":"scopes does not have a valid value"}`, "POST", base, root, apptest.Form("name", "ci", "scopes[]", "write_everything"))
		c.ExpectBody(404, `{"message":"404 User Not Found"}`, "POST", "/users/999999/personal_access_tokens", root, apptest.Form("name", "ci", "scopes[]", "api"))
		c.Expect(204, "DELETE", fmt.Sprintf("%s/%d", base, apptest.ID(p)), root, nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user", p["token"].(string), nil)
	})
}

func TestActivitiesAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		c.Expect(201, "POST", "/session", "", apptest.Form("login", "root", "password", apptest.RootPassword))
		_, tok := c.User("victor")
		c.Expect(201, "POST", "/session", "", apptest.Form("login", "victor", "password", "secret-victor"))
		r := c.Expect(200, "GET", "/user/activities", c.Srv.RootToken, nil)
		l := r.List(t)
		today := time.Now().UTC().Format("2006-01-02")
		if len(l) != 2 || r.Header.Get("X-Total") != "2" {
			t.Fatalf("activities %v", l)
		}
		for _, a := range l {
			if len(a) != 3 || a["last_activity_on"] != today || a["last_activity_at"] != today {
				t.Errorf("entry %v", a)
			}
		}
		if l := c.Expect(200, "GET", "/user/activities?from=2999-01-01", c.Srv.RootToken, nil).List(t); len(l) != 0 {
			t.Errorf("future: %v", l)
		}
		c.ExpectBody(400, `{"error":"from is invalid"}`, "GET", "/user/activities?from=last-week", c.Srv.RootToken, nil)
		c.ExpectBody(400, `{"error":"per_page is invalid"}`, "GET", "/user/activities?per_page=x", c.Srv.RootToken, nil)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", "/user/activities", tok, nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", "/user/activities", "", nil)
	})
}

func TestLockoutAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		c.User("yuri")
		unauthorized := `{"message":"401 Unauthorized"}`
		for i := 0; i < 10; i++ {
			c.ExpectBody(401, unauthorized, "POST", "/session", "", apptest.Form("login", "yuri", "password", "wrong-password"))
		}
		c.ExpectBody(401, unauthorized, "POST", "/session", "", apptest.Form("login", "yuri", "password", "secret-yuri"))
		c.ExpectBody(401, unauthorized, "POST", "/session", "", apptest.Form("email", "yuri@example.com", "password", "secret-yuri"))
		c.Srv.Advance(10 * time.Minute)
		c.Expect(201, "POST", "/session", "", apptest.Form("login", "yuri", "password", "secret-yuri"))
	})
}

// TestNoSecretsInLogs signs in, creates tokens and uses them (also as query
// parameters) and checks no password or token reaches the log.
func TestNoSecretsInLogs(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		wid, tok := c.User("wanda")
		sess := c.Expect(201, "POST", "/session", "", apptest.Form("login", "wanda", "password", "secret-wanda")).Object(t)["private_token"].(string)
		pat := c.Expect(201, "POST", fmt.Sprintf("/users/%d/personal_access_tokens", wid), c.Srv.RootToken,
			apptest.Form("name", "p", "scopes[]", "api")).Object(t)["token"].(string)
		c.Expect(200, "GET", "/user?private_token="+url.QueryEscape(pat), "", nil)
		c.Expect(401, "POST", "/session", "", apptest.Form("login", "wanda", "password", "typo-password"))
		c.Expect(200, "PUT", fmt.Sprintf("/users/%d", wid), c.Srv.RootToken, apptest.Form("password", "changed-password"))
		logs := c.Srv.Logs()
		if !strings.Contains(logs, "token created") {
			t.Fatal("the test server's log is not captured")
		}
		for _, secret := range []string{tok, sess, pat, c.Srv.RootToken, apptest.RootPassword, "secret-wanda", "typo-password", "changed-password"} {
			if strings.Contains(logs, secret) {
				t.Errorf("log contains a secret %q", secret[:4]+"...")
			}
		}
	})
}
