package repository_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// repoServer is a running Hearth (real stores, a real git backend) driven
// through the shared API client, recording the push events of its bus.
type repoServer struct {
	*apptest.Server
	*apptest.Client
	protected ports.ProtectedBranchStore
	mu        sync.Mutex
	pushes    []domain.PushEvent
}

func newRepoServer(t *testing.T, opts ...apptest.Option) *repoServer {
	t.Helper()
	s := &repoServer{}
	opts = append(opts, apptest.With(fx.Populate(&s.protected), fx.Invoke(func(bus ports.EventBus) {
		bus.Subscribe(domain.PushEvent{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.pushes = append(s.pushes, ev.(domain.PushEvent))
			return nil
		})
	})))
	s.Server = apptest.New(t, opts...)
	s.Client = s.Server.Client(t)
	return s
}

// backend picks the git backend ("gitcli" or "gogit").
func backend(name string) apptest.Option {
	return apptest.Configure(func(c *config.Config) { c.Git.Backend = name })
}

// variant is a storage and git backend pairing, as the app's API suite
// runs them: SQLite with gitcli, Postgres with gogit.
type variant struct {
	name string
	opts []apptest.Option
}

func variants() []variant {
	return []variant{
		{"sqlite-gitcli", []apptest.Option{backend("gitcli")}},
		{"postgres-gogit", []apptest.Option{apptest.Postgres(), backend("gogit")}},
	}
}

// pushesOf returns the push events of a project's ref, oldest first. The
// bus is synchronous and every push, through the API or git, publishes
// before its answer ends, so there is nothing to wait for.
func (s *repoServer) pushesOf(projectID int64, ref string) []domain.PushEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []domain.PushEvent
	for _, ev := range s.pushes {
		if ev.ProjectID == projectID && ev.Ref == ref {
			out = append(out, ev)
		}
	}
	return out
}

// password is the password apptest.Client.User gives a user.
func password(name string) string { return "secret-" + name }

// projectID creates an empty project as root.
func (s *repoServer) projectID(name, visibility string) int64 {
	s.T.Helper()
	return apptest.ID(s.Project(s.RootToken, "name", name, "visibility", visibility))
}

// member adds a user to a project with level.
func (s *repoServer) member(projectID, userID int64, level domain.AccessLevel) {
	s.T.Helper()
	s.AddMember("projects", projectID, userID, int(level))
}

// protect protects a branch of a project; name may hold wildcards, which
// the API's protect endpoint does not take.
func (s *repoServer) protect(projectID int64, name string, developersCanPush bool) {
	s.T.Helper()
	rule := domain.ProtectedBranch{ProjectID: projectID, Name: name, PushAccessLevel: domain.LevelFor(developersCanPush), MergeAccessLevel: domain.Master}
	if _, err := s.protected.Protect(context.Background(), rule); err != nil {
		s.T.Fatalf("protect %s: %v", name, err)
	}
}

// git runs the git CLI on a project's repository.
func (s *repoServer) git(projectID int64, args ...string) string {
	s.T.Helper()
	return apptest.Git(s.T, "", append([]string{"--git-dir=" + s.RepoDir(projectID)}, args...)...)
}

// archive archives a project as root.
func (s *repoServer) archive(projectID int64) {
	s.T.Helper()
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/archive", projectID), s.RootToken, nil)
}
