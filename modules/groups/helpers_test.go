package groups_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

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

func (c client) send(method, path, token string, body any) reply {
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
	r := c.send(method, path, token, body)
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

// user creates an ordinary user and returns its ID and an api impersonation
// token. extra are more POST /users fields (can_create_group ...).
func (c client) user(name string, extra ...string) (int64, string) {
	c.t.Helper()
	f := form(append([]string{"username", name, "email", name + "@example.com",
		"name", strings.ToUpper(name), "password", "secret-" + name}, extra...)...)
	u := c.expect(201, "POST", "/users", c.srv.RootToken, f).object(c.t)
	tok := c.expect(201, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", id(u)), c.srv.RootToken,
		form("name", "t", "scopes[]", "api")).object(c.t)
	return id(u), tok["token"].(string)
}

// group creates a group as token and returns it.
func (c client) group(token string, kv ...string) map[string]any {
	c.t.Helper()
	return c.expect(201, "POST", "/groups", token, form(kv...)).object(c.t)
}

// project creates a project in a namespace as token and returns it.
func (c client) project(token string, namespaceID int64, path, visibility string) map[string]any {
	c.t.Helper()
	return c.expect(201, "POST", "/projects", token, form("name", path, "path", path,
		"namespace_id", fmt.Sprint(namespaceID), "visibility", visibility)).object(c.t)
}

// addMember adds a user to a group or project ("groups"/"projects") as root.
func (c client) addMember(kind string, sourceID, userID int64, level int) {
	c.t.Helper()
	c.expect(201, "POST", fmt.Sprintf("/%s/%d/members", kind, sourceID), c.srv.RootToken,
		form("user_id", fmt.Sprint(userID), "access_level", fmt.Sprint(level)))
}

// names lists a field of every object, sorted.
func names(l []map[string]any, field string) []string {
	out := make([]string, 0, len(l))
	for _, m := range l {
		out = append(out, fmt.Sprint(m[field]))
	}
	sort.Strings(out)
	return out
}

// ordered lists a field of every object in order.
func ordered(l []map[string]any, field string) []string {
	out := make([]string, 0, len(l))
	for _, m := range l {
		out = append(out, fmt.Sprint(m[field]))
	}
	return out
}

func same(a []string, b ...string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
			t.Errorf("unexpected %q in %v", k, m)
		}
	}
}
