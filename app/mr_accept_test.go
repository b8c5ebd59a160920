package app_test

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

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// Acceptance tests of merge requests: merges that race, merges that both
// git backends must write alike, conflicts shown before a merge, and the
// repair of a merge interrupted between git and the database.

// mrJSON is the part of GitLab's merge request entity these tests read.
type mrJSON struct {
	ID                        int64    `json:"id"`
	IID                       int64    `json:"iid"`
	ProjectID                 int64    `json:"project_id"`
	Title                     string   `json:"title"`
	State                     string   `json:"state"`
	SourceBranch              string   `json:"source_branch"`
	TargetBranch              string   `json:"target_branch"`
	MergeStatus               string   `json:"merge_status"`
	SHA                       string   `json:"sha"`
	MergeCommitSHA            *string  `json:"merge_commit_sha"`
	MergedAt                  *string  `json:"merged_at"`
	Labels                    []string `json:"labels"`
	Subscribed                bool     `json:"subscribed"`
	MergeWhenPipelineSucceeds bool     `json:"merge_when_pipeline_succeeds"`
}

// mergeSHA is merge_commit_sha, "" when null.
func (m mrJSON) mergeSHA() string {
	if m.MergeCommitSHA == nil {
		return ""
	}
	return *m.MergeCommitSHA
}

// mrEnv is a private project of root's whose branches are written through
// the API.
type mrEnv struct {
	t   testing.TB
	srv *apptest.Server
	pid int64
}

func newMREnv(t testing.TB, srv *apptest.Server, name string) *mrEnv {
	t.Helper()
	var p struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {name}, "visibility": {"private"}}, 201, &p)
	return &mrEnv{t: t, srv: srv, pid: p.ID}
}

// mrFile is one action of an API commit.
type mrFile map[string]string

func mrAdd(path, content string) mrFile {
	return mrFile{"action": "create", "file_path": path, "content": content}
}

func mrEdit(path, content string) mrFile {
	return mrFile{"action": "update", "file_path": path, "content": content}
}

func mrRemove(path string) mrFile { return mrFile{"action": "delete", "file_path": path} }

// commit writes one commit on branch through POST .../repository/commits
// (starting from start when branch is new) and returns its SHA.
func (e *mrEnv) commit(branch, start, message string, files ...mrFile) string {
	e.t.Helper()
	body := map[string]any{"branch": branch, "commit_message": message, "actions": files}
	if start != "" {
		body["start_branch"] = start
	}
	var c struct{ ID string }
	e.srv.JSON(e.t, "POST", fmt.Sprintf("/projects/%d/repository/commits", e.pid), e.srv.RootToken, body, 201, &c)
	if len(c.ID) != 40 {
		e.t.Fatalf("commit on %s: id %q", branch, c.ID)
	}
	return c.ID
}

// git runs git in the project's bare repository.
func (e *mrEnv) git(args ...string) string {
	e.t.Helper()
	return strings.TrimSpace(gitOut(e.t, e.srv.RepoDir(e.pid), args...))
}

// head reads a branch head straight from the repository on disk.
func (e *mrEnv) head(branch string) string {
	e.t.Helper()
	return e.git("rev-parse", "--verify", "refs/heads/"+branch)
}

