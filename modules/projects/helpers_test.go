package projects_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// newServer starts the real app.
func newServer(t *testing.T, opts ...apptest.Option) *apptest.Server {
	t.Helper()
	return apptest.New(t, opts...)
}

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
			fn(t, client{t: t, srv: newServer(t, apptest.Driver(driver))})
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
// token. extra are more POST /users fields (projects_limit ...).
func (c client) user(name string, extra ...string) (int64, string) {
	c.t.Helper()
	f := form(append([]string{"username", name, "email", name + "@example.com",
		"name", strings.ToUpper(name), "password", "secret-" + name}, extra...)...)
	u := c.expect(201, "POST", "/users", c.srv.RootToken, f).object(c.t)
	tok := c.expect(201, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", id(u)), c.srv.RootToken,
		form("name", "t", "scopes[]", "api")).object(c.t)
	return id(u), tok["token"].(string)
}

// group creates a group as root and returns its ID.
func (c client) group(path, visibility string) int64 {
	c.t.Helper()
	g := c.expect(201, "POST", "/groups", c.srv.RootToken, form("name", path, "path", path, "visibility", visibility)).object(c.t)
	return id(g)
}

// project creates a project as token with the given fields.
func (c client) project(token string, kv ...string) map[string]any {
	c.t.Helper()
	return c.expect(201, "POST", "/projects", token, form(kv...)).object(c.t)
}

// addMember adds a user to a group or project ("groups"/"projects") as root.
func (c client) addMember(kind string, sourceID, userID int64, level int) {
	c.t.Helper()
	c.expect(201, "POST", fmt.Sprintf("/%s/%d/members", kind, sourceID), c.srv.RootToken,
		form("user_id", fmt.Sprint(userID), "access_level", fmt.Sprint(level)))
}

// repoDir is where a project's repository lives on disk.
func (c client) repoDir(projectID int64) string {
	root := c.srv.Config.Git.Root
	if root == "" {
		root = filepath.Join(c.srv.Config.DataDir, "repositories")
	}
	return filepath.Join(root, "projects", fmt.Sprintf("%d.git", projectID))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// git runs git with an isolated configuration and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// pushCommits makes n commits on branch in a scratch clone and pushes them
// into the bare repository at bare.
func pushCommits(t *testing.T, bare, branch string, n int) {
	t.Helper()
	work := t.TempDir()
	git(t, work, "init", "--quiet", "-b", branch)
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(work, "file.txt"), []byte(fmt.Sprintf("version %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, work, "add", "file.txt")
		git(t, work, "commit", "--quiet", "-m", fmt.Sprintf("commit %d", i))
	}
	git(t, work, "push", "--quiet", bare, branch+":refs/heads/"+branch)
}

// waitImport polls the project until import_status leaves scheduled and started.
func (c client) waitImport(token string, projectID int64) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p := c.expect(200, "GET", fmt.Sprintf("/projects/%d", projectID), token, nil).object(c.t)
		switch p["import_status"] {
		case "finished", "failed", "none":
			return p
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("project %d: import_status still %v", projectID, p["import_status"])
		}
		time.Sleep(20 * time.Millisecond)
	}
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
