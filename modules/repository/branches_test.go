package repository_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/core/domain"
)

func branchesPath(id int64, rest string) string {
	return fmt.Sprintf("/projects/%d/repository/branches%s", id, rest)
}

func branchNames(bs []branchReply) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name
	}
	return out
}

func TestBranchList(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "blist")

	var all []branchReply
	resp := s.Expect(200, "GET", branchesPath(tm.id, ""), tm.reporter, nil)
	resp.Decode(t, &all)
	want := []string{"feature/x", "master", "merged-old", "release-1", "same-head"}
	if got := branchNames(all); !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	if resp.Header.Get("X-Total") != "5" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", resp.Header)
	}
	flags := map[string][3]bool{ // merged, protected, developers_can_push
		"feature/x": {false, false, false}, "master": {false, false, false},
		"merged-old": {true, false, false}, "release-1": {true, true, false}, "same-head": {false, false, false},
	}
	for _, b := range all {
		if got := [3]bool{b.Merged, b.Protected, b.DevelopersCanPush}; got != flags[b.Name] {
			t.Errorf("%s: merged/protected/devs_can_push %v, want %v", b.Name, got, flags[b.Name])
		}
	}
	m := all[1].Commit
	if m.ID != tm.c2.ID || m.ShortID != tm.c2.ID[:8] || m.Title != "Change README.md" ||
		m.Message != "Change README.md\n\nbody of the message" || !slices.Equal(m.ParentIDs, []string{tm.c1.ID}) ||
		m.AuthorName != "Seeder" || m.AuthorEmail != "seeder@example.com" || m.CommitterName != "Seeder" ||
		m.AuthoredDate.IsZero() || m.CommittedDate.IsZero() || m.CreatedAt.IsZero() {
		t.Fatalf("master commit %+v, want c2 %s", m, tm.c2.ID)
	}

	// Pagination.
	var page []branchReply
	resp = s.Expect(200, "GET", branchesPath(tm.id, "?per_page=2&page=2"), tm.dev, nil)
	resp.Decode(t, &page)
	if got := branchNames(page); !slices.Equal(got, []string{"merged-old", "release-1"}) {
		t.Fatalf("page 2: %v", got)
	}
	h := resp.Header
	if h.Get("X-Total") != "5" || h.Get("X-Total-Pages") != "3" || h.Get("X-Page") != "2" ||
		h.Get("X-Next-Page") != "3" || h.Get("X-Prev-Page") != "1" || !strings.Contains(h.Get("Link"), `rel="next"`) {
		t.Fatalf("pagination headers %v", h)
	}

	// Who may read: 404 for strangers, anonymous callers and guests of a
	// private project (its code is not theirs to download).
	notFound := `{"message":"404 Project Not Found"}`
	s.ExpectBody(404, notFound, "GET", branchesPath(tm.id, ""), "", nil)
	s.ExpectBody(404, notFound, "GET", branchesPath(tm.id, ""), tm.stranger, nil)
	s.ExpectBody(404, notFound, "GET", branchesPath(tm.id, ""), tm.guest, nil)
	s.ExpectBody(404, notFound, "GET", branchesPath(9999, ""), tm.dev, nil)

	// A public repository is readable anonymously.
	pub := s.seed("blist-public", "public")
	var anon []branchReply
	s.Expect(200, "GET", branchesPath(pub.id, ""), "", nil).Decode(t, &anon)
	if len(anon) != 5 {
		t.Fatalf("anonymous list of a public repository: %v", branchNames(anon))
	}

	s.ExpectBody(404, notFound, "GET", branchesPath(tm.id, "?page=x"), tm.guest, nil) // access before validation
	s.ExpectBody(400, `{"error":"page is invalid"}`, "GET", branchesPath(tm.id, "?page=x"), tm.reporter, nil)

	// An empty repository has no branches.
	empty := s.projectID("blist-empty", "private")
	s.ExpectBody(200, `[]`, "GET", branchesPath(empty, ""), s.RootToken, nil)
}

