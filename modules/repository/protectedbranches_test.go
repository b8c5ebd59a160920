package repository_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// levelsJSON is the protected branch entity of GitLab 9.5 for a name and
// its push and merge levels.
func levelsJSON(name string, push, merge int) string {
	desc := map[int]string{0: "No one", 30: "Developers + Masters", 40: "Masters"}
	return fmt.Sprintf(`{"name":%q,"push_access_levels":[{"access_level":%d,"access_level_description":%q}],`+
		`"merge_access_levels":[{"access_level":%d,"access_level_description":%q}]}`, name, push, desc[push], merge, desc[merge])
}

// TestProtectedBranchesAPI: masters create, list, read and delete rules
// by name (wildcards URL-encoded like any name), with GitLab's defaults,
// validation and conflict, and the branches API shows what they set.
func TestProtectedBranchesAPI(t *testing.T) {
	t.Parallel()
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			testProtectedBranchesAPI(t, newRepoServer(t, v.opts...))
		})
	}
}

func testProtectedBranchesAPI(t *testing.T, s *repoServer) {
	tm := newTeam(s, "pb")
	base := fmt.Sprintf("/projects/%d/protected_branches", tm.id)
	s.seedBranch(tm.id, "rel/1", tm.c1.ID)

	s.ExpectBody(201, levelsJSON("rel/*", 30, 0), "POST", base, tm.master,
		map[string]any{"name": "rel/*", "push_access_level": 30, "merge_access_level": 0})
	s.ExpectBody(201, levelsJSON("master", 40, 40), "POST", base, tm.master, apptest.Form("name", "master"))
	s.ExpectBody(409, `{"message":"Protected branch 'rel/*' already exists"}`, "POST", base, tm.master,
		apptest.Form("name", "rel/*", "push_access_level", "40"))
	s.ExpectBody(400, `{"error":"name is missing"}`, "POST", base, tm.master, apptest.Form("push_access_level", "30"))
	s.ExpectBody(400, `{"error":"push_access_level does not have a valid value, merge_access_level does not have a valid value"}`,
		"POST", base, tm.master, apptest.Form("name", "x", "push_access_level", "20", "merge_access_level", "50"))
	s.ExpectBody(400, `{"error":"merge_access_level is invalid"}`, "POST", base, tm.master, apptest.Form("name", "x", "merge_access_level", "lots"))

	// The list is sorted by name and paginated; the seed's rule is there.
	r := s.Expect(200, "GET", base+"?per_page=2", tm.master, nil)
	if !apptest.JSONEqual(r.Body, []byte("["+levelsJSON("master", 40, 40)+","+levelsJSON("rel/*", 30, 0)+"]")) ||
		r.Header.Get("X-Total") != "3" || r.Header.Get("X-Next-Page") != "2" {
		t.Fatalf("list: %s %v", r.Body, r.Header)
	}
	s.ExpectBody(200, "["+levelsJSON("release-*", 40, 40)+"]", "GET", base+"?page=2&per_page=2", tm.master, nil)

	// One rule by its exact name: a branch the wildcard matches is no rule.
	s.ExpectBody(200, levelsJSON("rel/*", 30, 0), "GET", base+"/"+url.PathEscape("rel/*"), tm.master, nil)
	s.ExpectBody(200, levelsJSON("rel/*", 30, 0), "GET", base+"/rel%2F%2A", tm.master, nil)
	s.ExpectBody(404, `{"message":"404 Not found"}`, "GET", base+"/rel%2F1", tm.master, nil)
	s.ExpectBody(404, `{"message":"404 Not found"}`, "GET", base+"/nope", tm.master, nil)

	// The branches API shows the rules: rel/1 by the wildcard.
	branch := func(name string) branchReply {
		var b branchReply
		s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/branches/%s", tm.id, url.PathEscape(name)), tm.master, nil).Decode(t, &b)
		return b
	}
	if b := branch("rel/1"); !b.Protected || !b.DevelopersCanPush || b.DevelopersCanMerge {
		t.Errorf("rel/1 = %+v, want protected, developers can push, not merge", b)
	}
	// ... and what the branches API sets, this API reads.
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/repository/branches/master/protect", tm.id), tm.master, apptest.Form("developers_can_merge", "true"))
	s.ExpectBody(200, levelsJSON("master", 40, 30), "GET", base+"/master", tm.master, nil)
	if b := branch("master"); !b.Protected || b.DevelopersCanPush || !b.DevelopersCanMerge {
		t.Errorf("master = %+v", b)
	}

	// Deleting unprotects what only that rule protected.
	s.Expect(204, "DELETE", base+"/"+url.PathEscape("rel/*"), tm.master, nil)
	s.ExpectBody(404, `{"message":"404 Not found"}`, "DELETE", base+"/"+url.PathEscape("rel/*"), tm.master, nil)
	if b := branch("rel/1"); b.Protected || b.DevelopersCanPush {
		t.Errorf("rel/1 after delete = %+v", b)
	}
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/repository/branches/master/unprotect", tm.id), tm.master, nil)
	s.ExpectBody(404, `{"message":"404 Not found"}`, "GET", base+"/master", tm.master, nil)
}

