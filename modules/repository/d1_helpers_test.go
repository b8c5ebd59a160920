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
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// d1Server is a running Hearth for the branch and tag API tests, with the
// push events published on its bus.
type d1Server struct {
	*apptest.Server
	t         *testing.T
	protected ports.ProtectedBranchStore
	mu        sync.Mutex
	pushes    []domain.PushEvent
}

// newD1 starts the real app over SQLite (real stores, a real git
// backend) and records the push events published on its bus.
func newD1(t *testing.T, opts ...apptest.Option) *d1Server {
	t.Helper()
	s := &d1Server{t: t}
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

// d1Backend picks the git backend ("gitcli" or "gogit").
func d1Backend(name string) apptest.Option {
	return apptest.Configure(func(c *config.Config) { c.Git.Backend = name })
}

// d1Variant is a storage and git backend pairing, as the app's API suite
// runs them: SQLite with gitcli, Postgres with gogit.
type d1Variant struct {
	name string
	opts []apptest.Option
}

func d1Variants() []d1Variant {
	return []d1Variant{
		{"sqlite-gitcli", []apptest.Option{d1Backend("gitcli")}},
		{"postgres-gogit", []apptest.Option{apptest.Postgres(), d1Backend("gogit")}},
	}
}

// pushesOf returns the push events of a project's ref, waiting a little
// for at least n of them (subscribers run after publishing).
func (s *d1Server) pushesOf(projectID int64, ref string, n int) []domain.PushEvent {
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

// user creates a user and returns its ID and an api token.
func (s *d1Server) user(name string) (int64, string) {
	s.t.Helper()
	var u struct{ ID int64 }
	s.JSON(s.t, "POST", "/users", s.RootToken, url.Values{"username": {name}, "email": {name + "@example.com"},
		"name": {"User " + name}, "password": {"secret-" + name + "-pw"}, "skip_confirmation": {"true"}}, 201, &u)
	_, secret, err := s.Users.CreatePersonalToken(context.Background(), nil, u.ID, "d1", []string{"api"}, nil)
	if err != nil {
		s.t.Fatalf("token of %s: %v", name, err)
	}
	return u.ID, secret
}

// project creates an empty project as root.
func (s *d1Server) project(name, visibility string) int64 {
	s.t.Helper()
	var p struct{ ID int64 }
	s.JSON(s.t, "POST", "/projects", s.RootToken, url.Values{"name": {name}, "visibility": {visibility}}, 201, &p)
	return p.ID
}

// member adds a user to a project.
func (s *d1Server) member(projectID, userID int64, level domain.AccessLevel) {
	s.t.Helper()
	s.JSON(s.t, "POST", fmt.Sprintf("/projects/%d/members", projectID), s.RootToken,
		url.Values{"user_id": {fmt.Sprint(userID)}, "access_level": {fmt.Sprint(int(level))}}, 201, nil)
}

// commit writes one commit creating or updating path on branch through
// the git backend (starting from start when branch is new) and returns it.
func (s *d1Server) commit(projectID int64, branch, start, path, content string) domain.Commit {
	s.t.Helper()
	repo := apijson.RepoPath(projectID)
	action := domain.FileCreate
	if _, err := s.Repos.File(context.Background(), repo, branch, path); err == nil {
		action = domain.FileUpdate
	}
	sig := domain.Signature{Name: "Seeder", Email: "seeder@example.com", When: time.Now().UTC().Truncate(time.Second)}
	c, err := s.Repos.CommitFiles(context.Background(), repo, domain.CommitFiles{
		Branch: branch, StartBranch: start, Message: "Change " + path + "\n\nbody of the message",
		Author: sig, Committer: sig,
		Actions: []domain.FileAction{{Action: action, Path: path, Content: []byte(content)}},
	})
	if err != nil {
		s.t.Fatalf("commit %s on %s: %v", path, branch, err)
	}
	return c
}

// branchHead reads a branch head straight from the backend.
func (s *d1Server) branchHead(projectID int64, name string) (string, bool) {
	s.t.Helper()
	b, err := s.Repos.Branch(context.Background(), apijson.RepoPath(projectID), name)
	if err != nil {
		return "", false
	}
	return b.Commit.ID, true
}

// branch points a new branch at sha through the backend.
func (s *d1Server) branch(projectID int64, name, sha string) {
	s.t.Helper()
	if err := s.Repos.UpdateRef(context.Background(), apijson.RepoPath(projectID), domain.BranchPrefix+name, sha, domain.ZeroID); err != nil {
		s.t.Fatalf("branch %s: %v", name, err)
	}
}

// protect adds a protection rule (wildcards allowed) through the store.
func (s *d1Server) protect(projectID int64, name string, devsCanPush bool) {
	s.t.Helper()
	if _, err := s.protected.Protect(context.Background(), domain.ProtectedBranch{ProjectID: projectID, Name: name, DevelopersCanPush: devsCanPush}); err != nil {
		s.t.Fatalf("protect %s: %v", name, err)
	}
}

// d1Repo is a seeded project: master has c1 then c2; merged-old points
// at c1 (merged), same-head at c2 (not merged: same head), feature/x has
// c3 on top of c2 (not merged), release-1 at c1 (merged, protected by the
// wildcard rule release-*).
type d1Repo struct {
	id         int64
	c1, c2, c3 domain.Commit
}

// seed creates a project of the given visibility and its repository.
func (s *d1Server) seed(name, visibility string) d1Repo {
	s.t.Helper()
	r := d1Repo{id: s.project(name, visibility)}
	r.c1 = s.commit(r.id, "master", "", "README.md", "hello\n")
	r.c2 = s.commit(r.id, "master", "", "README.md", "hello again\n")
	s.branch(r.id, "merged-old", r.c1.ID)
	s.branch(r.id, "same-head", r.c2.ID)
	r.c3 = s.commit(r.id, "feature/x", "master", "feature.txt", "x\n")
	s.branch(r.id, "release-1", r.c1.ID)
	s.protect(r.id, "release-*", false)
	return r
}

// expect sends a request and checks the status and, when want is not
// empty, that the body equals want as JSON.
func (s *d1Server) expect(status int, want, method, path, token string, body any) []byte {
	s.t.Helper()
	resp, data := s.Do(s.t, method, path, token, body)
	if resp.StatusCode != status {
		s.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, resp.StatusCode, status, data)
	}
	if want != "" && !d1JSONEqual(data, []byte(want)) {
		s.t.Fatalf("%s %s: body %s, want %s", method, path, data, want)
	}
	return data
}

// git runs the git CLI on a project's repository.
func (s *d1Server) git(projectID int64, args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + s.RepoDir(projectID)}, args...)...)
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent", "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func d1JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func d1Decode(t *testing.T, data []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// d1Branch is the Branch JSON the tests read.
type d1Branch struct {
	Name               string   `json:"name"`
	Merged             bool     `json:"merged"`
	Protected          bool     `json:"protected"`
	DevelopersCanPush  bool     `json:"developers_can_push"`
	DevelopersCanMerge bool     `json:"developers_can_merge"`
	Commit             d1Commit `json:"commit"`
}

// d1Commit is the commit JSON inside branches and tags.
type d1Commit struct {
	ID             string   `json:"id"`
	ShortID        string   `json:"short_id"`
	Title          string   `json:"title"`
	Message        string   `json:"message"`
	ParentIDs      []string `json:"parent_ids"`
	AuthorName     string   `json:"author_name"`
	AuthorEmail    string   `json:"author_email"`
	AuthoredDate   string   `json:"authored_date"`
	CommitterName  string   `json:"committer_name"`
	CommitterEmail string   `json:"committer_email"`
	CommittedDate  string   `json:"committed_date"`
	CreatedAt      string   `json:"created_at"`
}

// d1Tag is the Tag JSON the tests read.
type d1Tag struct {
	Name    string   `json:"name"`
	Message *string  `json:"message"`
	Commit  d1Commit `json:"commit"`
	Release *struct {
		TagName     string `json:"tag_name"`
		Description string `json:"description"`
	} `json:"release"`
}