func TestBranchGet(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "bget")

	var b branchReply
	s.Expect(200, "GET", branchesPath(tm.id, "/feature%2Fx"), tm.reporter, nil).Decode(t, &b)
	if b.Name != "feature/x" || b.Commit.ID != tm.c3.ID || b.Merged || b.Protected {
		t.Fatalf("feature/x: %+v", b)
	}
	s.Expect(200, "GET", branchesPath(tm.id, "/merged-old"), tm.dev, nil).Decode(t, &b)
	if !b.Merged || b.Commit.ID != tm.c1.ID {
		t.Fatalf("merged-old: %+v", b)
	}
	s.Expect(200, "GET", branchesPath(tm.id, "/master"), tm.dev, nil).Decode(t, &b)
	if b.Merged || b.Commit.ID != tm.c2.ID {
		t.Fatalf("the default branch is never merged: %+v", b)
	}
	s.Expect(200, "GET", branchesPath(tm.id, "/release-1"), tm.dev, nil).Decode(t, &b)
	if !b.Protected || b.DevelopersCanPush || b.DevelopersCanMerge {
		t.Fatalf("release-1 under the release-* rule: %+v", b)
	}
	// Dots stay part of the name (go-gitlab also encodes them as %2E).
	s.seedBranch(tm.id, "v1.2.3", tm.c1.ID)
	s.Expect(200, "GET", branchesPath(tm.id, "/v1%2E2%2E3"), tm.dev, nil).Decode(t, &b)
	if b.Name != "v1.2.3" {
		t.Fatalf("dotted branch: %+v", b)
	}

	notFound := `{"message":"404 Branch Not Found"}`
	for _, name := range []string{"unknown", "..%2F..%2Fconfig", "-x", "refs%2Fheads%2Fmaster", "a%00b", "HEAD", "%2e%2e%2fx"} {
		s.ExpectBody(404, notFound, "GET", branchesPath(tm.id, "/"+name), tm.dev, nil)
	}
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", branchesPath(tm.id, "/master"), "", nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", branchesPath(tm.id, "/master"), tm.guest, nil)

	pub := s.seed("bget-public", "public")
	s.Expect(200, "GET", branchesPath(pub.id, "/feature%2Fx"), "", nil).Decode(t, &b)
	if b.Commit.ID != pub.c3.ID {
		t.Fatalf("anonymous read of a public branch: %+v", b)
	}
}

func TestBranchCreate(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "bcreate")
	path := branchesPath(tm.id, "")
	form := func(branch, ref string) url.Values { return url.Values{"branch": {branch}, "ref": {ref}} }

	// From a branch name, a SHA and a tag.
	var b branchReply
	s.Expect(201, "POST", path, tm.dev, form("from-branch", "feature/x")).Decode(t, &b)
	if b.Name != "from-branch" || b.Commit.ID != tm.c3.ID || b.Merged || b.Protected {
		t.Fatalf("from branch: %+v", b)
	}
	s.Expect(201, "POST", path, tm.dev, map[string]string{"branch": "nested/from-sha", "ref": tm.c1.ID}).Decode(t, &b)
	if b.Name != "nested/from-sha" || b.Commit.ID != tm.c1.ID || !b.Merged {
		t.Fatalf("from sha: %+v", b)
	}
	s.git(tm.id, "tag", "v1", tm.c2.ID)
	s.Expect(201, "POST", path, tm.dev, form("from-tag", "v1")).Decode(t, &b)
	if b.Commit.ID != tm.c2.ID {
		t.Fatalf("from tag: %+v", b)
	}
	if head, ok := s.branchHead(tm.id, "nested/from-sha"); !ok || head != tm.c1.ID {
		t.Fatalf("nested/from-sha in git: %q %v", head, ok)
	}

	// The creation is announced as a push of no commits.
	evs := s.pushesOf(tm.id, "refs/heads/from-branch")
	if len(evs) != 1 {
		t.Fatalf("push events of from-branch: %+v", evs)
	}
	ev := evs[0]
	if ev.Before != domain.ZeroID || ev.After != tm.c3.ID || len(ev.Commits) != 0 || ev.TotalCommits != 0 ||
		ev.Actor != tm.devID || ev.At.IsZero() {
		t.Fatalf("push event %+v", ev)
	}

	// Failures, with GitLab's messages.
	s.ExpectBody(400, `{"message":"Branch already exists"}`, "POST", path, tm.dev, form("from-branch", "master"))
	s.ExpectBody(400, `{"message":"Branch already exists"}`, "POST", path, tm.dev, form("master", "master"))
	for _, name := range []string{"new design", "-x", "refs/heads/x", "a..b", "HEAD", "x.lock", "a/.b", "x~1", "a\x00b", "trailing/", "ends.", "bad\xffutf8", strings.Repeat("n", 256)} {
		s.ExpectBody(400, `{"message":"Branch name is invalid"}`, "POST", path, tm.dev, form(name, "master"))
	}
	for _, ref := range []string{"nope", "-x", "../../etc", "0000000000000000000000000000000000000001", "--output=/tmp/x"} {
		s.ExpectBody(400, `{"message":"Invalid reference name"}`, "POST", path, tm.dev, form("new-"+fmt.Sprint(len(ref)), ref))
	}
	s.ExpectBody(400, `{"error":"branch is missing, ref is missing"}`, "POST", path, tm.dev, url.Values{})
	s.ExpectBody(400, `{"error":"ref is missing"}`, "POST", path, tm.dev, url.Values{"branch": {"x"}})

	// Permission order: 401, 404, 403.
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", path, "", form("p1", "master"))
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", path, tm.stranger, form("p1", "master"))
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", path, tm.guest, form("p1", "master"))
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", path, tm.reporter, form("p1", "master"))
	if _, ok := s.branchHead(tm.id, "p1"); ok {
		t.Fatal("a refused creation left a branch")
	}
	// Access comes before validation: whoever may not create branches
	// learns nothing from the parameters.
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", path, "", url.Values{})
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", path, tm.stranger, url.Values{})
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", path, tm.reporter, url.Values{})

	// A name a protection rule covers takes a master (or developers when
	// they may push).
	s.ExpectBody(400, `{"message":"You are not allowed to push into this branch"}`, "POST", path, tm.dev, form("release-2", "master"))
	s.Expect(201, "POST", path, tm.master, form("release-2", "master")).Decode(t, &b)
	if !b.Protected {
		t.Fatalf("release-2 is covered by release-*: %+v", b)
	}
}