// hasBranch reports whether the branch exists on disk.
func (e *mrEnv) hasBranch(branch string) bool {
	cmd := exec.Command("git", "-C", e.srv.RepoDir(e.pid), "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	cmd.Env = isolatedGitEnv(e.t)
	return cmd.Run() == nil
}

// parents lists the parents of a commit, in order.
func (e *mrEnv) parents(sha string) []string {
	e.t.Helper()
	return strings.Fields(e.git("rev-list", "--parents", "-n", "1", sha))[1:]
}

// fsck fails the test unless git fsck --strict is clean.
func (e *mrEnv) fsck() {
	e.t.Helper()
	cmd := exec.Command("git", "--git-dir="+e.srv.RepoDir(e.pid), "fsck", "--strict", "--no-progress")
	cmd.Env = isolatedGitEnv(e.t)
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "error") {
		e.t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}

func (e *mrEnv) mrPath(iid int64, suffix string) string {
	return fmt.Sprintf("/projects/%d/merge_requests/%d%s", e.pid, iid, suffix)
}

// open creates a merge request as the token's user and checks the 201.
func (e *mrEnv) open(token, source, target, title string) mrJSON {
	e.t.Helper()
	var m mrJSON
	e.srv.JSON(e.t, "POST", fmt.Sprintf("/projects/%d/merge_requests", e.pid), token,
		url.Values{"source_branch": {source}, "target_branch": {target}, "title": {title}}, 201, &m)
	if m.State != "opened" || m.IID == 0 || m.SourceBranch != source || m.TargetBranch != target {
		e.t.Fatalf("created merge request %+v", m)
	}
	return m
}

// get reads a merge request through the API as root.
func (e *mrEnv) get(iid int64) mrJSON {
	e.t.Helper()
	var m mrJSON
	e.srv.JSON(e.t, "GET", e.mrPath(iid, ""), e.srv.RootToken, nil, 200, &m)
	return m
}

// member adds a user to the project at an access level.
func (e *mrEnv) member(uid int64, level int) {
	e.t.Helper()
	e.srv.JSON(e.t, "POST", fmt.Sprintf("/projects/%d/members", e.pid), e.srv.RootToken,
		url.Values{"user_id": {fmt.Sprint(uid)}, "access_level": {fmt.Sprint(level)}}, 201, nil)
}

// events lists the project's events with one action.
func (e *mrEnv) events(action string) []map[string]any {
	e.t.Helper()
	var l []map[string]any
	e.srv.JSON(e.t, "GET", fmt.Sprintf("/projects/%d/events?action=%s&per_page=100", e.pid, action), e.srv.RootToken, nil, 200, &l)
	return l
}

// wantMessage checks an error body is exactly {"message": msg}.
func wantMessage(t testing.TB, body []byte, msg string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || len(m) != 1 || m["message"] != msg {
		t.Errorf("body %s, want {\"message\":%q}", body, msg)
	}
}

// TestConcurrentMergesOneCommit: 16 masters accept one merge request at
// the same moment. Exactly one merge commit lands, with the right
// parents; everyone else gets a clean 405/406/409. SQLite and Postgres.
func TestConcurrentMergesOneCommit(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			concurrentMerges(t, apptest.New(t, apptest.Driver(driver)))
		})
	}
}

func concurrentMerges(t *testing.T, srv *apptest.Server) {
	e := newMREnv(t, srv, "race")
	e.commit("master", "", "Seed", mrAdd("README.md", "hello\n"), mrAdd("src/app.txt", "v1\n"))
	e.commit("feature", "master", "Start the feature", mrAdd("feature.txt", "one\n"))
	feature := e.commit("feature", "", "Finish the feature", mrEdit("feature.txt", "one\ntwo\n"))
	oldMaster := e.commit("master", "", "Master moves on", mrEdit("README.md", "hello again\n"))
	uid, token := createUser(t, srv, "merger")
	e.member(uid, 40)
	mr := e.open(srv.RootToken, "feature", "master", "Race to merge")
	if mr.MergeStatus != "can_be_merged" || mr.SHA != feature {
		t.Fatalf("before merging: merge_status %q sha %q, want can_be_merged %s", mr.MergeStatus, mr.SHA, feature)
	}

	const racers = 16
	type answer struct {
		status int
		body   string
		mr     mrJSON
	}
	answers := make([]answer, racers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range answers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			resp, data := srv.Do(t, "PUT", e.mrPath(mr.IID, "/merge"), token, nil)
			a := answer{status: resp.StatusCode, body: string(data)}
			_ = json.Unmarshal(data, &a.mr)
			answers[i] = a
		}(i)
	}
	close(start)
	wg.Wait()

	var winner *answer
	tally := map[int]int{}
	for i := range answers {
		a := &answers[i]
		tally[a.status]++
		switch a.status {
		case 200:
			if winner != nil {
				t.Errorf("a second 200: %s (first: %s)", a.body, winner.body)
			}
			winner = a
		case 405, 406, 409:
		default:
			t.Errorf("racer %d: status %d: %s", i, a.status, a.body)
		}
	}
	t.Logf("answers by status: %v", tally)
	if winner == nil {
		t.Fatalf("no merge succeeded: %v", answers)
	}
	if winner.mr.State != "merged" || winner.mr.mergeSHA() == "" {
		t.Errorf("the winning answer: state %q merge_commit_sha %v", winner.mr.State, winner.mr.MergeCommitSHA)
	}

	got := e.get(mr.IID)
	master := e.head("master")
	if got.State != "merged" || got.mergeSHA() != master {
		t.Errorf("GET: state %q merge_commit_sha %q, want merged %s (master)", got.State, got.mergeSHA(), master)
	}
	if winner.mr.mergeSHA() != master {
		t.Errorf("the 200 named merge commit %q, master is %s", winner.mr.mergeSHA(), master)
	}
	if p := e.parents(master); len(p) != 2 || p[0] != oldMaster || p[1] != feature {
		t.Errorf("merge commit %s parents %v, want [%s %s]", master, p, oldMaster, feature)
	}
	if n := e.git("rev-list", "--merges", "--count", "refs/heads/master"); n != "1" {
		t.Errorf("master holds %s merge commits, want 1", n)
	}
	e.fsck()
	evs := e.events("merged")
	if len(evs) != 1 {
		t.Fatalf("merged events: %d, want 1: %v", len(evs), evs)
	}
	// GitLab names the merged action "accepted" in action_name.
	if evs[0]["target_type"] != "MergeRequest" || evs[0]["action_name"] != "accepted" || evs[0]["target_iid"] != float64(mr.IID) {
		t.Errorf("merged event %v", evs[0])
	}
}

