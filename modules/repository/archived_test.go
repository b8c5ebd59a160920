package repository_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestArchivedProjectRefusesWrites: push_code is never granted on an
// archived project, so a developer's API writes are 403 before their
// input is looked at (a cherry-pick of an unknown commit used to answer
// 404 and a commit with an unknown action 400, as GitLab does not), and
// git pushes are refused with GitLab's message, as they were. Reads go on,
// and unarchiving gives the writes back.
func TestArchivedProjectRefusesWrites(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	p := s.hosted("frozen", "private", 0)
	devID, dev := s.User("dev")
	s.member(p.ID, devID, domain.Developer)
	git := gitClient{t}
	w := git.clone(s.remote(p.Path, "dev", password("dev")))
	git.commit(w, "a.txt", "a\n")
	git.run(w, "push", "-q", "origin", "master")
	s.archive(p.ID)

	base := fmt.Sprintf("/projects/%d/repository", p.ID)
	forbidden := `{"message":"403 Forbidden"}`
	s.ExpectBody(403, forbidden, "POST", base+"/files/b.txt", dev, apptest.Form("branch", "master", "commit_message", "m", "content", "b"))
	s.ExpectBody(403, forbidden, "POST", base+"/commits/ffffffffffffffffffffffffffffffffffffffff/cherry_pick", dev, apptest.Form("branch", "master"))
	s.ExpectBody(403, forbidden, "POST", base+"/commits", dev, commitBody("master", "m", action{"action": "chmod", "file_path": "a.txt"}))
	s.ExpectBody(403, forbidden, "POST", base+"/branches", dev, apptest.Form("branch", "b", "ref", "master"))
	if got := s.Expect(200, "GET", base+"/branches", dev, nil).List(t); len(got) != 1 {
		t.Fatalf("branches of the archived project: %v", got)
	}

	git.commit(w, "b.txt", "b\n")
	out := git.fails(w, "push", "origin", "master")
	if !strings.Contains(out, "You are not allowed to push code to this project.") || !strings.Contains(out, "403") {
		t.Fatalf("push to an archived project: %s", out)
	}
	resp := s.raw(t, "GET", "/"+p.Path+".git/info/refs?service=git-receive-pack", "dev", password("dev"), nil, nil)
	if resp.StatusCode != http.StatusForbidden || resp.text != "You are not allowed to push code to this project.\n" {
		t.Fatalf("receive-pack advertisement of an archived project: %d %q", resp.StatusCode, resp.text)
	}
	git.clone(s.remote(p.Path, "dev", password("dev"))) // fetching goes on

	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/unarchive", p.ID), s.RootToken, nil)
	git.run(w, "push", "-q", "origin", "master")
	s.Expect(201, "POST", base+"/files/c.txt", dev, apptest.Form("branch", "master", "commit_message", "m", "content", "c"))
}
