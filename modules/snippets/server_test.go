package snippets_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// Access levels as the members API takes them.
const (
	guest    = 10
	reporter = 20
	master   = 40
)

// server is a running Hearth for the snippet API tests.
type server struct {
	*apptest.Server
	t *testing.T
}

func newServer(t *testing.T, opts ...apptest.Option) *server {
	t.Helper()
	return &server{Server: apptest.New(t, opts...), t: t}
}

// eachDriver runs fn against a fresh server on SQLite and on Postgres
// (skipped without a Postgres server unless CI is set).
func eachDriver(t *testing.T, fn func(t *testing.T, s *server)) {
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) { fn(t, newServer(t, apptest.Driver(driver))) })
	}
}

// person is a user with an api token.
type person struct {
	id    int64
	name  string
	token string
}

// person creates a user (extra: more user parameters, e.g. "external",
// "true") and a personal token for it.
func (s *server) person(name string, extra ...string) person {
	s.t.Helper()
	v := form("username", name, "email", name+"@example.com", "name", "User "+name,
		"password", "secret-"+name+"-pw", "skip_confirmation", "true")
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	var u struct{ ID int64 }
	s.JSON(s.t, "POST", "/users", s.RootToken, v, 201, &u)
	_, secret, err := s.Users.CreatePersonalToken(context.Background(), nil, u.ID, "tests", []string{"api"}, nil)
	if err != nil {
		s.t.Fatalf("token of %s: %v", name, err)
	}
	return person{id: u.ID, name: name, token: secret}
}

// project creates a project as root (path root/<name>); extra are more
// project parameters.
func (s *server) project(name, visibility string, extra ...string) int64 {
	s.t.Helper()
	var p struct{ ID int64 }
	s.JSON(s.t, "POST", "/projects", s.RootToken, form(append([]string{"name", name, "visibility", visibility}, extra...)...), 201, &p)
	return p.ID
}

// member adds p to a project with level.
func (s *server) member(projectID int64, p person, level int) {
	s.t.Helper()
	s.JSON(s.t, "POST", fmt.Sprintf("/projects/%d/members", projectID), s.RootToken,
		form("user_id", fmt.Sprint(p.id), "access_level", fmt.Sprint(level)), 201, nil)
}

// unmember removes p from a project.
func (s *server) unmember(projectID int64, p person) {
	s.t.Helper()
	resp, data := s.Do(s.t, "DELETE", fmt.Sprintf("/projects/%d/members/%d", projectID, p.id), s.RootToken, nil)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("remove member %s: %d %s", p.name, resp.StatusCode, data)
	}
}

// snippetJSON is the snippet entity as the tests read it.
type snippetJSON struct {
	ID          int64    `json:"id"`
	Title       string   `json:"title"`
	FileName    string   `json:"file_name"`
	Description string   `json:"description"`
	Author      userJSON `json:"author"`
	UpdatedAt   string   `json:"updated_at"`
	CreatedAt   string   `json:"created_at"`
	ProjectID   int64    `json:"project_id"`
	WebURL      string   `json:"web_url"`
	ExpiresAt   *string  `json:"expires_at"`
	Visibility  string   `json:"visibility"`
}

type userJSON struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

func snippetsPath(projectID int64) string { return fmt.Sprintf("/projects/%d/snippets", projectID) }

func snippetPath(projectID, id int64, suffix string) string {
	return fmt.Sprintf("/projects/%d/snippets/%d%s", projectID, id, suffix)
}

// create makes a snippet expecting 201.
func (s *server) create(token string, projectID int64, title, visibility string, extra ...string) snippetJSON {
	s.t.Helper()
	var out snippetJSON
	body := form(append([]string{"title", title, "file_name", "a.rb", "code", "puts '" + title + "'\n",
		"visibility", visibility}, extra...)...)
	decode(s.t, s.expect(201, "", "POST", snippetsPath(projectID), token, body), &out)
	return out
}

// form builds url.Values from key, value pairs.
func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// expect sends a request, checks the status and, when want is not empty,
// that the body equals want (as JSON).
func (s *server) expect(status int, want, method, path, token string, body any) []byte {
	s.t.Helper()
	resp, data := s.Do(s.t, method, path, token, body)
	if resp.StatusCode != status {
		s.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, resp.StatusCode, status, data)
	}
	if want != "" && !jsonEqual(data, []byte(want)) {
		s.t.Fatalf("%s %s: body %s, want %s", method, path, data, want)
	}
	return data
}

// withAgent sends a request with a User-Agent header and a form body.
func (s *server) withAgent(method, path, token, agent string, body url.Values) (*http.Response, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.API()+path, bytes.NewBufferString(body.Encode()))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("PRIVATE-TOKEN", token)
	req.Header.Set("User-Agent", agent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp, data
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// decode is json.Unmarshal failing the test.
func decode(t *testing.T, data []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// keys lists the keys of a JSON object, sorted.
func keys(t *testing.T, data []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	decode(t, data, &m)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ids lists the IDs of a list in order.
func ids(list []snippetJSON) []int64 {
	out := make([]int64, 0, len(list))
	for _, sn := range list {
		out = append(out, sn.ID)
	}
	return out
}