// TestMergeTreesSameOnBothBackends merges the same non-trivial change on a
// gitcli server and on a gogit server: the merge commits' trees must be
// the same object, holding exactly the expected files.
func TestMergeTreesSameOnBothBackends(t *testing.T) {
	t.Parallel()
	type outcome struct {
		tree, listing string
		parents       []string
	}
	merge := func(t *testing.T, backend string) outcome {
		srv := apptest.New(t, apptest.Configure(func(c *config.Config) { c.Git.Backend = backend }))
		e := newMREnv(t, srv, "trees")
		e.commit("master", "", "Seed",
			mrAdd("README.md", "readme\n"),
			mrAdd("src/main.go", "package main\n\nfunc main() {}\n"),
			mrAdd("src/util/strings.go", "package util\n\n// Strings.\n"),
			mrAdd("docs/guide.md", "# Guide\n"),
			mrAdd("docs/old.md", "# Old\n"),
			mrAdd("legacy/a.txt", "a\n"),
			mrAdd("legacy/b.txt", "b\n"))
		e.commit("feature", "master", "Feature: change main, add files",
			mrEdit("src/main.go", "package main\n\nfunc main() { run() }\n"),
			mrAdd("src/util/numbers.go", "package util\n\n// Numbers.\n"),
			mrAdd("docs/new/feature.md", "# Feature\n"))
		feature := e.commit("feature", "", "Feature: drop legacy a", mrRemove("legacy/a.txt"))
		master := e.commit("master", "", "Master: edit readme and strings, drop old docs, add CI",
			mrEdit("README.md", "readme, revised\n"),
			mrEdit("src/util/strings.go", "package util\n\n// Strings, revised.\n"),
			mrRemove("docs/old.md"),
			mrAdd("ci/config.yml", "stages: [test]\n"))
		mr := e.open(srv.RootToken, "feature", "master", "Non-trivial merge")
		if mr.MergeStatus != "can_be_merged" {
			t.Fatalf("%s: merge_status %q", backend, mr.MergeStatus)
		}
		var merged mrJSON
		srv.JSON(t, "PUT", e.mrPath(mr.IID, "/merge"), srv.RootToken, nil, 200, &merged)
		sha := merged.mergeSHA()
		if merged.State != "merged" || sha == "" || sha != e.head("master") {
			t.Fatalf("%s: merged %+v, master %s", backend, merged, e.head("master"))
		}
		e.fsck()
		o := outcome{tree: e.git("rev-parse", sha+"^{tree}"), listing: e.git("ls-tree", "-r", sha), parents: e.parents(sha)}
		if len(o.parents) != 2 || o.parents[0] != master || o.parents[1] != feature {
			t.Errorf("%s: parents %v, want [%s %s]", backend, o.parents, master, feature)
		}
		var files []string
		for _, line := range strings.Split(o.listing, "\n") {
			if _, path, ok := strings.Cut(line, "\t"); ok {
				files = append(files, path)
			}
		}
		want := []string{"README.md", "ci/config.yml", "docs/guide.md", "docs/new/feature.md", "legacy/b.txt",
			"src/main.go", "src/util/numbers.go", "src/util/strings.go"}
		if strings.Join(files, " ") != strings.Join(want, " ") {
			t.Errorf("%s: merged files %v, want %v", backend, files, want)
		}
		for path, content := range map[string]string{
			"README.md":           "readme, revised\n",
			"src/main.go":         "package main\n\nfunc main() { run() }\n",
			"src/util/strings.go": "package util\n\n// Strings, revised.\n",
		} {
			if got := gitOut(t, srv.RepoDir(e.pid), "show", sha+":"+path); got != content {
				t.Errorf("%s: %s holds %q, want %q", backend, path, got, content)
			}
		}
		return o
	}
	var mu sync.Mutex
	results := map[string]outcome{}
	t.Run("backends", func(t *testing.T) {
		for _, backend := range []string{"gitcli", "gogit"} {
			t.Run(backend, func(t *testing.T) {
				t.Parallel()
				o := merge(t, backend)
				mu.Lock()
				results[backend] = o
				mu.Unlock()
			})
		}
	})
	cli, gg := results["gitcli"], results["gogit"]
	if cli.tree == "" || gg.tree == "" {
		t.Fatal("a backend did not merge")
	}
	if cli.tree != gg.tree {
		t.Errorf("merge trees differ: gitcli %s, gogit %s\ngitcli:\n%s\ngogit:\n%s", cli.tree, gg.tree, cli.listing, gg.listing)
	}
}