func TestBranchDelete(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "bdelete")

	s.Expect(204, "DELETE", branchesPath(tm.id, "/merged-old"), tm.dev, nil)
	if _, ok := s.branchHead(tm.id, "merged-old"); ok {
		t.Fatal("merged-old still exists")
	}
	evs := s.pushesOf(tm.id, "refs/heads/merged-old")
	if len(evs) != 1 || evs[0].Before != tm.c1.ID || evs[0].After != domain.ZeroID || len(evs[0].Commits) != 0 || evs[0].Actor != tm.devID {
		t.Fatalf("deletion events %+v", evs)
	}
	s.ExpectBody(404, `{"message":"404 Branch Not Found"}`, "DELETE", branchesPath(tm.id, "/merged-old"), tm.dev, nil)
	s.Expect(204, "DELETE", branchesPath(tm.id, "/feature%2Fx"), tm.dev, nil)
	if _, ok := s.branchHead(tm.id, "feature/x"); ok {
		t.Fatal("feature/x still exists")
	}

	// The default branch and protected branches stay, even for masters.
	s.ExpectBody(405, `{"message":"Cannot remove HEAD branch"}`, "DELETE", branchesPath(tm.id, "/master"), s.RootToken, nil)
	s.ExpectBody(405, `{"message":"Protected branch cant be removed"}`, "DELETE", branchesPath(tm.id, "/release-1"), tm.master, nil)
	for _, name := range []string{"master", "release-1"} {
		if _, ok := s.branchHead(tm.id, name); !ok {
			t.Fatalf("%s was removed", name)
		}
	}

	s.Expect(401, "DELETE", branchesPath(tm.id, "/same-head"), "", nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "DELETE", branchesPath(tm.id, "/same-head"), tm.stranger, nil)
	s.Expect(403, "DELETE", branchesPath(tm.id, "/same-head"), tm.guest, nil)
	s.Expect(403, "DELETE", branchesPath(tm.id, "/same-head"), tm.reporter, nil)
	s.ExpectBody(404, `{"message":"404 Branch Not Found"}`, "DELETE", branchesPath(tm.id, "/..%2Fmaster"), tm.dev, nil)
	if _, ok := s.branchHead(tm.id, "same-head"); !ok {
		t.Fatal("a refused deletion removed same-head")
	}
}

