package repository_test

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestCommitsCreateListGet drives the multi-file commit, the commit list
// (pagination, since/until, ref_name) and the single commit read.
func TestCommitsCreateListGet(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid := s.projectID("commit-list", "private")
	base := fmt.Sprintf("/projects/%d/repository/commits", pid)

	first := s.commit(s.RootToken, pid, commitBody("master", "first\n\nbody text",
		action{"action": "create", "file_path": "README.md", "content": "one\ntwo\n"},
		action{"action": "create", "file_path": "bin/logo.bin", "content": base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 0xff}), "encoding": "base64"},
	))
	if first.Title != "first" || first.Message != "first\n\nbody text" || len(first.ParentIDs) != 0 || first.ShortID != first.ID[:8] {
		t.Fatalf("first commit: %+v", first)
	}
	if first.AuthorName != "Administrator" && first.AuthorName == "" {
		t.Fatalf("author defaults to the caller: %+v", first)
	}
	if first.CommitterEmail != first.AuthorEmail || first.Stats == nil || first.Stats.Additions != 2 || first.Stats.Total != 2 {
		t.Fatalf("first commit author/stats: %+v %+v", first, first.Stats)
	}
	if got := s.git(pid, "cat-file", "-p", "master:bin/logo.bin"); got != string([]byte{0, 1, 2, 0xff}) {
		t.Fatalf("base64 content stored as %q", got)
	}
	// Status is present and null in the create response.
	created := s.Expect(201, "POST", base, s.RootToken, commitBody("master", "second",
		action{"action": "update", "file_path": "README.md", "content": "one\n2\nthree\n"},
		action{"action": "move", "file_path": "docs/logo.bin", "previous_path": "bin/logo.bin"},
	))
	if !strings.Contains(string(created.Body), `"status":null`) {
		t.Fatalf("second commit: %s", created.Body)
	}
	var second commitReply
	created.Decode(t, &second)
	if len(second.ParentIDs) != 1 || second.ParentIDs[0] != first.ID || second.Stats.Additions != 2 || second.Stats.Deletions != 1 {
		t.Fatalf("second commit: %+v %+v", second, second.Stats)
	}
	s.Advance(48 * time.Hour)
	third := s.commit(s.RootToken, pid, map[string]any{"branch": "master", "commit_message": "third",
		"author_name": "Alice", "author_email": "alice@example.com",
		"actions": []action{{"action": "delete", "file_path": "docs/logo.bin"}}})
	if third.AuthorName != "Alice" || third.AuthorEmail != "alice@example.com" || third.CommitterName == "Alice" {
		t.Fatalf("explicit author: %+v", third)
	}
	if got := s.git(pid, "ls-tree", "-r", "--name-only", "master"); got != "README.md" {
		t.Fatalf("tree after three commits: %q", got)
	}

	// The list: newest first, paginated.
	var list []commitReply
	resp := s.Expect(200, "GET", base, s.RootToken, nil)
	resp.Decode(t, &list)
	if len(list) != 3 || list[0].ID != third.ID || list[2].ID != first.ID || resp.Header.Get("X-Total") != "3" {
		t.Fatalf("list: %d commits, X-Total %q", len(list), resp.Header.Get("X-Total"))
	}
	resp = s.Expect(200, "GET", base+"?per_page=1&page=2", s.RootToken, nil)
	resp.Decode(t, &list)
	if len(list) != 1 || list[0].ID != second.ID || resp.Header.Get("X-Total-Pages") != "3" ||
		resp.Header.Get("X-Next-Page") != "3" || !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("page 2: %+v headers %v", list, resp.Header)
	}
	// since/until are inclusive bounds on the committer date.
	since := third.CommittedDate.Add(-time.Hour).UTC().Format(time.RFC3339)
	s.Expect(200, "GET", base+"?since="+url.QueryEscape(since), s.RootToken, nil).Decode(t, &list)
	if len(list) != 1 || list[0].ID != third.ID {
		t.Fatalf("since: %d commits", len(list))
	}
	exact := third.CommittedDate.UTC().Format(time.RFC3339)
	s.Expect(200, "GET", base+"?since="+url.QueryEscape(exact), s.RootToken, nil).Decode(t, &list)
	if len(list) != 1 {
		t.Fatalf("since is inclusive: %d commits", len(list))
	}
	resp = s.Expect(200, "GET", base+"?until="+url.QueryEscape(since), s.RootToken, nil)
	resp.Decode(t, &list)
	if len(list) != 2 || resp.Header.Get("X-Total") != "2" {
		t.Fatalf("until: %d commits, X-Total %s", len(list), resp.Header.Get("X-Total"))
	}
	s.ExpectBody(400, `{"error":"since is invalid"}`, "GET", base+"?since=yesterday", s.RootToken, nil)
	// Unknown refs list nothing, as GitLab does.
	resp = s.Expect(200, "GET", base+"?ref_name=nope", s.RootToken, nil)
	resp.Decode(t, &list)
	if len(list) != 0 || resp.Header.Get("X-Total") != "0" {
		t.Fatalf("unknown ref: %d", len(list))
	}
	s.Expect(400, "GET", base+"?ref_name=-x", s.RootToken, nil)

	// A branch with a slash, named URL-encoded.
	s.commit(s.RootToken, pid, map[string]any{"branch": "feature/x", "start_branch": "master", "commit_message": "on feature",
		"actions": []action{{"action": "create", "file_path": "f.txt", "content": "f"}}})
	s.Expect(200, "GET", base+"?ref_name=feature%2Fx", s.RootToken, nil).Decode(t, &list)
	if len(list) != 4 || list[1].ID != third.ID {
		t.Fatalf("feature/x: %d commits", len(list))
	}

	// Single commit by hash, short hash, branch and encoded branch.
	var got commitReply
	for _, rev := range []string{second.ID, second.ID[:8]} {
		s.Expect(200, "GET", base+"/"+rev, s.RootToken, nil).Decode(t, &got)
		if got.ID != second.ID || got.Stats == nil || got.Stats.Total != 3 {
			t.Fatalf("commit %s: %+v", rev, got)
		}
	}
	s.Expect(200, "GET", base+"/master", s.RootToken, nil).Decode(t, &got)
	if got.ID != third.ID {
		t.Fatalf("commit master: %s", got.ID)
	}
	s.Expect(200, "GET", base+"/feature%2Fx", s.RootToken, nil).Decode(t, &got)
	if got.Title != "on feature" {
		t.Fatalf("commit feature/x: %+v", got)
	}
	s.ExpectBody(404, `{"message":"404 Commit Not Found"}`, "GET", base+"/0123456789012345678901234567890123456789", s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Commit Not Found"}`, "GET", base+"/nope", s.RootToken, nil)

	// Push events: one per commit, with before and after.
	evs := s.pushesOf(pid, "refs/heads/master")
	if len(evs) != 3 || evs[0].Before != domain.ZeroID || evs[0].After != first.ID ||
		evs[1].Before != first.ID || evs[1].After != second.ID || len(evs[1].Commits) != 1 || evs[1].Commits[0].ID != second.ID {
		t.Fatalf("push events of master: %+v", evs)
	}
	if evs := s.pushesOf(pid, "refs/heads/feature/x"); len(evs) != 1 || evs[0].Before != domain.ZeroID {
		t.Fatalf("push events of feature/x: %+v", evs)
	}
}

