package repository_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/modules/repository"
)

// d2Server is a running Hearth for the commit and file API tests.
type d2Server struct {
	*apptest.Server
	t         *testing.T
	protected ports.ProtectedBranchStore
	mu        sync.Mutex
	pushes    []domain.PushEvent
}

// newD2 starts the real app over SQLite. Until the app wires the
// repository module and its stores, the test adds the module with
// in-memory stores for protected branches and commit comments.
func newD2(t *testing.T, opts ...apptest.Option) *d2Server {
	t.Helper()
	s := &d2Server{t: t}
	if !strings.Contains(fmt.Sprint(app.Modules()), "modules/repository.") {
		opts = append(opts, apptest.With(repository.Module, fx.Provide(
			func() ports.ProtectedBranchStore { return &d2Protected{} },
			func() ports.ReleaseStore { return nil },
			func(c ports.Clock) ports.CommitCommentStore { return &d2Comments{clock: c} },
		)))
	}
	opts = append(opts, apptest.With(
		fx.Populate(&s.protected),
		fx.Invoke(func(bus ports.EventBus) {
			bus.Subscribe(domain.PushEvent{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.pushes = append(s.pushes, ev.(domain.PushEvent))
				return nil
			})
		}),
	))
	s.Server = apptest.New(t, opts...)
	return s
}

// pushesOf returns the push events of a project's ref, waiting a little
// for at least n of them (subscribers run after publishing).
func (s *d2Server) pushesOf(projectID int64, ref string, n int) []domain.PushEvent {
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		var out []domain.PushEvent
		for _, ev := range s.pushes {
			if ev.ProjectID == projectID && ev.Ref == ref {
				out = append(out, ev)
			}
		}
		s.mu.Unlock()
		if len(out) >= n || time.Now().After(deadline) {
			return out
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// d2User creates a user and returns its ID and an api token.
func (s *d2Server) user(name string) (int64, string) {
	s.t.Helper()
	var u struct{ ID int64 }
	s.JSON(s.t, "POST", "/users", s.RootToken, url.Values{"username": {name}, "email": {name + "@example.com"},
		"name": {"User " + name}, "password": {"secret-" + name + "-pw"}, "skip_confirmation": {"true"}}, 201, &u)
	_, secret, err := s.Users.CreatePersonalToken(context.Background(), nil, u.ID, "d2", []string{"api"}, nil)
	if err != nil {
		s.t.Fatalf("token of %s: %v", name, err)
	}
	return u.ID, secret
}

// project creates an empty project as root.
func (s *d2Server) project(name, visibility string) int64 {
	s.t.Helper()
	var p struct{ ID int64 }
	s.JSON(s.t, "POST", "/projects", s.RootToken, url.Values{"name": {name}, "visibility": {visibility}}, 201, &p)
	return p.ID
}

// member adds a user to a project.
func (s *d2Server) member(projectID, userID int64, level domain.AccessLevel) {
	s.t.Helper()
	s.JSON(s.t, "POST", fmt.Sprintf("/projects/%d/members", projectID), s.RootToken,
		url.Values{"user_id": {fmt.Sprint(userID)}, "access_level": {fmt.Sprint(int(level))}}, 201, nil)
}

// protect protects a branch.
func (s *d2Server) protect(projectID int64, name string, devsCanPush bool) {
	s.t.Helper()
	if _, err := s.protected.Protect(context.Background(), domain.ProtectedBranch{ProjectID: projectID, Name: name, DevelopersCanPush: devsCanPush}); err != nil {
		s.t.Fatalf("protect %s: %v", name, err)
	}
}

// d2Action is one action of a multi-file commit body.
type d2Action map[string]string

// d2Body is a multi-file commit request.
func d2Body(branch, msg string, actions ...d2Action) map[string]any {
	return map[string]any{"branch": branch, "commit_message": msg, "actions": actions}
}

// d2Commit is the commit JSON the tests read.
type d2Commit struct {
	ID             string    `json:"id"`
	ShortID        string    `json:"short_id"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	ParentIDs      []string  `json:"parent_ids"`
	AuthorName     string    `json:"author_name"`
	AuthorEmail    string    `json:"author_email"`
	CommitterName  string    `json:"committer_name"`
	CommitterEmail string    `json:"committer_email"`
	CommittedDate  time.Time `json:"committed_date"`
	Stats          *struct {
		Additions, Deletions, Total int
	} `json:"stats"`
}

// commit posts a multi-file commit as token and wants a 201.
func (s *d2Server) commit(token string, projectID int64, body map[string]any) d2Commit {
	s.t.Helper()
	var c d2Commit
	s.JSON(s.t, "POST", fmt.Sprintf("/projects/%d/repository/commits", projectID), token, body, 201, &c)
	return c
}

// expect sends a request and checks the status and, when want is not
// empty, that the body equals want (as JSON, or as text).
func (s *d2Server) expect(status int, want, method, path, token string, body any) []byte {
	s.t.Helper()
	resp, data := s.Do(s.t, method, path, token, body)
	if resp.StatusCode != status {
		s.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, resp.StatusCode, status, data)
	}
	if want != "" && !d2JSONEqual(data, []byte(want)) {
		s.t.Fatalf("%s %s: body %s, want %s", method, path, data, want)
	}
	return data
}

func d2JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// git runs the git CLI on a project's repository.
func (s *d2Server) git(projectID int64, args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + s.RepoDir(projectID)}, args...)...)
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent", "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func decodeD2(t *testing.T, data []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// d2Protected is an in-memory ProtectedBranchStore, only used until the
// app provides the real one.
type d2Protected struct {
	mu    sync.Mutex
	rules []domain.ProtectedBranch
}

func (m *d2Protected) Protect(_ context.Context, b domain.ProtectedBranch) (domain.ProtectedBranch, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.rules {
		if m.rules[i].ProjectID == b.ProjectID && m.rules[i].Name == b.Name {
			m.rules[i] = b
			return b, nil
		}
	}
	b.ID = int64(len(m.rules) + 1)
	m.rules = append(m.rules, b)
	return b, nil
}

func (m *d2Protected) Unprotect(_ context.Context, projectID int64, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.rules[:0]
	for _, r := range m.rules {
		if r.ProjectID != projectID || r.Name != name {
			out = append(out, r)
		}
	}
	m.rules = out
	return nil
}

func (m *d2Protected) List(_ context.Context, projectID int64) ([]domain.ProtectedBranch, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []domain.ProtectedBranch
	for _, r := range m.rules {
		if r.ProjectID == projectID {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// d2Comments is an in-memory CommitCommentStore, only used until the app
// provides the real one.
type d2Comments struct {
	clock ports.Clock
	mu    sync.Mutex
	all   []domain.CommitComment
}

func (m *d2Comments) Create(_ context.Context, c domain.CommitComment) (domain.CommitComment, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c.ID = int64(len(m.all) + 1)
	c.CreatedAt = m.clock.Now()
	m.all = append(m.all, c)
	return c, nil
}

func (m *d2Comments) List(_ context.Context, projectID int64, commitID string, page domain.Page) ([]domain.CommitComment, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var match []domain.CommitComment
	for _, c := range m.all {
		if c.ProjectID == projectID && c.CommitID == commitID {
			match = append(match, c)
		}
	}
	from := min(page.Offset(), len(match))
	to := min(from+page.PerPage, len(match))
	return match[from:to], len(match), nil
}

var (
	_ ports.ProtectedBranchStore = (*d2Protected)(nil)
	_ ports.CommitCommentStore   = (*d2Comments)(nil)
)
