package projects_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestForkWithHistory(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		_, alice := c.User("alice")
		bobID, bob := c.User("bob")
		src := c.Project(alice, "name", "upstream", "visibility", "internal", "description", "the original")
		srcRepo := c.Srv.RepoDir(apptest.ID(src))
		pushCommits(t, srcRepo, "master", 3)
		pushCommits(t, srcRepo, "feature", 2)

		f := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), bob, nil).Object(t)
		if f["import_status"] != "scheduled" || f["path_with_namespace"] != "bob/upstream" || f["name"] != "upstream" ||
			f["description"] != "the original" || f["visibility"] != "internal" || f["creator_id"] != float64(bobID) {
			t.Fatalf("fork: %v", f)
		}
		from := f["forked_from_project"].(map[string]any)
		if apptest.ID(from) != apptest.ID(src) || from["path_with_namespace"] != "alice/upstream" {
			t.Fatalf("forked_from_project: %v", from)
		}
		done := waitImport(c, bob, apptest.ID(f))
		if done["import_status"] != "finished" || done["import_error"] != nil {
			t.Fatalf("import: %v %v", done["import_status"], done["import_error"])
		}
		dst := c.Srv.RepoDir(apptest.ID(f))
		for _, ref := range []string{"refs/heads/master", "refs/heads/feature"} {
			if a, b := apptest.Git(t, srcRepo, "rev-parse", ref), apptest.Git(t, dst, "rev-parse", ref); a != b {
				t.Fatalf("%s: source %s, fork %s", ref, a, b)
			}
		}
		if n := apptest.Git(t, dst, "rev-list", "--count", "master"); n != "3" {
			t.Fatalf("fork has %s commits on master", n)
		}
		if got := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(src)), alice, nil).Object(t)["forks_count"]; got != float64(1) {
			t.Fatalf("forks_count %v", got)
		}
		stats := c.Expect(200, "GET", fmt.Sprintf("/projects/%d?statistics=true", apptest.ID(f)), bob, nil).Object(t)["statistics"].(map[string]any)
		if stats["commit_count"] != float64(3) {
			t.Fatalf("fork statistics: %v", stats)
		}
		// Bob owns his fork.
		c.Expect(201, "POST", fmt.Sprintf("/projects/%d/archive", apptest.ID(f)), bob, nil)

		// Forking again into the same namespace: GitLab's 409 with the errors.
		c.ExpectBody(409, `{"message":{"name":["has already been taken"],"path":["has already been taken"]}}`,
			"POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), bob, nil)

		// Into a group, by ID or by path, for masters of the group; the
		// fork is no more visible than the group.
		g := group(c, "forks", "private")
		c.AddMember("groups", g, bobID, 40)
		gf := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), bob, apptest.Form("namespace", "forks")).Object(t)
		if gf["path_with_namespace"] != "forks/upstream" || gf["visibility"] != "private" {
			t.Fatalf("group fork: %v %v", gf["path_with_namespace"], gf["visibility"])
		}
		waitImport(c, bob, apptest.ID(gf))
		other := group(c, "other", "public")
		c.ExpectBody(404, `{"message":"404 Target Namespace Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), bob, apptest.Form("namespace", fmt.Sprint(other)))
		c.ExpectBody(404, `{"message":"404 Target Namespace Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), bob, apptest.Form("namespace", "alice"))
		c.ExpectBody(404, `{"message":"404 Target Namespace Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), bob, apptest.Form("namespace", "nowhere"))
		c.ExpectBody(404, `{"message":"404 Target Namespace Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), bob, apptest.Form("namespace", "0"))

		// Private projects: reporters and up may fork, guests may not,
		// strangers do not see it; anonymous callers must sign in.
		priv := c.Project(alice, "name", "closed")
		guestID, guest := c.User("guest")
		reporterID, reporter := c.User("reporter")
		c.AddMember("projects", apptest.ID(priv), guestID, 10)
		c.AddMember("projects", apptest.ID(priv), reporterID, 20)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(priv)), guest, nil)
		c.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(priv)), bob, nil)
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(priv)), "", nil)
		rf := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(priv)), reporter, nil).Object(t)
		if waitImport(c, reporter, apptest.ID(rf))["import_status"] != "finished" {
			t.Fatalf("reporter fork did not finish")
		}
		// An empty source forks too.
		if got := apptest.Git(t, c.Srv.RepoDir(apptest.ID(rf)), "symbolic-ref", "HEAD"); got != "refs/heads/master" {
			t.Fatalf("empty fork HEAD %s", got)
		}
	})
}

// TestForkFailureAndResume: a copy whose source repository is gone fails
// with an import_error; a fork left "scheduled" or "started" by a crash is
// resumed when the app starts again.
func TestForkFailureAndResume(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	dsn := filepath.Join(dataDir, "hearth.db")
	conf := apptest.Configure(func(cfg *config.Config) { cfg.DataDir = dataDir; cfg.Storage.DSN = dsn })
	c := apptest.New(t, conf).Client(t)
	aliceID, alice := c.User("alice")
	_, bob := c.User("bob")
	src := c.Project(alice, "name", "upstream", "visibility", "public")
	pushCommits(t, c.Srv.RepoDir(apptest.ID(src)), "master", 2)

	// The source repository vanishes: the copy fails.
	broken := c.Project(alice, "name", "broken", "visibility", "public")
	if err := os.RemoveAll(c.Srv.RepoDir(apptest.ID(broken))); err != nil {
		t.Fatal(err)
	}
	bf := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(broken)), bob, nil).Object(t)
	failed := waitImport(c, bob, apptest.ID(bf))
	if failed["import_status"] != "failed" || failed["import_error"] != "The source repository does not exist" {
		t.Fatalf("broken fork: %v %v", failed["import_status"], failed["import_error"])
	}

	// Two forks interrupted by a crash: one before its copy began (with an
	// orphaned repository at its path), one during the copy.
	f1 := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), bob, nil).Object(t)
	waitImport(c, bob, apptest.ID(f1))
	g := group(c, "grp", "public")
	c.AddMember("groups", g, aliceID, 40)
	f2 := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(src)), alice, apptest.Form("namespace", "grp")).Object(t)
	waitImport(c, alice, apptest.ID(f2))
	ctx := context.Background()
	for _, step := range []struct {
		id     int64
		status string
	}{{apptest.ID(f1), domain.ImportScheduled}, {apptest.ID(f2), domain.ImportStarted}} {
		if _, err := c.Srv.Store.Projects().Update(ctx, step.id, func(p *domain.Project) error {
			p.ImportStatus = step.status
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// f1's repository is stale (an orphan for a fork that never began);
	// f2's was removed mid-copy.
	if err := os.RemoveAll(c.Srv.RepoDir(apptest.ID(f2))); err != nil {
		t.Fatal(err)
	}
	apptest.Git(t, c.Srv.RepoDir(apptest.ID(f1)), "update-ref", "-d", "refs/heads/master")

	// A second app on the same data resumes both at start.
	c2 := apptest.New(t, conf).Client(t)
	for _, f := range []int64{apptest.ID(f1), apptest.ID(f2)} {
		done := waitImport(c2, c2.Srv.RootToken, f)
		if done["import_status"] != "finished" {
			t.Fatalf("fork %d after restart: %v %v", f, done["import_status"], done["import_error"])
		}
		if a, b := apptest.Git(t, c.Srv.RepoDir(apptest.ID(src)), "rev-parse", "master"), apptest.Git(t, c.Srv.RepoDir(f), "rev-parse", "master"); a != b {
			t.Fatalf("fork %d: master %s, want %s", f, b, a)
		}
	}
}
