package issues_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The tests drive the real app over HTTP with the shared client
// (apptest.Client); what follows are the issue tracker's own seeding and
// reading helpers on top of it.

// Access levels as the members API takes them.
const (
	guest     = 10
	reporter  = 20
	developer = 30
	master    = 40
	owner     = 50
)

const (
	unauthorized     = `{"message":"401 Unauthorized"}`
	forbidden        = `{"message":"403 Forbidden"}`
	projectNotFound  = `{"message":"404 Project Not Found"}`
	issueNotFound    = `{"message":"404 Issue Not Found"}`
	milestoneMissing = `{"message":"404 Milestone Not Found"}`
)

var form = apptest.Form

// server is a running Hearth with the note store and a record of the
// issue and milestone events published.
type server struct {
	*apptest.Server
	*apptest.Client
	t     *testing.T
	notes ports.NoteStore

	mu     sync.Mutex
	events []string // "issue <iid> <action> by <actor>", "milestone <title> <action>"
}

func newServer(t *testing.T, opts ...apptest.Option) *server {
	t.Helper()
	s := &server{t: t}
	opts = append(opts, apptest.With(fx.Populate(&s.notes), fx.Invoke(func(bus ports.EventBus) {
		bus.SubscribeTx(domain.IssueEvent{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
			e := ev.(domain.IssueEvent)
			s.record(fmt.Sprintf("issue %d %s by %d", e.Issue.IID, e.Action, e.Actor))
			return nil
		})
		bus.SubscribeTx(domain.MilestoneEvent{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
			e := ev.(domain.MilestoneEvent)
			s.record(fmt.Sprintf("milestone %s %s", e.Milestone.Title, e.Action))
			return nil
		})
	})))
	s.Server = apptest.New(t, opts...)
	s.Client = s.Server.Client(t)
	return s
}

func (s *server) record(e string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

// takeEvents returns the events recorded since the last call.
func (s *server) takeEvents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	return out
}

// person is a user with an api token.
type person struct {
	id    int64
	name  string
	token string
}

// person creates a user (with more POST /users fields, e.g. external)
// and an api token for it.
func (s *server) person(name string, extra ...string) person {
	s.t.Helper()
	id, token := s.User(name, extra...)
	return person{id: id, name: name, token: token}
}

// project creates a project as root (path root/<name>).
func (s *server) project(name, visibility string, extra ...string) int64 {
	s.t.Helper()
	return apptest.ID(s.Project(s.RootToken, append([]string{"name", name, "visibility", visibility}, extra...)...))
}

// member adds p to a project with level.
func (s *server) member(projectID int64, p person, level int) {
	s.t.Helper()
	s.AddMember("projects", projectID, p.id, level)
}

// issueJSON is the issue entity as the tests read it.
type issueJSON struct {
	ID             int64           `json:"id"`
	IID            int64           `json:"iid"`
	ProjectID      int64           `json:"project_id"`
	Title          string          `json:"title"`
	Description    string          `json:"description"`
	State          string          `json:"state"`
	CreatedAt      string          `json:"created_at"`
	UpdatedAt      string          `json:"updated_at"`
	ClosedAt       *string         `json:"closed_at"`
	Labels         []string        `json:"labels"`
	Milestone      *milestoneJSON  `json:"milestone"`
	Assignees      []userJSON      `json:"assignees"`
	Assignee       *userJSON       `json:"assignee"`
	Author         *userJSON       `json:"author"`
	UserNotesCount int             `json:"user_notes_count"`
	Upvotes        int             `json:"upvotes"`
	Downvotes      int             `json:"downvotes"`
	DueDate        *string         `json:"due_date"`
	Confidential   bool            `json:"confidential"`
	WebURL         string          `json:"web_url"`
	Subscribed     bool            `json:"subscribed"`
	Raw            json.RawMessage `json:"-"`
}

type userJSON struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

