package app_test

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/app/apptest"
)

// eachDriver runs fn on a server on SQLite and one on Postgres, side by
// side.
func eachDriver(t *testing.T, fn func(t *testing.T, srv *apptest.Server)) {
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			fn(t, apptest.New(t, apptest.Driver(driver)))
		})
	}
}

// TestConcurrentProjectCreation: 50 creations of one name in one namespace
// give exactly one project and clean 400s.
func TestConcurrentProjectCreation(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, srv *apptest.Server) {
		var g struct{ ID int64 }
		srv.JSON(t, "POST", "/groups", srv.RootToken, url.Values{"name": {"race"}, "path": {"race"}}, 201, &g)
		statuses := make([]int, 50)
		bodies := make([]string, 50)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				resp, body := srv.Do(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"Same Name"}, "namespace_id": {fmt.Sprint(g.ID)}})
				statuses[i], bodies[i] = resp.StatusCode, string(body)
			}(i)
		}
		wg.Wait()
		created := 0
		for i, s := range statuses {
			switch s {
			case 201:
				created++
			case 400:
				if !strings.Contains(bodies[i], "has already been taken") {
					t.Errorf("400 body %s", bodies[i])
				}
			default:
				t.Errorf("status %d: %s", s, bodies[i])
			}
		}
		if created != 1 {
			t.Fatalf("%d projects created", created)
		}
		var list []struct{ ID int64 }
		srv.JSON(t, "GET", fmt.Sprintf("/groups/%d/projects", g.ID), srv.RootToken, nil, 200, &list)
		if len(list) != 1 {
			t.Fatalf("%d projects in the namespace", len(list))
		}
	})
}

// TestConcurrentStars: 50 users star one project at once: star_count 50.
func TestConcurrentStars(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, srv *apptest.Server) {
		var p struct{ ID int64 }
		srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"starry"}, "visibility": {"public"}}, 201, &p)
		tokens := make([]string, 50)
		for i := range tokens {
			_, tokens[i] = createUser(t, srv, fmt.Sprintf("fan%02d", i))
		}
		var wg sync.WaitGroup
		errs := make(chan string, 50)
		for _, tok := range tokens {
			wg.Add(1)
			go func(tok string) {
				defer wg.Done()
				if resp, body := srv.Do(t, "POST", fmt.Sprintf("/projects/%d/star", p.ID), tok, nil); resp.StatusCode != 201 {
					errs <- fmt.Sprintf("star: %d %s", resp.StatusCode, body)
				}
			}(tok)
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
		var got struct {
			StarCount int `json:"star_count"`
		}
		srv.JSON(t, "GET", fmt.Sprintf("/projects/%d", p.ID), srv.RootToken, nil, 200, &got)
		if got.StarCount != 50 {
			t.Fatalf("star_count %d", got.StarCount)
		}
		srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/star", p.ID), tokens[0], nil, 304, nil)
	})
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestForkWithHistory: the fork's repository has the source's commits,
// import_status reaches finished and forks_count is 1.
func TestForkWithHistory(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	var src struct {
		ID int64
	}
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"upstream"}, "visibility": {"public"}}, 201, &src)
	repo := filepath.Join(srv.Config.DataDir, "repositories", "projects", fmt.Sprintf("%d.git", src.ID))
	work := t.TempDir()
	git(t, work, "init", "-q", "-b", "master")
	for i := 0; i < 3; i++ {
		if err := os.WriteFile(filepath.Join(work, "f.txt"), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, work, "add", "f.txt")
		git(t, work, "commit", "-q", "-m", fmt.Sprintf("commit %d", i))
	}
	git(t, work, "push", "-q", repo, "master")
	want := git(t, repo, "rev-list", "master")

	_, tok := createUser(t, srv, "forker")
	var fork struct {
		ID           int64
		ImportStatus string              `json:"import_status"`
		Forked       *struct{ ID int64 } `json:"forked_from_project"`
	}
	srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/fork", src.ID), tok, nil, 201, &fork)
	if fork.Forked == nil || fork.Forked.ID != src.ID {
		t.Fatalf("forked_from_project %+v", fork.Forked)
	}
	deadline := time.Now().Add(20 * time.Second)
	for fork.ImportStatus != "finished" {
		if time.Now().After(deadline) || fork.ImportStatus == "failed" {
			t.Fatalf("import_status %q", fork.ImportStatus)
		}
		time.Sleep(50 * time.Millisecond)
		srv.JSON(t, "GET", fmt.Sprintf("/projects/%d", fork.ID), tok, nil, 200, &fork)
	}
	forked := filepath.Join(srv.Config.DataDir, "repositories", "projects", fmt.Sprintf("%d.git", fork.ID))
	if got := git(t, forked, "rev-list", "master"); got != want {
		t.Fatalf("fork history\n%s\nwant\n%s", got, want)
	}
	var source struct {
		ForksCount int `json:"forks_count"`
	}
	srv.JSON(t, "GET", fmt.Sprintf("/projects/%d", src.ID), tok, nil, 200, &source)
	if source.ForksCount != 1 {
		t.Fatalf("forks_count %d", source.ForksCount)
	}
}