// TestCommitsOfEmptyProject: reading commits of an empty repository, and
// the first commit making the default branch.
func TestCommitsOfEmptyProject(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid := s.projectID("empty", "private")
	base := fmt.Sprintf("/projects/%d/repository/commits", pid)
	var list []commitReply
	s.Expect(200, "GET", base, s.RootToken, nil).Decode(t, &list)
	if len(list) != 0 {
		t.Fatalf("empty repository lists %d commits", len(list))
	}
	s.ExpectBody(404, `{"message":"404 Commit Not Found"}`, "GET", base+"/master", s.RootToken, nil)
	// The first commit may go to any branch name; start_branch is ignored
	// in an empty repository.
	s.commit(s.RootToken, pid, map[string]any{"branch": "main", "start_branch": "master", "commit_message": "init",
		"actions": []action{{"action": "create", "file_path": "a", "content": "a"}}})
	var p struct {
		DefaultBranch string `json:"default_branch"`
	}
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d", pid), s.RootToken, nil).Decode(t, &p)
	if p.DefaultBranch != "main" {
		t.Fatalf("default branch after the first commit: %q", p.DefaultBranch)
	}
}

// TestCommitCreateErrors: GitLab's 400s, permissions and protection.
func TestCommitCreateErrors(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid := s.projectID("errors", "private")
	base := fmt.Sprintf("/projects/%d/repository/commits", pid)
	s.commit(s.RootToken, pid, commitBody("master", "init", action{"action": "create", "file_path": "a.txt", "content": "a"}))
	head := s.git(pid, "rev-parse", "master")

	cases := []struct {
		name   string
		body   any
		status int
		want   string
	}{
		{"missing", map[string]any{}, 400, `{"error":"branch is missing, commit_message is missing, actions is missing"}`},
		{"actions not a list", map[string]any{"branch": "master", "commit_message": "m", "actions": "x"}, 400, `{"error":"actions is invalid"}`},
		{"no file_path", commitBody("master", "m", action{"action": "create", "content": "x"}), 400, `{"message":"You must specify a file_path."}`},
		{"unknown action", commitBody("master", "m", action{"action": "chmod", "file_path": "a.txt"}), 400, "{\"message\":\"Unknown action type `chmod`.\"}"},
		{"move without previous", commitBody("master", "m", action{"action": "move", "file_path": "b.txt"}), 400, "{\"message\":\"You must supply the original file path when moving file `b.txt`.\"}"},
		{"create without content", commitBody("master", "m", action{"action": "create", "file_path": "b.txt"}), 400, `{"error":"actions[0][content] is missing"}`},
		{"bad base64", commitBody("master", "m", action{"action": "create", "file_path": "b.txt", "content": "!!!", "encoding": "base64"}), 400, `{"error":"actions[0][content] is invalid"}`},
		{"bad encoding", commitBody("master", "m", action{"action": "create", "file_path": "b.txt", "content": "x", "encoding": "rot13"}), 400, `{"error":"actions[0][encoding] does not have a valid value"}`},
		{"exists", commitBody("master", "m", action{"action": "create", "file_path": "a.txt", "content": "x"}), 400, `{"message":"A file with this name already exists"}`},
		{"missing file", commitBody("master", "m", action{"action": "update", "file_path": "zz.txt", "content": "x"}), 400, `{"message":"A file with this name doesn't exist"}`},
		{"delete missing", commitBody("master", "m", action{"action": "delete", "file_path": "zz.txt"}), 400, `{"message":"A file with this name doesn't exist"}`},
		{"second action fails", commitBody("master", "m", action{"action": "create", "file_path": "new.txt", "content": "x"}, action{"action": "delete", "file_path": "zz.txt"}), 400, `{"message":"A file with this name doesn't exist"}`},
		{"not on a branch", commitBody("nope", "m", action{"action": "create", "file_path": "b.txt", "content": "x"}), 400, `{"message":"You can only create or edit files when you are on a branch"}`},
		{"unknown start branch", map[string]any{"branch": "nope", "start_branch": "gone", "commit_message": "m", "actions": []action{{"action": "create", "file_path": "b.txt", "content": "x"}}}, 400, `{"message":"You can only create or edit files when you are on a branch"}`},
		{"traversal", commitBody("master", "m", action{"action": "create", "file_path": "../x", "content": "x"}), 400, ""},
		{"dot git", commitBody("master", "m", action{"action": "create", "file_path": ".git/config", "content": "x"}), 400, ""},
		{"dot git nested", commitBody("master", "m", action{"action": "create", "file_path": "a/.GIT/hooks/x", "content": "x"}), 400, ""},
		{"nul", commitBody("master", "m", action{"action": "create", "file_path": "a\x00b", "content": "x"}), 400, ""},
		{"option branch", commitBody("-x", "m", action{"action": "create", "file_path": "b.txt", "content": "x"}), 400, ""},
		{"traversal branch", commitBody("../x", "m", action{"action": "create", "file_path": "b.txt", "content": "x"}), 400, ""},
	}
	t.Run("refused", func(t *testing.T) { // returns once every case ran
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				r := s.Server.Client(t).Expect(c.status, "POST", base, s.RootToken, c.body)
				if c.want != "" && !apptest.JSONEqual(r.Body, []byte(c.want)) {
					t.Fatalf("body %s, want %s", r.Body, c.want)
				}
			})
		}
	})
	if got := s.git(pid, "rev-parse", "master"); got != head {
		t.Fatalf("a failed commit moved master: %s -> %s", head, got)
	}
	if got := s.git(pid, "for-each-ref", "--format=%(refname)"); got != "refs/heads/master" {
		t.Fatalf("refs after failures: %q", got)
	}

	// Permissions: anonymous 401, strangers 404, reporters 403, developers
	// only where protection allows them (400, as GitLab).
	_, stranger := s.User("stranger")
	rid, reporter := s.User("reporter")
	did, dev := s.User("dev")
	s.member(pid, rid, domain.Reporter)
	s.member(pid, did, domain.Developer)
	body := commitBody("master", "m", action{"action": "create", "file_path": "dev.txt", "content": "x"})
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", base, "", body)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", base, stranger, body)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", base, reporter, body)
	s.protect(pid, "master", false)
	s.ExpectBody(400, `{"message":"You are not allowed to push into this branch"}`, "POST", base, dev, body)
	s.protect(pid, "rel-*", true)
	s.commit(dev, pid, map[string]any{"branch": "rel-1", "start_branch": "master", "commit_message": "dev on rel",
		"actions": []action{{"action": "create", "file_path": "dev.txt", "content": "x"}}})
	s.protect(pid, "master", true)
	if c := s.commit(dev, pid, body); c.AuthorName != "DEV" || c.AuthorEmail != "dev@example.com" {
		t.Fatalf("developer's commit author: %+v", c)
	}
}

