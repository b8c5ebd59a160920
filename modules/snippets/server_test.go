package snippets_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// server is the shared API client on a running Hearth, with the snippet
// helpers.
type server struct {
	*apptest.Client
	*apptest.Server
}

func newServer(t *testing.T, opts ...apptest.Option) *server {
	t.Helper()
	srv := apptest.New(t, opts...)
	return &server{Client: srv.Client(t), Server: srv}
}

// eachDriver runs fn against a fresh server on SQLite and on Postgres
// (skipped without a Postgres server unless CI is set), in parallel.
func eachDriver(t *testing.T, fn func(t *testing.T, s *server)) {
	t.Helper()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) { fn(t, &server{Client: c, Server: c.Srv}) })
}

// person is a user with an api token.
type person struct {
	id    int64
	name  string
	token string
}

// person creates a user (extra: more user parameters, e.g. "external",
// "true") and a token for it.
func (s *server) person(name string, extra ...string) person {
	s.T.Helper()
	id, token := s.User(name, extra...)
	return person{id: id, name: name, token: token}
}

// project creates a project as root (path root/<name>); extra are more
// project parameters.
func (s *server) project(name, visibility string, extra ...string) int64 {
	s.T.Helper()
	return apptest.ID(s.Project(s.RootToken, append([]string{"name", name, "visibility", visibility}, extra...)...))
}

// member adds p to a project with level.
func (s *server) member(projectID int64, p person, level domain.AccessLevel) {
	s.T.Helper()
	s.AddMember("projects", projectID, p.id, int(level))
}

// unmember removes p from a project.
func (s *server) unmember(projectID int64, p person) {
	s.T.Helper()
	if r := s.Send("DELETE", fmt.Sprintf("/projects/%d/members/%d", projectID, p.id), s.RootToken, nil); r.Status >= 300 {
		s.T.Fatalf("remove member %s: %d %s", p.name, r.Status, r.Body)
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
	s.T.Helper()
	var out snippetJSON
	body := apptest.Form(append([]string{"title", title, "file_name", "a.rb", "code", "puts '" + title + "'\n",
		"visibility", visibility}, extra...)...)
	s.Expect(201, "POST", snippetsPath(projectID), token, body).Decode(s.T, &out)
	return out
}

// raw reads a snippet's content (text/plain, which the shared client
// does not take), expecting 200.
func (s *server) raw(path, token string) string {
	s.T.Helper()
	resp, data := s.Do(s.T, "GET", path, token, nil)
	if resp.StatusCode != 200 {
		s.T.Fatalf("GET %s: status %d, want 200; body %s", path, resp.StatusCode, data)
	}
	return string(data)
}

// withAgent sends a request with a User-Agent header and a form body.
func (s *server) withAgent(method, path, token, agent string, body url.Values) (*http.Response, []byte) {
	s.T.Helper()
	req, err := http.NewRequest(method, s.API()+path, bytes.NewBufferString(body.Encode()))
	if err != nil {
		s.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("PRIVATE-TOKEN", token)
	req.Header.Set("User-Agent", agent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatal(err)
	}
	return resp, data
}

// keys lists the keys of a JSON object, sorted.
func keys(t *testing.T, data []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
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
