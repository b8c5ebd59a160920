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
	eachDriver(t, func(t *testing.T, c client) {
		_, alice := c.user("alice")
		bobID, bob := c.user("bob")
		src := c.project(alice, "name", "upstream", "visibility", "internal", "description", "the original")
		srcRepo := c.repoDir(id(src))
		pushCommits(t, srcRepo, "master", 3)
		pushCommits(t, srcRepo, "feature", 2)

		f := c.expect(201, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), bob, nil).object(t)
		if f["import_status"] != "scheduled" || f["path_with_namespace"] != "bob/upstream" || f["name"] != "upstream" ||
			f["description"] != "the original" || f["visibility"] != "internal" || f["creator_id"] != float64(bobID) {
			t.Fatalf("fork: %v", f)
		}
		from := f["forked_from_project"].(map[string]any)
		if id(from) != id(src) || from["path_with_namespace"] != "alice/upstream" {
			t.Fatalf("forked_from_project: %v", from)
		}
		done := c.waitImport(bob, id(f))
		if done["import_status"] != "finished" || done["import_error"] != nil {
			t.Fatalf("import: %v %v", done["import_status"], done["import_error"])
		}
		dst := c.repoDir(id(f))
		for _, ref := range []string{"refs/heads/master", "refs/heads/feature"} {
			if a, b := git(t, srcRepo, "rev-parse", ref), git(t, dst, "rev-parse", ref); a != b {
				t.Fatalf("%s: source %s, fork %s", ref, a, b)
			}
		}
		if n := git(t, dst, "rev-list", "--count", "master"); n != "3" {
			t.Fatalf("fork has %s commits on master", n)
		}
		if got := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(src)), alice, nil).object(t)["forks_count"]; got != float64(1) {
			t.Fatalf("forks_count %v", got)
		}
		stats := c.expect(200, "GET", fmt.Sprintf("/projects/%d?statistics=true", id(f)), bob, nil).object(t)["statistics"].(map[string]any)
		if stats["commit_count"] != float64(3) {
			t.Fatalf("fork statistics: %v", stats)
		}
		// Bob owns his fork.
		c.expect(201, "POST", fmt.Sprintf("/projects/%d/archive", id(f)), bob, nil)

		// Forking again into the same namespace: GitLab's 409 with the errors.
		c.expectBody(409, `{"message":{"name":["has already been taken"],"path":["has already been taken"]}}`,
			"POST", fmt.Sprintf("/projects/%d/fork", id(src)), bob, nil)

		// Into a group, by ID or by path, for masters of the group; the
		// fork is no more visible than the group.
		g := c.group("forks", "private")
		c.addMember("groups", g, bobID, 40)
		gf := c.expect(201, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), bob, form("namespace", "forks")).object(t)
		if gf["path_with_namespace"] != "forks/upstream" || gf["visibility"] != "private" {
			t.Fatalf("group fork: %v %v", gf["path_with_namespace"], gf["visibility"])
		}
		c.waitImport(bob, id(gf))
		other := c.group("other", "public")
		c.expectBody(404, `{"message":"404 Target Namespace Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), bob, form("namespace", fmt.Sprint(other)))
		c.expectBody(404, `{"message":"404 Target Namespace Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), bob, form("namespace", "alice"))
		c.expectBody(404, `{"message":"404 Target Namespace Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), bob, form("namespace", "nowhere"))
		c.expectBody(404, `{"message":"404 Target Namespace Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), bob, form("namespace", "0"))

		// Private projects: reporters and up may fork, guests may not,
		// strangers do not see it; anonymous callers must sign in.
		priv := c.project(alice, "name", "closed")
		guestID, guest := c.user("guest")
		reporterID, reporter := c.user("reporter")
		c.addMember("projects", id(priv), guestID, 10)
		c.addMember("projects", id(priv), reporterID, 20)
		c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", fmt.Sprintf("/projects/%d/fork", id(priv)), guest, nil)
		c.expectBody(404, `{"message":"404 Project Not Found"}`, "POST", fmt.Sprintf("/projects/%d/fork", id(priv)), bob, nil)
		c.expectBody(401, `{"message":"401 Unauthorized"}`, "POST", fmt.Sprintf("/projects/%d/fork", id(priv)), "", nil)
		rf := c.expect(201, "POST", fmt.Sprintf("/projects/%d/fork", id(priv)), reporter, nil).object(t)
		if c.waitImport(reporter, id(rf))["import_status"] != "finished" {
			t.Fatalf("reporter fork did not finish")
		}
		// An empty source forks too.
		if got := git(t, c.repoDir(id(rf)), "symbolic-ref", "HEAD"); got != "refs/heads/master" {
			t.Fatalf("empty fork HEAD %s", got)
		}
	})
}

// TestForkFailureAndResume: a copy whose source repository is gone fails
// with an import_error; a fork left "scheduled" or "started" by a crash is
// resumed when the app starts again.
func TestForkFailureAndResume(t *testing.T) {
	dataDir := t.TempDir()
	dsn := filepath.Join(dataDir, "hearth.db")
	conf := apptest.Configure(func(cfg *config.Config) { cfg.DataDir = dataDir; cfg.Storage.DSN = dsn })
	c := client{t: t, srv: newServer(t, conf)}
	aliceID, alice := c.user("alice")
	_, bob := c.user("bob")
	src := c.project(alice, "name", "upstream", "visibility", "public")
	pushCommits(t, c.repoDir(id(src)), "master", 2)

	// The source repository vanishes: the copy fails.
	broken := c.project(alice, "name", "broken", "visibility", "public")
	if err := os.RemoveAll(c.repoDir(id(broken))); err != nil {
		t.Fatal(err)
	}
	bf := c.expect(201, "POST", fmt.Sprintf("/projects/%d/fork", id(broken)), bob, nil).object(t)
	failed := c.waitImport(bob, id(bf))
	if failed["import_status"] != "failed" || failed["import_error"] != "The source repository does not exist" {
		t.Fatalf("broken fork: %v %v", failed["import_status"], failed["import_error"])
	}

	// Two forks interrupted by a crash: one before its copy began (with an
	// orphaned repository at its path), one during the copy.
	f1 := c.expect(201, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), bob, nil).object(t)
	c.waitImport(bob, id(f1))
	g := c.group("grp", "public")
	c.addMember("groups", g, aliceID, 40)
	f2 := c.expect(201, "POST", fmt.Sprintf("/projects/%d/fork", id(src)), alice, form("namespace", "grp")).object(t)
	c.waitImport(alice, id(f2))
	ctx := context.Background()
	for _, step := range []struct {
		id     int64
		status string
	}{{id(f1), domain.ImportScheduled}, {id(f2), domain.ImportStarted}} {
		if _, err := c.srv.Store.Projects().Update(ctx, step.id, func(p *domain.Project) error {
			p.ImportStatus = step.status
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// f1's repository is stale (an orphan for a fork that never began);
	// f2's was removed mid-copy.
	if err := os.RemoveAll(c.repoDir(id(f2))); err != nil {
		t.Fatal(err)
	}
	git(t, c.repoDir(id(f1)), "update-ref", "-d", "refs/heads/master")

	// A second app on the same data resumes both at start.
	c2 := client{t: t, srv: newServer(t, conf)}
	for _, f := range []int64{id(f1), id(f2)} {
		done := c2.waitImport(c2.srv.RootToken, f)
		if done["import_status"] != "finished" {
			t.Fatalf("fork %d after restart: %v %v", f, done["import_status"], done["import_error"])
		}
		if a, b := git(t, c.repoDir(id(src)), "rev-parse", "master"), git(t, c.repoDir(f), "rev-parse", "master"); a != b {
			t.Fatalf("fork %d: master %s, want %s", f, b, a)
		}
	}
}
