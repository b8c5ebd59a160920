package repository_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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

// gitServer is a running Hearth seen by the git HTTP tests, with the push
// events it published and its protected branch store.
type gitServer struct {
	*apptest.Server
	t         *testing.T
	protected ports.ProtectedBranchStore
	pushes    *pushLog
}

// pushLog records the PushEvents published on the bus.
type pushLog struct {
	mu     sync.Mutex
	events []domain.PushEvent
}

func (l *pushLog) add(ev domain.PushEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

// of returns the events of one project and ref, oldest first.
func (l *pushLog) of(projectID int64, ref string) []domain.PushEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []domain.PushEvent
	for _, ev := range l.events {
		if ev.ProjectID == projectID && ev.Ref == ref {
			out = append(out, ev)
		}
	}
	return out
}

// newGitServer starts the real app. Until the app lists the repository
// module (and with it the repository stores), the test adds the module and
// in-memory stores itself.
func newGitServer(t *testing.T, opts ...apptest.Option) *gitServer {
	t.Helper()
	g := &gitServer{t: t, pushes: &pushLog{}}
	if !strings.Contains(fmt.Sprint(app.Modules()), "modules/repository.") {
		opts = append(opts, apptest.With(repository.Module, fx.Provide(
			func() ports.ProtectedBranchStore { return &memProtected{} },
			func() ports.ReleaseStore { return nil },
			func() ports.CommitCommentStore { return nil },
		)))
	}
	opts = append(opts, apptest.With(
		fx.Populate(&g.protected),
		fx.Invoke(func(bus ports.EventBus) {
			bus.Subscribe(domain.PushEvent{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
				g.pushes.add(ev.(domain.PushEvent))
				return nil
			})
		}),
	))
	g.Server = apptest.New(t, opts...)
	return g
}

// hasRoute reports whether the server registered method and pattern.
func (g *gitServer) hasRoute(method, pattern string) bool {
	for _, r := range g.Router.Routes() {
		if r.Method == method && r.Pattern == pattern {
			return true
		}
	}
	return false
}

// user creates a user with password "secret-<name>-pw" and returns its ID
// and an api personal token.
func (g *gitServer) user(name string) (int64, string) {
	g.t.Helper()
	var u struct{ ID int64 }
	g.JSON(g.t, "POST", "/users", g.RootToken, url.Values{"username": {name}, "email": {name + "@example.com"},
		"name": {name}, "password": {password(name)}, "skip_confirmation": {"true"}}, 201, &u)
	_, secret, err := g.Users.CreatePersonalToken(context.Background(), nil, u.ID, "git", []string{"api"}, nil)
	if err != nil {
		g.t.Fatalf("token of %s: %v", name, err)
	}
	return u.ID, secret
}

func password(name string) string { return "secret-" + name + "-pw" }

type project struct {
	ID                int64
	PathWithNamespace string `json:"path_with_namespace"`
}

// project creates a project as root (in namespace namespaceID when not 0).
func (g *gitServer) project(name, visibility string, namespaceID int64) project {
	g.t.Helper()
	form := url.Values{"name": {name}, "visibility": {visibility}}
	if namespaceID != 0 {
		form.Set("namespace_id", fmt.Sprint(namespaceID))
	}
	var p project
	g.JSON(g.t, "POST", "/projects", g.RootToken, form, 201, &p)
	return p
}

// member adds a user to a project with level.
func (g *gitServer) member(projectID, userID int64, level domain.AccessLevel) {
	g.t.Helper()
	g.JSON(g.t, "POST", fmt.Sprintf("/projects/%d/members", projectID), g.RootToken,
		url.Values{"user_id": {fmt.Sprint(userID)}, "access_level": {fmt.Sprint(int(level))}}, 201, nil)
}

// protect protects a branch of a project.
func (g *gitServer) protect(projectID int64, name string, developersCanPush bool) {
	g.t.Helper()
	_, err := g.protected.Protect(context.Background(), domain.ProtectedBranch{ProjectID: projectID, Name: name, DevelopersCanPush: developersCanPush})
	if err != nil {
		g.t.Fatalf("protect %s: %v", name, err)
	}
}

// remote is the git URL of a project with credentials (none when user is "").
func (g *gitServer) remote(path, user, secret string) string {
	u, err := url.Parse(g.URL + "/" + path + ".git")
	if err != nil {
		g.t.Fatal(err)
	}
	if user != "" {
		u.User = url.UserPassword(user, secret)
	}
	return u.String()
}

// gitEnv is an isolated environment for the git CLI: no system or user
// configuration, no prompts, a fixed identity.
func gitEnv(home string) []string {
	return []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"),
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
		"GIT_AUTHOR_NAME=Tester",
		"GIT_AUTHOR_EMAIL=tester@example.com",
		"GIT_COMMITTER_NAME=Tester",
		"GIT_COMMITTER_EMAIL=tester@example.com",
		"LC_ALL=C",
	}
}

// gitCLI runs git in an isolated home.
type gitCLI struct {
	t    testing.TB
	home string
}

func newGit(t testing.TB) gitCLI {
	home := t.TempDir()
	cfg := "[init]\n\tdefaultBranch = master\n[protocol]\n\tversion = 2\n[credential]\n\thelper =\n"
	if err := os.WriteFile(filepath.Join(home, "gitconfig"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return gitCLI{t: t, home: home}
}

// try runs git in dir and returns its combined output and error.
func (g gitCLI) try(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(g.home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// run runs git and fails the test on error.
func (g gitCLI) run(dir string, args ...string) string {
	g.t.Helper()
	out, err := g.try(dir, args...)
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

// fails runs git, expects a failure and returns the output.
func (g gitCLI) fails(dir string, args ...string) string {
	g.t.Helper()
	out, err := g.try(dir, args...)
	if err == nil {
		g.t.Fatalf("git %s succeeded, want a failure\n%s", strings.Join(args, " "), out)
	}
	return out
}

// clone clones remote into a new directory and returns it.
func (g gitCLI) clone(remote string) string {
	g.t.Helper()
	dir := filepath.Join(g.t.TempDir(), "w")
	g.run("", "clone", remote, dir)
	return dir
}

// commit writes file with content in dir and commits it; returns the SHA.
func (g gitCLI) commit(dir, file, content string) string {
	g.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
	g.run(dir, "add", "--", file)
	g.run(dir, "commit", "-q", "-m", "change "+file)
	return g.run(dir, "rev-parse", "HEAD")
}

// memProtected is an in-memory ProtectedBranchStore, used only until the
// app provides the real one.
type memProtected struct {
	mu    sync.Mutex
	rules []domain.ProtectedBranch
}

func (m *memProtected) Protect(_ context.Context, b domain.ProtectedBranch) (domain.ProtectedBranch, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.rules {
		if m.rules[i].ProjectID == b.ProjectID && m.rules[i].Name == b.Name {
			b.ID = m.rules[i].ID
			m.rules[i] = b
			return b, nil
		}
	}
	b.ID = int64(len(m.rules) + 1)
	m.rules = append(m.rules, b)
	return b, nil
}

func (m *memProtected) Unprotect(_ context.Context, projectID int64, name string) error {
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

func (m *memProtected) List(_ context.Context, projectID int64) ([]domain.ProtectedBranch, error) {
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

var _ ports.ProtectedBranchStore = (*memProtected)(nil)

// decode is json.Unmarshal failing the test.
func decode(t *testing.T, data []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}