// TestProtectedBranchesPermissions: every endpoint, reads included, is a
// master's (GitLab's authorize_admin_project); who cannot see the project
// gets its 404, anonymous callers 401.
func TestProtectedBranchesPermissions(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "pbp")
	base := fmt.Sprintf("/projects/%d/protected_branches", tm.id)
	one := base + "/release-%2A"
	calls := []struct {
		method, path string
		body         any
	}{{"GET", base, nil}, {"GET", one, nil}, {"POST", base, apptest.Form("name", "x")}, {"DELETE", one, nil}}
	for _, c := range calls {
		for _, tok := range []string{tm.guest, tm.reporter, tm.dev} {
			s.ExpectBody(403, `{"message":"403 Forbidden"}`, c.method, c.path, tok, c.body)
		}
		s.ExpectBody(404, `{"message":"404 Project Not Found"}`, c.method, c.path, tm.stranger, c.body)
		s.ExpectBody(401, `{"message":"401 Unauthorized"}`, c.method, c.path, "", c.body)
	}
	// Validation comes after the access checks.
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", base, tm.dev, apptest.Form("push_access_level", "7"))
	s.ExpectBody(200, levelsJSON("release-*", 40, 40), "GET", one, s.RootToken, nil)
	pub := s.projectID("pbp-public", "public")
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", fmt.Sprintf("/projects/%d/protected_branches", pub), "", nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", fmt.Sprintf("/projects/%d/protected_branches", pub), tm.stranger, nil)
}

