package todos_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// fixture is a running Hearth with three users (root, alice, bob), two
// projects and direct access to the todo and merge request stores, which
// other modules fill in production.
type fixture struct {
	t     *testing.T
	srv   *apptest.Server
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

// eachDriver runs fn on SQLite and on Postgres (skipped without a server
// unless CI is set).
func eachDriver(t *testing.T, fn func(t *testing.T, driver string)) {
	t.Helper()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			fn(t, driver)
		})
	}
}

func newFixture(t *testing.T, driver string) *fixture {
	t.Helper()
	f := &fixture{t: t, base: time.Now().UTC().Add(-time.Hour).Truncate(time.Second)}
	f.srv = apptest.New(t, apptest.Driver(driver), apptest.With(fx.Populate(&f.todos, &f.mrs)))
	root, err := f.srv.Users.UserByLogin(context.Background(), "root")
	if err != nil {
		t.Fatalf("root: %v", err)
	}
	f.root = user{ID: root.ID, Username: "root", Token: f.srv.RootToken}
	f.alice = f.user("alice")
	f.bob = f.user("bob")
	return f
}

// user creates a user and an api token for it.
func (f *fixture) user(name string) user {
	f.t.Helper()
	var u struct{ ID int64 }
	f.srv.JSON(f.t, http.MethodPost, "/users", f.srv.RootToken, url.Values{"username": {name}, "email": {name + "@example.com"},
		"name": {"User " + name}, "password": {"secret-" + name + "-pw"}, "skip_confirmation": {"true"}}, http.StatusCreated, &u)
	_, secret, err := f.srv.Users.CreatePersonalToken(context.Background(), nil, u.ID, "tests", []string{"api"}, nil)
	if err != nil {
		f.t.Fatalf("token of %s: %v", name, err)
	}
	return user{ID: u.ID, Username: name, Token: secret}
}

// project creates a public project of owner.
func (f *fixture) project(owner user, name string) project {
	f.t.Helper()
	var p project
	f.srv.JSON(f.t, http.MethodPost, fmt.Sprintf("/projects/user/%d", owner.ID), f.srv.RootToken,
		map[string]any{"name": name, "visibility": "public"}, http.StatusCreated, &p)
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
	resp := f.srv.JSON(f.t, http.MethodGet, "/todos?"+query, u.Token, nil, http.StatusOK, &out)
	return out, resp.Header
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
	resp, data := f.srv.Do(f.t, method, path, token, nil)
	if resp.StatusCode != status || strings.TrimSpace(string(data)) != body {
		f.t.Errorf("%s %s: %d %s, want %d %s", method, path, resp.StatusCode, data, status, body)
	}
}
