package notes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// server is the shared API client on a running Hearth, with the stores
// tests seed through.
type server struct {
	*apptest.Client
	*apptest.Server
	todos    ports.TodoStore
	issues   ports.IssueStore
	snippets ports.SnippetStore
	awards   ports.AwardStore
}

func newServer(t *testing.T, opts ...apptest.Option) *server {
	t.Helper()
	s := &server{}
	opts = append(opts, apptest.With(fx.Populate(&s.todos, &s.issues, &s.snippets, &s.awards)))
	s.Server = apptest.New(t, opts...)
	s.Client = s.Server.Client(t)
	return s
}

// person is a user with an api token.
type person struct {
	id    int64
	name  string
	token string
}

func (s *server) person(name string) person {
	s.T.Helper()
	id, token := s.User(name)
	return person{id: id, name: name, token: token}
}

// project creates a project as root (path root/<name>); extra are more
// form fields.
func (s *server) project(name, visibility string, extra ...string) int64 {
	s.T.Helper()
	return apptest.ID(s.Project(s.RootToken, append([]string{"name", name, "visibility", visibility}, extra...)...))
}

func (s *server) member(projectID int64, p person, level domain.AccessLevel) {
	s.T.Helper()
	s.AddMember("projects", projectID, p.id, int(level))
}

// mr opens a merge request of a new branch into master as root and
// returns its ID and IID.
func (s *server) mr(projectID int64, branch, title string) (id, iid int64) {
	s.T.Helper()
	repo := domain.RepoPath(projectID)
	sig := domain.Signature{Name: "Seeder", Email: "seeder@example.com", When: time.Now().UTC().Truncate(time.Second)}
	ctx := context.Background()
	if _, err := s.Repos.Branch(ctx, repo, "master"); err != nil {
		if _, err := s.Repos.CommitFiles(ctx, repo, domain.CommitFiles{Branch: "master", Message: "init", Author: sig, Committer: sig,
			Actions: []domain.FileAction{{Action: domain.FileCreate, Path: "README.md", Content: []byte("hello\n")}}}); err != nil {
			s.T.Fatalf("seed master: %v", err)
		}
	}
	if _, err := s.Repos.CommitFiles(ctx, repo, domain.CommitFiles{Branch: branch, StartBranch: "master", Message: "Add " + branch,
		Author: sig, Committer: sig, Actions: []domain.FileAction{{Action: domain.FileCreate, Path: branch + ".txt", Content: []byte(branch)}}}); err != nil {
		s.T.Fatalf("seed %s: %v", branch, err)
	}
	var m struct{ ID, IID int64 }
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/merge_requests", projectID), s.RootToken,
		apptest.Form("source_branch", branch, "target_branch", "master", "title", title)).Decode(s.T, &m)
	return m.ID, m.IID
}

// mrRead reads a merge request through the API.
func (s *server) mrRead(token string, projectID, iid int64) mrJSON {
	s.T.Helper()
	var m mrJSON
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d/merge_requests/%d", projectID, iid), token, nil).Decode(s.T, &m)
	return m
}

type mrJSON struct {
	Upvotes        int    `json:"upvotes"`
	Downvotes      int    `json:"downvotes"`
	UserNotesCount int    `json:"user_notes_count"`
	UpdatedAt      string `json:"updated_at"`
	State          string `json:"state"`
}

// noteJSON is the Note entity as the tests read it.
type noteJSON struct {
	ID           int64           `json:"id"`
	Body         string          `json:"body"`
	Attachment   json.RawMessage `json:"attachment"`
	Author       *userJSON       `json:"author"`
	CreatedAt    string          `json:"created_at"`
	UpdatedAt    string          `json:"updated_at"`
	System       bool            `json:"system"`
	NoteableID   int64           `json:"noteable_id"`
	NoteableType string          `json:"noteable_type"`
	NoteableIID  *int64          `json:"noteable_iid"`
}

type userJSON struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

// awardJSON is the AwardEmoji entity.
type awardJSON struct {
	ID            int64     `json:"id"`
	Name          string    `json:"name"`
	User          *userJSON `json:"user"`
	CreatedAt     string    `json:"created_at"`
	UpdatedAt     string    `json:"updated_at"`
	AwardableID   int64     `json:"awardable_id"`
	AwardableType string    `json:"awardable_type"`
}

// notesPath is the notes collection of a noteable ("merge_requests", 3).
func notesPath(projectID int64, segment string, key int64) string {
	return fmt.Sprintf("/projects/%d/%s/%d/notes", projectID, segment, key)
}

func notePath(projectID int64, segment string, key, noteID int64) string {
	return fmt.Sprintf("%s/%d", notesPath(projectID, segment, key), noteID)
}

// post creates a note expecting 201 and returns it.
func (s *server) post(token, path, body string) noteJSON {
	s.T.Helper()
	var n noteJSON
	s.Expect(201, "POST", path, token, apptest.Form("body", body)).Decode(s.T, &n)
	return n
}

// list reads a notes list expecting 200.
func (s *server) list(token, path string) ([]noteJSON, apptest.Reply) {
	s.T.Helper()
	var out []noteJSON
	r := s.Expect(200, "GET", path, token, nil)
	r.Decode(s.T, &out)
	return out, r
}

func ids(list []noteJSON) []int64 {
	out := make([]int64, 0, len(list))
	for _, n := range list {
		out = append(out, n.ID)
	}
	return out
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
	slices.Sort(out)
	return out
}

// awardsOf lists the awards of an awardable from the store.
func (s *server) awardsOf(typ string, id int64) ([]domain.Award, error) {
	return s.awards.List(context.Background(), typ, id)
}