func TestBranchProtect(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "bprotect")
	protect := branchesPath(tm.id, "/same-head/protect")
	unprotect := branchesPath(tm.id, "/same-head/unprotect")

	check := func(b branchReply, protected, push, merge bool) {
		t.Helper()
		if b.Name != "same-head" || b.Commit.ID != tm.c2.ID || b.Protected != protected ||
			b.DevelopersCanPush != push || b.DevelopersCanMerge != merge {
			t.Fatalf("branch %+v, want protected %v push %v merge %v", b, protected, push, merge)
		}
	}
	var b branchReply
	s.Expect(200, "PUT", protect, tm.master, nil).Decode(t, &b)
	check(b, true, false, false)
	s.Expect(200, "PUT", protect, tm.master, nil).Decode(t, &b) // again: still 200
	check(b, true, false, false)
	s.Expect(200, "PUT", protect, tm.master, url.Values{"developers_can_push": {"true"}}).Decode(t, &b)
	check(b, true, true, false)
	s.Expect(200, "PUT", protect, tm.master, nil).Decode(t, &b) // flags not given stay
	check(b, true, true, false)
	s.Expect(200, "PUT", protect, tm.master, map[string]bool{"developers_can_merge": true}).Decode(t, &b)
	check(b, true, true, true)
	s.Expect(200, "PUT", protect, tm.master, url.Values{"developers_can_push": {"0"}, "developers_can_merge": {"false"}}).Decode(t, &b)
	check(b, true, false, false)
	s.Expect(200, "GET", branchesPath(tm.id, "/same-head"), tm.reporter, nil).Decode(t, &b)
	check(b, true, false, false)
	s.ExpectBody(405, `{"message":"Protected branch cant be removed"}`, "DELETE", branchesPath(tm.id, "/same-head"), tm.dev, nil)

	s.ExpectBody(400, `{"error":"developers_can_push is invalid"}`, "PUT", protect, tm.master, url.Values{"developers_can_push": {"maybe"}})
	s.ExpectBody(404, `{"message":"404 Branch Not Found"}`, "PUT", branchesPath(tm.id, "/unknown/protect"), tm.master, nil)
	s.Expect(401, "PUT", protect, "", nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "PUT", protect, tm.stranger, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", protect, tm.dev, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", unprotect, tm.dev, nil)

	// Slashes in the name.
	s.Expect(200, "PUT", branchesPath(tm.id, "/feature%2Fx/protect"), tm.master, nil).Decode(t, &b)
	if b.Name != "feature/x" || !b.Protected {
		t.Fatalf("feature/x: %+v", b)
	}

	s.Expect(200, "PUT", unprotect, tm.master, nil).Decode(t, &b)
	check(b, false, false, false)
	s.Expect(200, "PUT", unprotect, tm.master, nil).Decode(t, &b) // again: still 200
	check(b, false, false, false)
	s.ExpectBody(404, `{"message":"404 Branch Not Found"}`, "PUT", branchesPath(tm.id, "/unknown/unprotect"), tm.master, nil)
	s.Expect(204, "DELETE", branchesPath(tm.id, "/same-head"), tm.dev, nil)

	// Unprotecting a branch leaves a wildcard rule that covers it.
	s.Expect(200, "PUT", branchesPath(tm.id, "/release-1/unprotect"), tm.master, nil).Decode(t, &b)
	if !b.Protected {
		t.Fatalf("release-1 is still covered by release-*: %+v", b)
	}
}

func TestMergedBranchesDelete(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "bmerged")
	s.seedBranch(tm.id, "merged/two", tm.c1.ID)
	path := fmt.Sprintf("/projects/%d/repository/merged_branches", tm.id)

	s.Expect(401, "DELETE", path, "", nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "DELETE", path, tm.stranger, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", path, tm.guest, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", path, tm.reporter, nil)

	s.ExpectBody(202, `{"message":"202 Accepted"}`, "DELETE", path, tm.dev, nil)
	var all []branchReply
	s.Expect(200, "GET", branchesPath(tm.id, ""), tm.dev, nil).Decode(t, &all)
	// merged-old and merged/two went; release-1 is merged but protected,
	// same-head shares master's head, feature/x is ahead.
	if got, want := branchNames(all), []string{"feature/x", "master", "release-1", "same-head"}; !slices.Equal(got, want) {
		t.Fatalf("after deleting merged branches: %v, want %v", got, want)
	}
	for _, name := range []string{"merged-old", "merged/two"} {
		evs := s.pushesOf(tm.id, "refs/heads/"+name)
		if len(evs) != 1 || evs[0].After != domain.ZeroID || evs[0].Before != tm.c1.ID {
			t.Fatalf("events of %s: %+v", name, evs)
		}
	}
	// Nothing left to delete: still 202.
	s.ExpectBody(202, `{"message":"202 Accepted"}`, "DELETE", path, tm.master, nil)
}

// TestBranchesWithGoGitlab drives the endpoints with go-gitlab on SQLite with gitcli and Postgres with gogit.
func TestBranchesWithGoGitlab(t *testing.T) {
	t.Parallel()
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			testBranchesWithGoGitlab(t, newRepoServer(t, v.opts...))
		})
	}
}

