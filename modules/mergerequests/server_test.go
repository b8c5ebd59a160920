package mergerequests_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The tests drive the real app over HTTP with the shared client
// (apptest.Client); what follows are the merge request module's own
// seeding (git, protected branches, pipeline results) and reading helpers
// on top of it.

// Access levels as the members API takes them.
const (
	guest     = 10
	reporter  = 20
	developer = 30
	master    = 40
)

var form = apptest.Form

// mrServer is a running Hearth (real stores, real git) for the merge
// request API tests, with the bus to publish pipeline results on.
type mrServer struct {
	*apptest.Server
	*apptest.Client
	t         *testing.T
	protected ports.ProtectedBranchStore
	bus       ports.EventBus
}

func newServer(t *testing.T, opts ...apptest.Option) *mrServer {
	t.Helper()
	s := &mrServer{t: t}
	opts = append(opts, apptest.With(fx.Populate(&s.protected, &s.bus)))
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

// person creates a user and an api token for it.
func (s *mrServer) person(name string) person {
	s.t.Helper()
	id, token := s.User(name)
	return person{id: id, name: name, token: token}
}

// project creates an empty project as root (path root/<name>).
func (s *mrServer) project(name, visibility string) int64 {
	s.t.Helper()
	return apptest.ID(s.Project(s.RootToken, "name", name, "visibility", visibility))
}

// member adds p to a project with level.
func (s *mrServer) member(projectID int64, p person, level int) {
	s.t.Helper()
	s.AddMember("projects", projectID, p.id, level)
}

// protect protects a branch through the store.
func (s *mrServer) protect(projectID int64, name string, devsCanPush, devsCanMerge bool) {
	s.t.Helper()
	rule := domain.ProtectedBranch{ProjectID: projectID, Name: name, PushAccessLevel: domain.LevelFor(devsCanPush), MergeAccessLevel: domain.LevelFor(devsCanMerge)}
	if _, err := s.protected.Protect(context.Background(), rule); err != nil {
		s.t.Fatalf("protect %s: %v", name, err)
	}
}

// commit writes one commit creating or updating path on branch through the
// git backend (branching from start when branch is new); it returns its SHA.
func (s *mrServer) commit(projectID int64, branch, start, path, content string) string {
	s.t.Helper()
	repo := domain.RepoPath(projectID)
	action, rev := domain.FileCreate, branch
	if _, ok := s.head(projectID, branch); !ok && start != "" {
		rev = start
	}
	if _, err := s.Repos.File(context.Background(), repo, rev, path); err == nil {
		action = domain.FileUpdate
	}
	sig := domain.Signature{Name: "Seeder", Email: "seeder@example.com", When: time.Now().UTC().Truncate(time.Second)}
	c, err := s.Repos.CommitFiles(context.Background(), repo, domain.CommitFiles{
		Branch: branch, StartBranch: start, Message: "Change " + path + "\n\nbody",
		Author: sig, Committer: sig,
		Actions: []domain.FileAction{{Action: action, Path: path, Content: []byte(content)}},
	})
	if err != nil {
		s.t.Fatalf("commit %s on %s: %v", path, branch, err)
	}
	return c.ID
}

// head reads a branch head straight from git.
func (s *mrServer) head(projectID int64, branch string) (string, bool) {
	s.t.Helper()
	b, err := s.Repos.Branch(context.Background(), domain.RepoPath(projectID), branch)
	if err != nil {
		return "", false
	}
	return b.Commit.ID, true
}

// gitCommit reads a commit straight from git.
func (s *mrServer) gitCommit(projectID int64, sha string) domain.Commit {
	s.t.Helper()
	c, err := s.Repos.Commit(context.Background(), domain.RepoPath(projectID), sha)
	if err != nil {
		s.t.Fatalf("commit %s: %v", sha, err)
	}
	return c
}

// moveRef moves a branch from old to new in git, as a push would, without
// going through the API.
func (s *mrServer) moveRef(projectID int64, branch, newID, oldID string) {
	s.t.Helper()
	if err := s.Repos.UpdateRef(context.Background(), domain.RepoPath(projectID), domain.BranchPrefix+branch, newID, oldID); err != nil {
		s.t.Fatalf("move %s: %v", branch, err)
	}
}

// pipelineSucceeded publishes what CI publishes when a pipeline passes.
func (s *mrServer) pipelineSucceeded(projectID int64, ref, sha string) {
	s.t.Helper()
	ev := domain.PipelineSucceeded{ProjectID: projectID, PipelineID: 1, Ref: ref, SHA: sha, At: time.Now().UTC()}
	if err := s.bus.Publish(context.Background(), ev); err != nil {
		s.t.Fatalf("publish %+v: %v", ev, err)
	}
}

// seeded is a project whose master and branches are:
// base (README "hello") <- master (README "ours");
// base <- feature (adds feature.txt; merges cleanly);
// base <- conflict (README "theirs"; conflicts with master).
type seeded struct {
	id                              int64
	name                            string
	base, master, feature, conflict string
}

func (s *mrServer) seed(name, visibility string) seeded {
	s.t.Helper()
	r := seeded{id: s.project(name, visibility), name: name}
	r.base = s.commit(r.id, "master", "", "README.md", "hello\n")
	r.feature = s.commit(r.id, "feature", "master", "feature.txt", "feature\n")
	r.conflict = s.commit(r.id, "conflict", "master", "README.md", "theirs\n")
	r.master = s.commit(r.id, "master", "", "README.md", "ours\n")
	return r
}

// branch creates a branch off master with one new file; it returns its head.
func (s *mrServer) branch(r seeded, name string) string {
	s.t.Helper()
	return s.commit(r.id, name, "master", name+".txt", name+"\n")
}

// mrJSON is the merge request entity as the tests read it.
type mrJSON struct {
	ID                        int64           `json:"id"`
	IID                       int64           `json:"iid"`
	ProjectID                 int64           `json:"project_id"`
	Title                     string          `json:"title"`
	Description               string          `json:"description"`
	State                     string          `json:"state"`
	CreatedAt                 string          `json:"created_at"`
	UpdatedAt                 string          `json:"updated_at"`
	TargetBranch              string          `json:"target_branch"`
	SourceBranch              string          `json:"source_branch"`
	Upvotes                   int             `json:"upvotes"`
	Downvotes                 int             `json:"downvotes"`
	Author                    *userJSON       `json:"author"`
	Assignee                  *userJSON       `json:"assignee"`
	SourceProjectID           int64           `json:"source_project_id"`
	TargetProjectID           int64           `json:"target_project_id"`
	Labels                    []string        `json:"labels"`
	WorkInProgress            bool            `json:"work_in_progress"`
	Milestone                 json.RawMessage `json:"milestone"`
	MergeWhenPipelineSucceeds bool            `json:"merge_when_pipeline_succeeds"`
	MergeStatus               string          `json:"merge_status"`
	SHA                       string          `json:"sha"`
	MergeCommitSHA            *string         `json:"merge_commit_sha"`
	UserNotesCount            int             `json:"user_notes_count"`
	ShouldRemoveSourceBranch  bool            `json:"should_remove_source_branch"`
	ForceRemoveSourceBranch   bool            `json:"force_remove_source_branch"`
	WebURL                    string          `json:"web_url"`
	Subscribed                bool            `json:"subscribed"`
	MergedAt                  *string         `json:"merged_at"`
	ClosedAt                  *string         `json:"closed_at"`
}

type userJSON struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

func mrsPath(projectID int64) string { return fmt.Sprintf("/projects/%d/merge_requests", projectID) }

func mrPath(projectID, iid int64, suffix string) string {
	return fmt.Sprintf("/projects/%d/merge_requests/%d%s", projectID, iid, suffix)
}

// expectEmpty checks a 304 with no body.
func (s *mrServer) expectEmpty(status int, method, path, token string, body any) {
	s.t.Helper()
	if r := s.Expect(status, method, path, token, body); len(r.Body) != 0 {
		s.t.Fatalf("%s %s: body %q, want an empty body", method, path, r.Body)
	}
}

// mrCall sends a request expecting status and a merge request back.
func (s *mrServer) mrCall(status int, method, path, token string, body any) mrJSON {
	s.t.Helper()
	var m mrJSON
	s.Expect(status, method, path, token, body).Decode(s.t, &m)
	return m
}

// create opens a merge request expecting 201.
func (s *mrServer) create(token string, projectID int64, src, tgt, title string, extra ...string) mrJSON {
	s.t.Helper()
	return s.mrCall(201, "POST", mrsPath(projectID), token,
		form(append([]string{"source_branch", src, "target_branch", tgt, "title", title}, extra...)...))
}

// get reads a merge request expecting 200.
func (s *mrServer) get(token string, projectID, iid int64) mrJSON {
	s.t.Helper()
	return s.mrCall(200, "GET", mrPath(projectID, iid, ""), token, nil)
}

// list reads a list expecting 200; the reply carries the pagination
// headers.
func (s *mrServer) list(token, path string) ([]mrJSON, apptest.Reply) {
	s.t.Helper()
	r := s.Expect(200, "GET", path, token, nil)
	var out []mrJSON
	r.Decode(s.t, &out)
	return out, r
}

// rawDo sends a form request without touching t: the client fails the
// test, which only the test's goroutine may do, so concurrent requests
// use this.
func (s *mrServer) rawDo(method, path, token string, body url.Values) (int, []byte, error) {
	req, err := http.NewRequest(method, s.API()+path, strings.NewReader(body.Encode()))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("PRIVATE-TOKEN", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
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
func iids(list []mrJSON) []int64 {
	out := make([]int64, 0, len(list))
	for _, m := range list {
		out = append(out, m.IID)
	}
	return out
}

// titles lists the titles of a list, sorted.
func titles(list []mrJSON) []string {
	out := make([]string, 0, len(list))
	for _, m := range list {
		out = append(out, m.Title)
	}
	sort.Strings(out)
	return out
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}
