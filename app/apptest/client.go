package apptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// Client drives one test server as a GitLab client would. Every request
// fails the test on a 5xx, and on a body whose Content-Type is not exactly
// application/json (API-CONVENTIONS: clients parse nothing else).
type Client struct {
	T   testing.TB
	Srv *Server
}

// Client returns a client of s for t.
func (s *Server) Client(t testing.TB) *Client { return &Client{T: t, Srv: s} }

// EachDriver runs fn against a fresh server on SQLite and on Postgres (the
// Postgres run skips when no server answers, unless CI is set), in
// parallel.
func EachDriver(t *testing.T, fn func(t *testing.T, c *Client), opts ...Option) {
	t.Helper()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			fn(t, New(t, append([]Option{Driver(driver)}, opts...)...).Client(t))
		})
	}
}

// Reply is a finished response.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Send makes one request (path relative to /api/v4, as Server.Do takes it)
// with token as PRIVATE-TOKEN; a url.Values body is a form, anything else
// non-nil JSON.
func (c *Client) Send(method, path, token string, body any) Reply {
	c.T.Helper()
	resp, raw := c.Srv.Do(c.T, method, path, token, body)
	r := Reply{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	if r.Status >= 500 {
		c.T.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	if len(r.Body) > 0 && resp.Header.Get("Content-Type") != "application/json" && !strings.HasPrefix(path, "/-/") {
		c.T.Fatalf("%s %s: Content-Type %q", method, path, resp.Header.Get("Content-Type"))
	}
	return r
}

// Expect is Send that fails unless the status is status.
func (c *Client) Expect(status int, method, path, token string, body any) Reply {
	c.T.Helper()
	r := c.Send(method, path, token, body)
	if r.Status != status {
		c.T.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.Status, status, r.Body)
	}
	return r
}

// ExpectBody checks the status and that the body equals want as JSON.
func (c *Client) ExpectBody(status int, want, method, path, token string, body any) {
	c.T.Helper()
	r := c.Expect(status, method, path, token, body)
	if !JSONEqual(r.Body, []byte(want)) {
		c.T.Fatalf("%s %s: body %s, want %s", method, path, r.Body, want)
	}
}

// Object decodes the body as one JSON object.
func (r Reply) Object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.Decode(t, &m)
	return m
}

// List decodes the body as a JSON array of objects.
func (r Reply) List(t testing.TB) []map[string]any {
	t.Helper()
	var l []map[string]any
	r.Decode(t, &l)
	return l
}

// Decode decodes the body into v.
func (r Reply) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// User creates an ordinary user as root and returns its ID and an api
// impersonation token. extra are more POST /users fields.
func (c *Client) User(name string, extra ...string) (int64, string) {
	c.T.Helper()
	f := Form(append([]string{"username", name, "email", name + "@example.com",
		"name", strings.ToUpper(name), "password", "secret-" + name}, extra...)...)
	u := c.Expect(201, "POST", "/users", c.Srv.RootToken, f).Object(c.T)
	tok := c.Expect(201, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", ID(u)), c.Srv.RootToken,
		Form("name", "t", "scopes[]", "api")).Object(c.T)
	return ID(u), tok["token"].(string)
}

// Group creates a group as token from the given fields.
func (c *Client) Group(token string, kv ...string) map[string]any {
	c.T.Helper()
	return c.Expect(201, "POST", "/groups", token, Form(kv...)).Object(c.T)
}

// Project creates a project as token from the given fields.
func (c *Client) Project(token string, kv ...string) map[string]any {
	c.T.Helper()
	return c.Expect(201, "POST", "/projects", token, Form(kv...)).Object(c.T)
}

// AddMember adds a user to a group or project (kind "groups" or
// "projects") as root.
func (c *Client) AddMember(kind string, sourceID, userID int64, level int) {
	c.T.Helper()
	c.Expect(201, "POST", fmt.Sprintf("/%s/%d/members", kind, sourceID), c.Srv.RootToken,
		Form("user_id", fmt.Sprint(userID), "access_level", fmt.Sprint(level)))
}

// Form builds form values from key, value pairs.
func Form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// ID is the "id" of a decoded object.
func ID(m map[string]any) int64 { return int64(m["id"].(float64)) }

// JSONEqual compares two JSON documents by value.
func JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// Names lists a field of every object, sorted.
func Names(l []map[string]any, field string) []string {
	out := Ordered(l, field)
	sort.Strings(out)
	return out
}

// Ordered lists a field of every object in order.
func Ordered(l []map[string]any, field string) []string {
	out := make([]string, 0, len(l))
	for _, m := range l {
		out = append(out, fmt.Sprint(m[field]))
	}
	return out
}

// HasKeys fails t for each key m lacks.
func HasKeys(t testing.TB, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("missing %q in %v", k, m)
		}
	}
}

// LacksKeys fails t for each key m has.
func LacksKeys(t testing.TB, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; ok {
			t.Errorf("unexpected %q in %v", k, m)
		}
	}
}

// Git runs git in dir with an isolated configuration and a fixed identity,
// and returns its trimmed output; a failure fails t.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_SSH_COMMAND="+GitSSHCommand(),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