type milestoneJSON struct {
	ID          int64   `json:"id"`
	IID         int64   `json:"iid"`
	ProjectID   int64   `json:"project_id"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	State       string  `json:"state"`
	DueDate     *string `json:"due_date"`
	StartDate   *string `json:"start_date"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
}

func issuesPath(projectID int64) string { return fmt.Sprintf("/projects/%d/issues", projectID) }

func issuePath(projectID, iid int64, suffix string) string {
	return fmt.Sprintf("/projects/%d/issues/%d%s", projectID, iid, suffix)
}

// expectEmpty checks a status with no body (304).
func (s *server) expectEmpty(status int, method, path, token string, body any) {
	s.t.Helper()
	if r := s.Expect(status, method, path, token, body); len(r.Body) != 0 {
		s.t.Fatalf("%s %s: body %q, want an empty body", method, path, r.Body)
	}
}

// issueCall sends a request expecting status and an issue back.
func (s *server) issueCall(status int, method, path, token string, body any) issueJSON {
	s.t.Helper()
	r := s.Expect(status, method, path, token, body)
	var is issueJSON
	r.Decode(s.t, &is)
	is.Raw = r.Body
	return is
}

// create opens an issue expecting 201.
func (s *server) create(token string, projectID int64, title string, extra ...string) issueJSON {
	s.t.Helper()
	return s.issueCall(201, "POST", issuesPath(projectID), token, form(append([]string{"title", title}, extra...)...))
}

// update edits an issue expecting 200.
func (s *server) update(token string, projectID, iid int64, kv ...string) issueJSON {
	s.t.Helper()
	return s.issueCall(200, "PUT", issuePath(projectID, iid, ""), token, form(kv...))
}

// get reads an issue expecting 200.
func (s *server) get(token string, projectID, iid int64) issueJSON {
	s.t.Helper()
	return s.issueCall(200, "GET", issuePath(projectID, iid, ""), token, nil)
}

// list reads an issue list expecting 200; the reply carries the
// pagination headers.
func (s *server) list(token, path string) ([]issueJSON, apptest.Reply) {
	s.t.Helper()
	r := s.Expect(200, "GET", path, token, nil)
	var out []issueJSON
	r.Decode(s.t, &out)
	return out, r
}

// listIIDs is list's iids, in order.
func (s *server) listIIDs(token, path string) []int64 {
	s.t.Helper()
	list, _ := s.list(token, path)
	return iids(list)
}

// systemNotes are an issue's notes as "author: body", oldest first,
// checking they are system notes.
func (s *server) systemNotes(issueID int64) []string {
	s.t.Helper()
	list, _, err := s.notes.List(context.Background(), domain.TargetIssue, issueID, domain.Page{Page: 1, PerPage: 100})
	if err != nil {
		s.t.Fatalf("notes of issue %d: %v", issueID, err)
	}
	out := []string{}
	for _, n := range list {
		if !n.System {
			s.t.Errorf("note %+v is not a system note", n)
		}
		out = append(out, fmt.Sprintf("%d: %s", n.AuthorID, n.Body))
	}
	return out
}

// decode is json.Unmarshal failing the test.
func decode(t *testing.T, data []byte, out any) {
	t.Helper()
	apptest.Reply{Body: data}.Decode(t, out)
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

// iids lists the iids of a list in order.
func iids(list []issueJSON) []int64 {
	out := make([]int64, 0, len(list))
	for _, is := range list {
		out = append(out, is.IID)
	}
	return out
}

func join[T any](xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// branches commits README.md on master and feature.txt on a new branch
// feature through the files API, as root.
func (s *server) branches(projectID int64) {
	s.t.Helper()
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/files/README.md", projectID), s.RootToken,
		form("branch", "master", "content", "hello\n", "commit_message", "Add README"))
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/files/feature.txt", projectID), s.RootToken,
		form("branch", "feature", "start_branch", "master", "content", "feature\n", "commit_message", "Add feature"))
}