// TestProtectedBranchLevelsGitPush: the push level decides git pushes
// over HTTP: 40 masters, 30 developers too, 0 no one (masters and
// administrators included), with GitLab's message.
func TestProtectedBranchLevelsGitPush(t *testing.T) {
	t.Parallel()
	tr := httpTransport()
	s := newRepoServer(t, backend("gitcli"))
	devID, devToken := s.User("dev")
	masterID, master := s.User("boss")
	p := s.hosted("levels", "private", 0)
	s.member(p.ID, devID, domain.Developer)
	s.member(p.ID, masterID, domain.Master)
	git := gitClient{t}
	m := git.clone(tr.remote(s, p.Path, "boss"))
	git.commit(m, "a.txt", "a\n")
	for _, b := range []string{"master", "frozen", "devs-1"} {
		git.run(m, "push", "-q", "origin", "HEAD:"+b)
	}
	base := fmt.Sprintf("/projects/%d/protected_branches", p.ID)
	s.Expect(201, "POST", base, master, apptest.Form("name", "master"))
	s.Expect(201, "POST", base, master, apptest.Form("name", "frozen", "push_access_level", "0", "merge_access_level", "30"))
	s.Expect(201, "POST", base, master, apptest.Form("name", "devs-*", "push_access_level", "30"))
	const refused = "remote: GitLab: You are not allowed to push code to protected branches on this project."

	d := git.clone(tr.remote(s, p.Path, "dev"))
	git.commit(d, "d.txt", "d\n")
	if out := git.fails(d, "push", "origin", "HEAD:master"); !strings.Contains(out, refused) {
		t.Errorf("developer push to master (40): %s", out)
	}
	git.run(d, "push", "-q", "origin", "HEAD:devs-1") // 30: developers push
	if out := git.fails(d, "push", "origin", "HEAD:frozen"); !strings.Contains(out, refused) {
		t.Errorf("developer push to frozen (0): %s", out)
	}
	git.run(m, "pull", "-q", "origin", "devs-1")
	git.commit(m, "m.txt", "m\n")
	git.run(m, "push", "-q", "origin", "HEAD:master")
	if out := git.fails(m, "push", "origin", "HEAD:frozen"); !strings.Contains(out, refused) {
		t.Errorf("master push to frozen (0): %s", out)
	}
	root := git.clone(tr.remote(s, p.Path, "root"))
	git.commit(root, "r.txt", "r\n")
	if out := git.fails(root, "push", "origin", "HEAD:frozen"); !strings.Contains(out, refused) {
		t.Errorf("administrator push to frozen (0): %s", out)
	}
	// Unprotected again, frozen takes the master's push.
	s.Expect(204, "DELETE", base+"/frozen", master, nil)
	git.run(m, "push", "-q", "origin", "HEAD:frozen")

	// GitLab's can_push_to_branch?: whom the merge level admits may create
	// a protected branch that does not exist yet, by push or through the
	// API, and no more.
	s.Expect(201, "POST", base, master, apptest.Form("name", "hotfix-*", "push_access_level", "0", "merge_access_level", "30"))
	git.run(d, "push", "-q", "origin", "HEAD:hotfix-1")
	git.commit(d, "h.txt", "h\n")
	if out := git.fails(d, "push", "origin", "HEAD:hotfix-1"); !strings.Contains(out, refused) {
		t.Errorf("developer push to existing hotfix-1: %s", out)
	}
	commits := fmt.Sprintf("/projects/%d/repository/commits", p.ID)
	create := commitBody("hotfix-2", "new", action{"action": "create", "file_path": "n.txt", "content": "n"})
	create["start_branch"] = "master"
	s.Expect(201, "POST", commits, devToken, create)
	s.ExpectBody(400, `{"message":"You are not allowed to push into this branch"}`, "POST", commits, devToken,
		commitBody("hotfix-2", "again", action{"action": "create", "file_path": "o.txt", "content": "o"}))
}

// TestProtectedBranchLevelsMerge: accepting a merge request follows
// GitLab's can_be_merged_by?: whom the target rule's push or merge level
// admits; no one for both refuses masters too (401, as the spec says).
func TestProtectedBranchLevelsMerge(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "pbm")
	base := fmt.Sprintf("/projects/%d/protected_branches", tm.id)
	mr := func(target string) string {
		src := "topic-" + target
		s.seedCommit(tm.id, src, "master", src+".txt", "x\n")
		s.seedBranch(tm.id, target, tm.c2.ID)
		iid := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/merge_requests", tm.id), tm.master,
			apptest.Form("source_branch", src, "target_branch", target, "title", "to "+target)).Object(t)["iid"].(float64)
		return fmt.Sprintf("/projects/%d/merge_requests/%d/merge", tm.id, int64(iid))
	}
	const mayNot = `{"message":"401 Unauthorized"}`

	s.Expect(201, "POST", base, tm.master, apptest.Form("name", "locked", "push_access_level", "0", "merge_access_level", "0"))
	locked := mr("locked")
	s.ExpectBody(401, mayNot, "PUT", locked, tm.master, nil)
	s.ExpectBody(401, mayNot, "PUT", locked, s.RootToken, nil)

	s.Expect(201, "POST", base, tm.master, apptest.Form("name", "review", "push_access_level", "0", "merge_access_level", "30"))
	review := mr("review")
	s.ExpectBody(401, mayNot, "PUT", review, tm.reporter, nil)
	s.Expect(200, "PUT", review, tm.dev, nil)

	s.Expect(201, "POST", base, tm.master, apptest.Form("name", "masters", "push_access_level", "40", "merge_access_level", "0"))
	masters := mr("masters")
	s.ExpectBody(401, mayNot, "PUT", masters, tm.dev, nil)
	s.Expect(200, "PUT", masters, tm.master, nil)
	if r := s.Expect(200, "GET", strings.TrimSuffix(masters, "/merge"), tm.master, nil).Object(t); r["state"] != "merged" {
		t.Errorf("merge request to masters: %v", r["state"])
	}
}

