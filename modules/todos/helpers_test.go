package todos_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// fixture is a running Hearth, driven through the shared API client, with
// three users (root, alice, bob) and direct access to the todo and merge
// request stores, which other modules fill in production.
type fixture struct {
	t     *testing.T
	c     *apptest.Client
	todos ports.TodoStore
	mrs   ports.MergeRequestStore
	root  user
	alice user
	bob   user
	base  time.Time
	seq   int
}

type user struct {
	ID       int64
	Username string
	Token    string
}

type project struct {
	ID                int64  `json:"id"`
	Name              string `json:"name"`
	NameWithNamespace string `json:"name_with_namespace"`
	Path              string `json:"path"`
	PathWithNamespace string `json:"path_with_namespace"`
	WebURL            string `json:"web_url"`
}

// newFixture starts a server (SQLite) for t.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	return fixtureOf(t, apptest.New(t).Client(t))
}

// fixtureOf seeds the users on c's server.
func fixtureOf(t *testing.T, c *apptest.Client) *fixture {
	t.Helper()
	f := &fixture{t: t, c: c, todos: c.Srv.Store.Todos(), mrs: c.Srv.Store.MergeRequests(),
		base: time.Now().UTC().Add(-time.Hour).Truncate(time.Second)}
	root, err := c.Srv.Users.UserByLogin(context.Background(), "root")
	if err != nil {
		t.Fatalf("root: %v", err)
	}
	f.root = user{ID: root.ID, Username: "root", Token: c.Srv.RootToken}
	f.alice = f.user("alice")
	f.bob = f.user("bob")
	return f
}

// eachDriver runs fn on a fresh fixture on SQLite and on Postgres
// (skipped without a server unless CI is set), in parallel.
func eachDriver(t *testing.T, fn func(t *testing.T, f *fixture)) {
	t.Helper()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) { fn(t, fixtureOf(t, c)) })
}

// user creates a user and an api token for it.
func (f *fixture) user(name string) user {
	f.t.Helper()
	id, token := f.c.User(name)
	return user{ID: id, Username: name, Token: token}
}

// project creates a public project of owner.
func (f *fixture) project(owner user, name string) project {
	f.t.Helper()
	var p project
	f.c.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/user/%d", owner.ID), f.c.Srv.RootToken,
		map[string]any{"name": name, "visibility": "public"}).Decode(f.t, &p)
	return p
}

// mergeRequest stores an open merge request of p by author.
func (f *fixture) mergeRequest(p project, author user, title string) domain.MergeRequest {
	f.t.Helper()
	f.seq++
	m := domain.MergeRequest{ProjectID: p.ID, SourceProjectID: p.ID, TargetProjectID: p.ID, Title: title,
		State: domain.MROpened, SourceBranch: fmt.Sprintf("feature-%d", f.seq), TargetBranch: "master", AuthorID: author.ID,
		MergeStatus: domain.MergeCanBeMerged, SourceSHA: strings.Repeat("a", 40), TargetSHA: strings.Repeat("b", 40),
		BaseSHA: strings.Repeat("b", 40)}
	if err := f.mrs.Create(context.Background(), &m); err != nil {
		f.t.Fatalf("create merge request %q: %v", title, err)
	}
	return m
}

// todo stores a pending todo for owner, each one a minute newer than the
// last, so that lists have a known order.
func (f *fixture) todo(owner user, p project, author user, targetType string, targetID int64, action string) domain.Todo {
	f.t.Helper()
	f.seq++
	at := f.base.Add(time.Duration(f.seq) * time.Minute)
	in := &domain.Todo{UserID: owner.ID, ProjectID: p.ID, AuthorID: author.ID, TargetType: targetType,
		TargetID: targetID, Action: action, State: domain.TodoPending, CreatedAt: at, UpdatedAt: at}
	td, created, err := f.todos.CreatePending(context.Background(), in)
	if err != nil || !created {
		f.t.Fatalf("create todo %+v: created %v, %v", in, created, err)
	}
	return *td
}

// todoJSON is the todo entity as clients read it.
type todoJSON struct {
	ID      int64 `json:"id"`
	Project *struct {
		ID                int64  `json:"id"`
		Name              string `json:"name"`
		NameWithNamespace string `json:"name_with_namespace"`
		Path              string `json:"path"`
		PathWithNamespace string `json:"path_with_namespace"`
	} `json:"project"`
	Author *struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	} `json:"author"`
	ActionName string          `json:"action_name"`
	TargetType string          `json:"target_type"`
	Target     json.RawMessage `json:"target"`
	TargetURL  string          `json:"target_url"`
	Body       string          `json:"body"`
	State      string          `json:"state"`
	CreatedAt  string          `json:"created_at"`
}

// list reads GET /todos?query as u, expecting 200.
func (f *fixture) list(u user, query string) ([]todoJSON, http.Header) {
	f.t.Helper()
	var out []todoJSON
	r := f.c.Expect(http.StatusOK, http.MethodGet, "/todos?"+query, u.Token, nil)
	r.Decode(f.t, &out)
	return out, r.Header
}

// ids lists the IDs of todos, in order.
func ids(list []todoJSON) []int64 {
	out := []int64{}
	for _, t := range list {
		out = append(out, t.ID)
	}
	return out
}

// expectError sends a request and compares status and body exactly.
func (f *fixture) expectError(method, path, token string, status int, body string) {
	f.t.Helper()
	r := f.c.Send(method, path, token, nil)
	if r.Status != status || strings.TrimSpace(string(r.Body)) != body {
		f.t.Errorf("%s %s: %d %s, want %d %s", method, path, r.Status, r.Body, status, body)
	}
}