func testBranchesWithGoGitlab(t *testing.T, s *repoServer) {
	r := s.seed("bclient", "private")
	gl, err := gitlab.NewClient(s.RootToken, gitlab.WithBaseURL(s.API()))
	if err != nil {
		t.Fatal(err)
	}
	list, resp, err := gl.Branches.ListBranches(r.id, &gitlab.ListBranchesOptions{ListOptions: gitlab.ListOptions{PerPage: 2}})
	if err != nil || len(list) != 2 || resp.TotalItems != 5 || resp.NextPage != 2 || list[0].Name != "feature/x" {
		t.Fatalf("ListBranches: %v %+v %v", list, resp, err)
	}
	b, _, err := gl.Branches.GetBranch(r.id, "feature/x")
	if err != nil || b.Commit == nil || b.Commit.ID != r.c3.ID || b.Commit.CommittedDate == nil || b.Merged {
		t.Fatalf("GetBranch: %+v %v", b, err)
	}
	b, _, err = gl.Branches.CreateBranch(r.id, &gitlab.CreateBranchOptions{Branch: gitlab.Ptr("client/new"), Ref: gitlab.Ptr(r.c1.ID)})
	if err != nil || b.Name != "client/new" || !b.Merged {
		t.Fatalf("CreateBranch: %+v %v", b, err)
	}
	if _, err := gl.Branches.DeleteBranch(r.id, "same-head"); err != nil {
		t.Fatalf("DeleteBranch: %v", err)
	}
	if _, err := gl.Branches.DeleteMergedBranches(r.id); err != nil {
		t.Fatalf("DeleteMergedBranches: %v", err)
	}
	list, _, err = gl.Branches.ListBranches(r.id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range list {
		names = append(names, b.Name)
	}
	if want := []string{"feature/x", "master", "release-1"}; !slices.Equal(names, want) {
		t.Fatalf("after deletions: %v, want %v", names, want)
	}
	if _, err := gl.Branches.DeleteBranch(r.id, "master"); err == nil {
		t.Fatal("deleting the default branch succeeded")
	} else if !strings.Contains(err.Error(), "Cannot remove HEAD branch") {
		t.Fatalf("default branch deletion error: %v", err)
	}
}

// TestBranchMergedManyBranches checks "merged" when a page holds many
// branches (decided with one walk of the default branch's history) against
// small pages (decided branch by branch), on SQLite with gitcli and Postgres with gogit.
func TestBranchMergedManyBranches(t *testing.T) {
	t.Parallel()
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			s := newRepoServer(t, v.opts...)
			r := s.seed("bmany", "private")
			want := map[string]bool{"feature/x": false, "master": false, "merged-old": true, "release-1": true, "same-head": false}
			for i := 0; i < 6; i++ {
				s.seedBranch(r.id, fmt.Sprintf("old-%d", i), r.c1.ID)
				want[fmt.Sprintf("old-%d", i)] = true
				c := s.seedCommit(r.id, fmt.Sprintf("side-%d", i), "master", fmt.Sprintf("side-%d.txt", i), "side\n")
				want[fmt.Sprintf("side-%d", i)] = false
				s.seedBranch(r.id, fmt.Sprintf("side-%d-copy", i), c.ID)
				want[fmt.Sprintf("side-%d-copy", i)] = false
			}
			var all []branchReply
			s.Expect(200, "GET", branchesPath(r.id, "?per_page=100"), s.RootToken, nil).Decode(t, &all)
			if len(all) != len(want) {
				t.Fatalf("%d branches, want %d", len(all), len(want))
			}
			for _, b := range all {
				if b.Merged != want[b.Name] {
					t.Errorf("one page: %s merged %v, want %v", b.Name, b.Merged, want[b.Name])
				}
			}
			for page := 1; page <= (len(want)+1)/2; page++ {
				var two []branchReply
				s.Expect(200, "GET", branchesPath(r.id, fmt.Sprintf("?per_page=2&page=%d", page)), s.RootToken, nil).Decode(t, &two)
				for _, b := range two {
					if b.Merged != want[b.Name] {
						t.Errorf("page %d of 2: %s merged %v, want %v", page, b.Name, b.Merged, want[b.Name])
					}
				}
			}
			// merged_branches deletes the merged, unprotected ones only.
			s.ExpectBody(202, `{"message":"202 Accepted"}`, "DELETE", fmt.Sprintf("/projects/%d/repository/merged_branches", r.id), s.RootToken, nil)
			s.Expect(200, "GET", branchesPath(r.id, "?per_page=100"), s.RootToken, nil).Decode(t, &all)
			for _, b := range all {
				if want[b.Name] && b.Name != "release-1" {
					t.Errorf("merged branch %s survived", b.Name)
				}
				delete(want, b.Name)
			}
			for name, merged := range want {
				if !merged {
					t.Errorf("unmerged branch %s was deleted", name)
				}
			}
		})
	}
}