// TestGitLabClientProjects: go-gitlab calls for projects, groups and members parse.
func TestGitLabClientProjects(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	gl, err := gitlab.NewClient(srv.RootToken, gitlab.WithBaseURL(srv.API()))
	if err != nil {
		t.Fatal(err)
	}
	aliceID, _ := createUser(t, srv, "alice")
	g, _, err := gl.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.Ptr("Team"), Path: gitlab.Ptr("team"),
		Visibility: gitlab.Ptr(gitlab.InternalVisibility)})
	if err != nil || g.FullPath != "team" {
		t.Fatalf("create group: %v %+v", err, g)
	}
	sub, _, err := gl.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.Ptr("Sub"), Path: gitlab.Ptr("sub"), ParentID: gitlab.Ptr(g.ID)})
	if err != nil || sub.FullPath != "team/sub" {
		t.Fatalf("create subgroup: %v %+v", err, sub)
	}
	p, _, err := gl.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.Ptr("My Project"), NamespaceID: gitlab.Ptr(sub.ID),
		Visibility: gitlab.Ptr(gitlab.PrivateVisibility), Description: gitlab.Ptr("d")})
	if err != nil || p.PathWithNamespace != "team/sub/my-project" || p.Namespace == nil || p.Namespace.FullPath != "team/sub" {
		t.Fatalf("create project: %v %+v", err, p)
	}
	if got, _, err := gl.Projects.GetProject("team/sub/my-project", &gitlab.GetProjectOptions{Statistics: gitlab.Ptr(true)}); err != nil || got.ID != p.ID {
		t.Fatalf("get project by path: %v", err)
	}
	if _, _, err := gl.Projects.EditProject(p.ID, &gitlab.EditProjectOptions{Description: gitlab.Ptr("changed")}); err != nil {
		t.Fatalf("edit project: %v", err)
	}
	if list, resp, err := gl.Projects.ListProjects(&gitlab.ListProjectsOptions{Search: gitlab.Ptr("my")}); err != nil || len(list) != 1 || resp.TotalItems != 1 {
		t.Fatalf("list projects: %v %d", err, len(list))
	}
	if _, _, err := gl.Projects.StarProject(p.ID); err != nil {
		t.Fatalf("star: %v", err)
	}
	if _, _, err := gl.Projects.ArchiveProject(p.ID); err != nil {
		t.Fatalf("archive: %v", err)
	}
	if _, _, err := gl.Projects.UnarchiveProject(p.ID); err != nil {
		t.Fatalf("unarchive: %v", err)
	}
	if _, _, err := gl.ProjectMembers.AddProjectMember(p.ID, &gitlab.AddProjectMemberOptions{UserID: gitlab.Ptr(aliceID), AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions)}); err != nil {
		t.Fatalf("add project member: %v", err)
	}
	if ms, _, err := gl.ProjectMembers.ListProjectMembers(p.ID, nil); err != nil || len(ms) != 1 || ms[0].AccessLevel != gitlab.DeveloperPermissions {
		t.Fatalf("list project members: %v %+v", err, ms)
	}
	if _, _, err := gl.ProjectMembers.EditProjectMember(p.ID, aliceID, &gitlab.EditProjectMemberOptions{AccessLevel: gitlab.Ptr(gitlab.MaintainerPermissions)}); err != nil {
		t.Fatalf("edit project member: %v", err)
	}
	if _, err := gl.ProjectMembers.DeleteProjectMember(p.ID, aliceID); err != nil {
		t.Fatalf("delete project member: %v", err)
	}
	if _, _, err := gl.GroupMembers.AddGroupMember(g.ID, &gitlab.AddGroupMemberOptions{UserID: gitlab.Ptr(aliceID), AccessLevel: gitlab.Ptr(gitlab.ReporterPermissions)}); err != nil {
		t.Fatalf("add group member: %v", err)
	}
	if ms, _, err := gl.Groups.ListGroupMembers(g.ID, nil); err != nil || len(ms) < 1 {
		t.Fatalf("list group members: %v", err)
	}
	if got, _, err := gl.Groups.GetGroup("team", nil); err != nil || got.ID != g.ID {
		t.Fatalf("get group: %v", err)
	}
	if gs, _, err := gl.Groups.ListGroups(&gitlab.ListGroupsOptions{AllAvailable: gitlab.Ptr(true)}); err != nil || len(gs) != 2 {
		t.Fatalf("list groups: %v %d", err, len(gs))
	}
	if ps, _, err := gl.Groups.ListGroupProjects(sub.ID, nil); err != nil || len(ps) != 1 {
		t.Fatalf("list group projects: %v", err)
	}
	if _, _, err := gl.Groups.UpdateGroup(g.ID, &gitlab.UpdateGroupOptions{Description: gitlab.Ptr("team group")}); err != nil {
		t.Fatalf("update group: %v", err)
	}
	if ns, _, err := gl.Namespaces.ListNamespaces(nil); err != nil || len(ns) < 3 {
		t.Fatalf("namespaces: %v %d", err, len(ns))
	}
	if _, _, err := gl.Projects.ForkProject(p.ID, &gitlab.ForkProjectOptions{}); err != nil {
		t.Fatalf("fork: %v", err)
	}
	if _, err := gl.Projects.DeleteProject(p.ID, nil); err != nil {
		t.Fatalf("delete project: %v", err)
	}
	if _, err := gl.Groups.DeleteGroup(g.ID, nil); err != nil {
		t.Fatalf("delete group: %v", err)
	}
}