// TestConflictReportedBeforeMerge: branches that change the same line
// read as cannot_be_merged from creation on, and the merge is refused
// without touching the target. Both git backends.
func TestConflictReportedBeforeMerge(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"gitcli", "gogit"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			srv := apptest.New(t, apptest.Configure(func(c *config.Config) { c.Git.Backend = backend }))
			e := newMREnv(t, srv, "clash")
			e.commit("master", "", "Seed", mrAdd("shared.txt", "one\ntwo\nthree\n"), mrAdd("other.txt", "x\n"))
			e.commit("feature", "master", "Feature edits line two", mrEdit("shared.txt", "one\nTWO from feature\nthree\n"))
			master := e.commit("master", "", "Master edits line two", mrEdit("shared.txt", "one\ntwo from master\nthree\n"))

			mr := e.open(srv.RootToken, "feature", "master", "Conflicting change")
			if mr.MergeStatus != "cannot_be_merged" {
				t.Errorf("on create: merge_status %q, want cannot_be_merged", mr.MergeStatus)
			}
			if got := e.get(mr.IID); got.MergeStatus != "cannot_be_merged" || got.State != "opened" {
				t.Errorf("on GET: merge_status %q state %q, want cannot_be_merged opened", got.MergeStatus, got.State)
			}
			var list []mrJSON
			srv.JSON(t, "GET", fmt.Sprintf("/projects/%d/merge_requests", e.pid), srv.RootToken, nil, 200, &list)
			if len(list) != 1 || list[0].MergeStatus != "cannot_be_merged" {
				t.Errorf("in the list: %+v", list)
			}

			resp, body := srv.Do(t, "PUT", e.mrPath(mr.IID, "/merge"), srv.RootToken, nil)
			if resp.StatusCode != 405 {
				t.Fatalf("merge: status %d, want 405; body %s", resp.StatusCode, body)
			}
			wantMessage(t, body, "Branch cannot be merged")
			if h := e.head("master"); h != master {
				t.Errorf("master moved from %s to %s", master, h)
			}
			if got := e.get(mr.IID); got.State != "opened" || got.MergeCommitSHA != nil || got.MergeStatus != "cannot_be_merged" {
				t.Errorf("after the refused merge: %+v", got)
			}
			e.fsck()
		})
	}
}