// TestDefaultBranchProtectedOnCreation: with GitLab's default settings the
// push that creates a project's default branch protects it (masters push
// and merge), by git push as by the first API commit; a branch that is
// not the default, and a default branch already covered by a rule, are
// left alone; default_branch_protection 1 lets developers push, 0
// protects nothing.
func TestDefaultBranchProtectedOnCreation(t *testing.T) {
	t.Parallel()
	tr := httpTransport()
	s := newRepoServer(t, backend("gitcli"), apptest.BranchProtection())
	devID, _ := s.User("dev")
	rules := func(p hosted) string {
		return string(s.Expect(200, "GET", fmt.Sprintf("/projects/%d/protected_branches", p.ID), s.RootToken, nil).Body)
	}
	commit := func(p hosted, branch string) {
		s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", p.ID), s.RootToken, map[string]any{
			"branch": branch, "commit_message": "add", "start_branch": "master",
			"actions": []map[string]string{{"action": "create", "file_path": branch + ".txt", "content": "x"}}})
	}

	// By git push: master is protected, and a developer is refused.
	pushed := s.hosted("pushed", "private", 0)
	s.member(pushed.ID, devID, domain.Developer)
	git := gitClient{t}
	w := git.clone(tr.remote(s, pushed.Path, "root"))
	git.commit(w, "a.txt", "a\n")
	git.run(w, "push", "-q", "origin", "HEAD:master")
	git.run(w, "push", "-q", "origin", "HEAD:topic")
	if got, want := rules(pushed), "["+levelsJSON("master", 40, 40)+"]"; got != want {
		t.Errorf("after the first push: %s, want %s", got, want)
	}
	d := git.clone(tr.remote(s, pushed.Path, "dev"))
	git.commit(d, "d.txt", "d\n")
	if out := git.fails(d, "push", "origin", "HEAD:master"); !strings.Contains(out, "not allowed to push code to protected branches") {
		t.Errorf("developer push to the new default branch: %s", out)
	}
	git.run(d, "push", "-q", "origin", "HEAD:topic") // not the default: not protected

	// By the first API commit; a rule that already covers it is kept.
	viaAPI := s.hosted("via-api", "private", 0)
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/protected_branches", viaAPI.ID), s.RootToken,
		apptest.Form("name", "mas*", "push_access_level", "30"))
	commit(viaAPI, "master")
	if got, want := rules(viaAPI), "["+levelsJSON("mas*", 30, 40)+"]"; got != want {
		t.Errorf("default branch under a wildcard rule: %s, want %s", got, want)
	}

	// Setting 1: developers may push; 0: nothing is protected.
	for _, c := range []struct {
		setting int
		want    string
	}{{1, "[" + levelsJSON("master", 30, 40) + "]"}, {0, "[]"}} {
		s.Expect(200, "PUT", "/application/settings", s.RootToken, map[string]any{"default_branch_protection": c.setting})
		p := s.hosted(fmt.Sprintf("setting-%d", c.setting), "private", 0)
		commit(p, "master")
		if got := rules(p); got != c.want {
			t.Errorf("default_branch_protection %d: %s, want %s", c.setting, got, c.want)
		}
	}
}