// TestCherryPick picks a commit of a feature branch onto master.
func TestCherryPick(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid := s.projectID("picks", "private")
	base := fmt.Sprintf("/projects/%d/repository/commits", pid)
	s.commit(s.RootToken, pid, commitBody("master", "init", action{"action": "create", "file_path": "a.txt", "content": "1\n2\n3\n"}))
	pick := s.commit(s.RootToken, pid, map[string]any{"branch": "feature", "start_branch": "master", "commit_message": "add b\n\ndetails",
		"author_name": "Bob", "author_email": "bob@example.com",
		"actions": []action{{"action": "create", "file_path": "b.txt", "content": "b\n"}}})
	clash := s.commit(s.RootToken, pid, commitBody("feature", "change a", action{"action": "update", "file_path": "a.txt", "content": "1\nfeature\n3\n"}))
	s.commit(s.RootToken, pid, commitBody("master", "master changes a", action{"action": "update", "file_path": "a.txt", "content": "1\nmaster\n3\n"}))
	masterHead := s.git(pid, "rev-parse", "master")

	var got commitReply
	picked := s.Expect(201, "POST", base+"/"+pick.ID+"/cherry_pick", s.RootToken, url.Values{"branch": {"master"}})
	picked.Decode(t, &got)
	data := picked.Body
	if got.ID == pick.ID || got.Message != pick.Message || got.AuthorName != "Bob" || len(got.ParentIDs) != 1 || got.ParentIDs[0] != masterHead {
		t.Fatalf("cherry-picked commit: %+v", got)
	}
	if strings.Contains(string(data), `"stats"`) {
		t.Fatalf("cherry-pick answers a plain commit: %s", data)
	}
	if h := s.git(pid, "rev-parse", "master"); h != got.ID {
		t.Fatalf("master is %s, want %s", h, got.ID)
	}
	if evs := s.pushesOf(pid, "refs/heads/master"); len(evs) < 3 || evs[len(evs)-1].After != got.ID || evs[len(evs)-1].Before != masterHead {
		t.Fatalf("push event of the cherry-pick: %+v", evs)
	}
	msg := `{"message":"Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content."}`
	s.ExpectBody(400, msg, "POST", base+"/"+pick.ID+"/cherry_pick", s.RootToken, url.Values{"branch": {"master"}})
	s.ExpectBody(400, msg, "POST", base+"/"+clash.ID+"/cherry_pick", s.RootToken, url.Values{"branch": {"master"}})
	s.ExpectBody(400, `{"error":"branch is missing"}`, "POST", base+"/"+pick.ID+"/cherry_pick", s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Branch Not Found"}`, "POST", base+"/"+pick.ID+"/cherry_pick", s.RootToken, url.Values{"branch": {"nope"}})
	s.ExpectBody(404, `{"message":"404 Commit Not Found"}`, "POST", base+"/ffffffffffffffffffffffffffffffffffffffff/cherry_pick", s.RootToken, url.Values{"branch": {"master"}})
	if h := s.git(pid, "rev-parse", "master"); h != got.ID {
		t.Fatalf("failed picks moved master to %s", h)
	}
	did, dev := s.User("dev")
	s.member(pid, did, domain.Developer)
	s.protect(pid, "master", false)
	s.ExpectBody(400, `{"message":"You are not allowed to push into this branch"}`, "POST", base+"/"+clash.ID+"/cherry_pick", dev, url.Values{"branch": {"master"}})
	rid, reporter := s.User("rep")
	s.member(pid, rid, domain.Reporter)
	s.Expect(403, "POST", base+"/"+clash.ID+"/cherry_pick", reporter, url.Values{"branch": {"master"}})
}

// TestCommitDiff reads the diff entries of a commit.
func TestCommitDiff(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid := s.projectID("diffs", "public")
	base := fmt.Sprintf("/projects/%d/repository/commits", pid)
	s.commit(s.RootToken, pid, commitBody("master", "init",
		action{"action": "create", "file_path": "a.txt", "content": "1\n2\n3\n"},
		action{"action": "create", "file_path": "gone.txt", "content": "bye\n"},
		action{"action": "create", "file_path": "old.txt", "content": "same content here\n"}))
	c := s.commit(s.RootToken, pid, commitBody("master", "change",
		action{"action": "update", "file_path": "a.txt", "content": "1\ntwo\n3\n"},
		action{"action": "delete", "file_path": "gone.txt"},
		action{"action": "move", "file_path": "new.txt", "previous_path": "old.txt"},
		action{"action": "create", "file_path": "z.txt", "content": "z\n"}))
	type entry struct {
		Diff        string  `json:"diff"`
		NewPath     string  `json:"new_path"`
		OldPath     string  `json:"old_path"`
		AMode       *string `json:"a_mode"`
		BMode       string  `json:"b_mode"`
		NewFile     bool    `json:"new_file"`
		RenamedFile bool    `json:"renamed_file"`
		DeletedFile bool    `json:"deleted_file"`
	}
	var diffs []entry
	// Public project: anonymous readers see it.
	s.Expect(200, "GET", base+"/"+c.ID+"/diff", "", nil).Decode(t, &diffs)
	byPath := map[string]entry{}
	for _, d := range diffs {
		byPath[d.NewPath] = d
	}
	if len(diffs) != 4 {
		t.Fatalf("diff entries: %+v", diffs)
	}
	a := byPath["a.txt"]
	if a.Diff != "@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n" || a.AMode == nil || *a.AMode != "100644" || a.BMode != "100644" || a.NewFile || a.DeletedFile {
		t.Fatalf("a.txt: %+v", a)
	}
	if g := byPath["gone.txt"]; !g.DeletedFile || g.BMode != "0" {
		t.Fatalf("gone.txt: %+v", g)
	}
	if n := byPath["new.txt"]; !n.RenamedFile || n.OldPath != "old.txt" {
		t.Fatalf("new.txt: %+v", n)
	}
	if z := byPath["z.txt"]; !z.NewFile || z.AMode == nil || *z.AMode != "0" || z.Diff != "@@ -0,0 +1 @@\n+z\n" {
		t.Fatalf("z.txt: %+v", z)
	}
	resp := s.Expect(200, "GET", base+"/master/diff?per_page=1&page=2", "", nil)
	resp.Decode(t, &diffs)
	if len(diffs) != 1 || resp.Header.Get("X-Total") != "4" {
		t.Fatalf("paged diff: %d entries, X-Total %s", len(diffs), resp.Header.Get("X-Total"))
	}
	s.ExpectBody(404, `{"message":"404 Commit Not Found"}`, "GET", base+"/nope/diff", "", nil)
}

// TestCommitComments: placement rules, listing with authors, and no
// N+1 queries.
func TestCommitComments(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid := s.projectID("comments", "internal")
	base := fmt.Sprintf("/projects/%d/repository/commits", pid)
	s.commit(s.RootToken, pid, commitBody("master", "init", action{"action": "create", "file_path": "a.txt", "content": "1\n2\n3\n4\n"}))
	c := s.commit(s.RootToken, pid, commitBody("master", "change", action{"action": "update", "file_path": "a.txt", "content": "1\ntwo\n3\n4\nfive\n"}))
	url := base + "/" + c.ID + "/comments"

	type note struct {
		Note     string  `json:"note"`
		Path     *string `json:"path"`
		Line     *int    `json:"line"`
		LineType *string `json:"line_type"`
		Author   struct {
			ID       int64  `json:"id"`
			Username string `json:"username"`
		} `json:"author"`
		CreatedAt *time.Time `json:"created_at"`
	}
	post := func(token string, body map[string]any) note {
		t.Helper()
		var n note
		s.Expect(201, "POST", url, token, body).Decode(t, &n)
		return n
	}
	placed := func(n note, path string, line int, lineType string) bool {
		return n.Path != nil && *n.Path == path && n.Line != nil && *n.Line == line && n.LineType != nil && *n.LineType == lineType
	}
	general := func(n note) bool { return n.Path == nil && n.Line == nil && n.LineType == nil }

	if n := post(s.RootToken, map[string]any{"note": "general"}); !general(n) || n.Note != "general" || n.Author.Username != "root" || n.CreatedAt == nil {
		t.Fatalf("general comment: %+v", n)
	}
	if n := post(s.RootToken, map[string]any{"note": "on two", "path": "a.txt", "line": 2, "line_type": "new"}); !placed(n, "a.txt", 2, "new") {
		t.Fatalf("line comment: %+v", n)
	}
	if n := post(s.RootToken, map[string]any{"note": "default type", "path": "a.txt", "line": 5}); !placed(n, "a.txt", 5, "new") {
		t.Fatalf("line comment with the default type: %+v", n)
	}
	if n := post(s.RootToken, map[string]any{"note": "removed", "path": "a.txt", "line": 2, "line_type": "old"}); !placed(n, "a.txt", 2, "old") {
		t.Fatalf("comment on a removed line: %+v", n)
	}
	for _, body := range []map[string]any{
		{"note": "context line", "path": "a.txt", "line": 3, "line_type": "new"},
		{"note": "no such line", "path": "a.txt", "line": 99, "line_type": "new"},
		{"note": "no such path", "path": "b.txt", "line": 2, "line_type": "new"},
		{"note": "path only", "path": "a.txt"},
	} {
		if n := post(s.RootToken, body); !general(n) {
			t.Fatalf("%v should be a general comment: %+v", body, n)
		}
	}
	// By branch name: valid lines are placed, invalid ones are not.
	var n note
	s.Expect(201, "POST", base+"/master/comments", s.RootToken, map[string]any{"note": "via branch", "path": "a.txt", "line": 2}).Decode(t, &n)
	if !placed(n, "a.txt", 2, "new") {
		t.Fatalf("comment via branch: %+v", n)
	}
	s.Expect(201, "POST", base+"/master/comments", s.RootToken, map[string]any{"note": "via branch bad", "path": "a.txt", "line": 1}).Decode(t, &n)
	if !general(n) {
		t.Fatalf("comment via branch on a bad line: %+v", n)
	}
	s.ExpectBody(400, `{"error":"note is missing"}`, "POST", url, s.RootToken, map[string]any{})
	s.ExpectBody(400, `{"error":"line_type does not have a valid value"}`, "POST", url, s.RootToken, map[string]any{"note": "x", "line_type": "side"})
	s.ExpectBody(400, `{"error":"line is invalid"}`, "POST", url, s.RootToken, map[string]any{"note": "x", "line": "two"})
	s.Expect(401, "POST", url, "", map[string]any{"note": "x"})
	s.ExpectBody(404, `{"message":"404 Commit Not Found"}`, "POST", base+"/nope/comments", s.RootToken, map[string]any{"note": "x"})

	// Other users comment; the list shows every author, one page at a time.
	tokens := []string{}
	for i := 0; i < 4; i++ {
		_, tok := s.User(fmt.Sprintf("commenter%d", i))
		tokens = append(tokens, tok)
		post(tok, map[string]any{"note": fmt.Sprintf("from %d", i)})
	}
	var list []note
	resp := s.Expect(200, "GET", url+"?per_page=100", tokens[0], nil)
	resp.Decode(t, &list)
	if len(list) != 14 || resp.Header.Get("X-Total") != "14" || list[0].Note != "general" || list[13].Author.Username != "commenter3" {
		t.Fatalf("comment list: %d, X-Total %s", len(list), resp.Header.Get("X-Total"))
	}
	resp = s.Expect(200, "GET", url+"?per_page=4&page=4", tokens[0], nil)
	resp.Decode(t, &list)
	if len(list) != 2 || list[1].Note != "from 3" || list[0].Author.Username != "commenter2" || resp.Header.Get("X-Total-Pages") != "4" {
		t.Fatalf("last page: %+v", list)
	}
	// Queries do not grow with the number of authors.
	q0 := s.Queries()
	s.Expect(200, "GET", url+"?per_page=2", tokens[0], nil).Decode(t, &list)
	few := s.Queries() - q0
	q0 = s.Queries()
	s.Expect(200, "GET", url+"?per_page=100", tokens[0], nil).Decode(t, &list)
	if many := s.Queries() - q0; many > few {
		t.Fatalf("listing 14 comments by 5 authors ran %d queries, 2 comments %d", many, few)
	}
	// Comments of another commit are not listed.
	s.Expect(200, "GET", base+"/"+c.ParentIDs[0]+"/comments", tokens[0], nil).Decode(t, &list)
	if len(list) != 0 {
		t.Fatalf("parent commit has %d comments", len(list))
	}
}

// TestCommitListTotalFollowsTheBranch: X-Total is counted for the commit
// the branch holds at each request (counts are cached per commit), so it
// moves with every new commit and stays right for an older ref.
func TestCommitListTotalFollowsTheBranch(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid := s.projectID("total-moves", "private")
	base := fmt.Sprintf("/projects/%d/repository/commits?per_page=1", pid)
	total := func(query string) string {
		resp, _ := s.Do(t, "GET", base+query, s.RootToken, nil)
		return resp.Header.Get("X-Total")
	}
	first := s.commit(s.RootToken, pid, commitBody("master", "c1", action{"action": "create", "file_path": "a", "content": "1"}))
	for i := 2; i <= 4; i++ {
		if got := total(""); got != fmt.Sprint(i-1) {
			t.Fatalf("before commit %d: X-Total %s, want %d", i, got, i-1)
		}
		if got := total(""); got != fmt.Sprint(i-1) { // served again, from the cache
			t.Fatalf("repeated list before commit %d: X-Total %s, want %d", i, got, i-1)
		}
		s.commit(s.RootToken, pid, commitBody("master", fmt.Sprintf("c%d", i), action{"action": "update", "file_path": "a", "content": fmt.Sprint(i)}))
	}
	if got := total(""); got != "4" {
		t.Fatalf("X-Total %s, want 4", got)
	}
	if got := total("&ref_name=" + first.ID); got != "1" {
		t.Fatalf("X-Total of the first commit %s, want 1", got)
	}
}