// TestInterruptedMergeRepaired simulates a process that died during a
// merge, through the stores and the git backend directly.
func TestInterruptedMergeRepaired(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	ctx := context.Background()
	sig := domain.Signature{Name: "Crashed Merger", Email: "crashed@example.com", When: time.Now().UTC().Truncate(time.Second)}

	// prepare makes a project with a mergeable MR and writes its merge
	// commit without moving any ref, as the dead process did.
	prepare := func(t *testing.T, name string) (*mrEnv, mrJSON, string, string, string) {
		e := newMREnv(t, srv, name)
		e.commit("master", "", "Seed", mrAdd("README.md", "hello\n"))
		feature := e.commit("feature", "master", "Feature", mrAdd("feature.txt", "f\n"))
		master := e.commit("master", "", "Master moves", mrEdit("README.md", "hello again\n"))
		mr := e.open(srv.RootToken, "feature", "master", "Interrupted")
		res, err := srv.Repos.Merge(ctx, domain.RepoPath(e.pid), domain.MergeSpec{Ours: master, Theirs: feature,
			Message: "Merge branch 'feature' into 'master'", Author: sig, Committer: sig})
		if err != nil || len(res.Conflicts) > 0 || res.CommitID == "" {
			t.Fatalf("write the merge commit: %v %+v", err, res)
		}
		return e, mr, master, feature, res.CommitID
	}
	lock := func(t *testing.T, e *mrEnv, iid int64, sha string, at time.Time) {
		if _, err := srv.Store.MergeRequests().Update(ctx, e.pid, iid, func(m *domain.MergeRequest) error {
			m.LockedAt, m.InFlightSHA = &at, sha
			return nil
		}); err != nil {
			t.Fatalf("record the in-flight merge: %v", err)
		}
	}

	t.Run("ref moved, merge not recorded", func(t *testing.T) {
		e, mr, master, _, merge := prepare(t, "moved")
		lock(t, e, mr.IID, merge, time.Now().UTC().Add(-5*time.Minute))
		if err := srv.Repos.UpdateRef(ctx, domain.RepoPath(e.pid), "refs/heads/master", merge, master); err != nil {
			t.Fatalf("move master: %v", err)
		}
		got := e.get(mr.IID)
		if got.State != "merged" || got.mergeSHA() != merge {
			t.Fatalf("GET after the crash: state %q merge_commit_sha %q, want merged %s", got.State, got.mergeSHA(), merge)
		}
		if got.MergedAt == nil {
			t.Errorf("merged_at is null")
		}
		resp, body := srv.Do(t, "PUT", e.mrPath(mr.IID, "/merge"), srv.RootToken, nil)
		if resp.StatusCode != 406 {
			t.Errorf("merge of the repaired MR: %d %s, want 406", resp.StatusCode, body)
		}
		if h := e.head("master"); h != merge {
			t.Errorf("master moved again: %s", h)
		}
		stored, err := srv.Store.MergeRequests().Get(ctx, e.pid, mr.IID)
		if err != nil || stored.State != domain.MRMerged || stored.InFlightSHA != "" || stored.LockedAt != nil {
			t.Errorf("stored after repair: %v %+v", err, stored)
		}
	})

	t.Run("stale lock, ref never moved", func(t *testing.T) {
		e, mr, master, feature, merge := prepare(t, "stale")
		lock(t, e, mr.IID, merge, time.Now().UTC().Add(-5*time.Minute))
		got := e.get(mr.IID)
		if got.State != "opened" || got.MergeCommitSHA != nil {
			t.Fatalf("GET after the crash: state %q merge_commit_sha %v, want opened null", got.State, got.MergeCommitSHA)
		}
		if h := e.head("master"); h != master {
			t.Fatalf("master moved to %s without a merge", h)
		}
		var merged mrJSON
		srv.JSON(t, "PUT", e.mrPath(mr.IID, "/merge"), srv.RootToken, nil, 200, &merged)
		head := e.head("master")
		if merged.State != "merged" || merged.mergeSHA() != head {
			t.Errorf("merge after the repair: state %q merge_commit_sha %q, master %s", merged.State, merged.mergeSHA(), head)
		}
		if p := e.parents(head); len(p) != 2 || p[0] != master || p[1] != feature {
			t.Errorf("parents %v, want [%s %s]", p, master, feature)
		}
		e.fsck()
	})

	t.Run("fresh lock blocks merges until its lease ends", func(t *testing.T) {
		e, mr, master, _, merge := prepare(t, "fresh")
		lock(t, e, mr.IID, merge, time.Now().UTC())
		resp, body := srv.Do(t, "PUT", e.mrPath(mr.IID, "/merge"), srv.RootToken, nil)
		if resp.StatusCode != 405 {
			t.Fatalf("merge while another is in flight: %d %s, want 405", resp.StatusCode, body)
		}
		wantMessage(t, body, "405 Method Not Allowed")
		if got := e.get(mr.IID); got.State != "opened" {
			t.Errorf("state %q while in flight", got.State)
		}
		if h := e.head("master"); h != master {
			t.Fatalf("master moved to %s", h)
		}
		srv.Advance(2 * time.Minute)
		var merged mrJSON
		srv.JSON(t, "PUT", e.mrPath(mr.IID, "/merge"), srv.RootToken, nil, 200, &merged)
		if merged.State != "merged" || merged.mergeSHA() != e.head("master") {
			t.Errorf("merge after the lease: %+v, master %s", merged, e.head("master"))
		}
	})
}
