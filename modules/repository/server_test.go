package repository_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// repoServer is a running Hearth (real stores, a real git backend) for the
// repository module's tests, recording the push events of its bus.
type repoServer struct {
	*apptest.Server
	t         *testing.T
	protected ports.ProtectedBranchStore
	mu        sync.Mutex
	pushes    []domain.PushEvent
}

func newRepoServer(t *testing.T, opts ...apptest.Option) *repoServer {
	t.Helper()
	s := &repoServer{t: t}
	opts = append(opts, apptest.With(fx.Populate(&s.protected), fx.Invoke(func(bus ports.EventBus) {
		bus.Subscribe(domain.PushEvent{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.pushes = append(s.pushes, ev.(domain.PushEvent))
			return nil
		})
	})))
	s.Server = apptest.New(t, opts...)
	return s
}

// pushesOf returns the push events of a project's ref, oldest first,
// waiting a little for at least n of them.
func (s *repoServer) pushesOf(projectID int64, ref string, n int) []domain.PushEvent {
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

func password(name string) string { return "secret-" + name + "-pw" }

// user creates a user with password(name) and returns its ID and an api
// personal token.
func (s *repoServer) user(name string) (int64, string) {
	s.t.Helper()
	var u struct{ ID int64 }
	s.JSON(s.t, "POST", "/users", s.RootToken, url.Values{"username": {name}, "email": {name + "@example.com"},
		"name": {"User " + name}, "password": {password(name)}, "skip_confirmation": {"true"}}, 201, &u)
	_, secret, err := s.Users.CreatePersonalToken(context.Background(), nil, u.ID, "tests", []string{"api"}, nil)
	if err != nil {
		s.t.Fatalf("token of %s: %v", name, err)
	}
	return u.ID, secret
}

// projectID creates an empty project as root.
func (s *repoServer) projectID(name, visibility string) int64 {
	s.t.Helper()
	var p struct{ ID int64 }
	s.JSON(s.t, "POST", "/projects", s.RootToken, url.Values{"name": {name}, "visibility": {visibility}}, 201, &p)
	return p.ID
}

// member adds a user to a project with level.
func (s *repoServer) member(projectID, userID int64, level domain.AccessLevel) {
	s.t.Helper()
	s.JSON(s.t, "POST", fmt.Sprintf("/projects/%d/members", projectID), s.RootToken,
		url.Values{"user_id": {fmt.Sprint(userID)}, "access_level": {fmt.Sprint(int(level))}}, 201, nil)
}

// protect protects a branch of a project.
func (s *repoServer) protect(projectID int64, name string, developersCanPush bool) {
	s.t.Helper()
	rule := domain.ProtectedBranch{ProjectID: projectID, Name: name, DevelopersCanPush: developersCanPush}
	if _, err := s.protected.Protect(context.Background(), rule); err != nil {
		s.t.Fatalf("protect %s: %v", name, err)
	}
}

// expect sends a request and checks the status and, when want is not
// empty, that the body equals want (as JSON, or as text).
func (s *repoServer) expect(status int, want, method, path, token string, body any) []byte {
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

// git runs the git CLI on a project's repository.
func (s *repoServer) git(projectID int64, args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + s.RepoDir(projectID)}, args...)...)
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent", "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
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
