package app_test

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestGoGitLabMergeRequestWorkflow drives merge requests and todos with
// the official Go client: every call must parse and carry the right values.
func TestGoGitLabMergeRequestWorkflow(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	e := newMREnv(t, srv, "client-flow")
	e.commit("master", "", "Seed", mrAdd("README.md", "hello\n"))
	c1 := e.commit("feature", "master", "Add the feature", mrAdd("feature.txt", "f\n"))
	c2 := e.commit("feature", "", "Document the feature", mrAdd("docs/feature.md", "# F\n"))
	e.commit("second", "master", "Second change", mrAdd("second.txt", "s\n"))
	oldMaster := e.commit("master", "", "Master moves", mrEdit("README.md", "hello again\n"))
	aliceID, aliceTok := createUser(t, srv, "alice")
	bobID, bobTok := createUser(t, srv, "bob")
	e.member(aliceID, 30)
	e.member(bobID, 30)
	client := func(token string) *gitlab.Client {
		c, err := gitlab.NewClient(token, gitlab.WithBaseURL(srv.API()), gitlab.WithoutRetries())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	gl, asAlice, asBob := client(srv.RootToken), client(aliceTok), client(bobTok)
	pid := e.pid
	iids := func(l []*gitlab.BasicMergeRequest) []int64 {
		out := []int64{}
		for _, m := range l {
			out = append(out, m.IID)
		}
		return out
	}
	wantIIDs := func(what string, l []*gitlab.BasicMergeRequest, resp *gitlab.Response, err error, want ...int64) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if fmt.Sprint(iids(l)) != fmt.Sprint(want) {
			t.Errorf("%s: iids %v, want %v", what, iids(l), want)
		}
		if resp.TotalItems != int64(len(want)) {
			t.Errorf("%s: X-Total %d, want %d", what, resp.TotalItems, len(want))
		}
	}

	// Create two merge requests, as root and as bob.
	mr, _, err := gl.MergeRequests.CreateMergeRequest(pid, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.Ptr("Add the feature"), Description: gitlab.Ptr("Adds feature.txt"),
		SourceBranch: gitlab.Ptr("feature"), TargetBranch: gitlab.Ptr("master"),
		Labels: &gitlab.LabelOptions{"ux", "backend"}, AssigneeID: gitlab.Ptr(aliceID),
	})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if mr.IID != 1 || mr.State != "opened" || mr.ProjectID != pid || mr.SHA != c2 || mr.MergeCommitSHA != "" ||
		fmt.Sprint(mr.Labels) != "[backend ux]" || mr.Assignee == nil || mr.Assignee.ID != aliceID ||
		mr.Author == nil || mr.Author.Username != "root" || !mr.Subscribed || mr.CreatedAt == nil ||
		!strings.HasSuffix(mr.WebURL, "/root/client-flow/merge_requests/1") {
		t.Fatalf("created %s", mr)
	}
	second, _, err := asBob.MergeRequests.CreateMergeRequest(pid, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.Ptr("Second change"), SourceBranch: gitlab.Ptr("second"), TargetBranch: gitlab.Ptr("master"),
		Labels: &gitlab.LabelOptions{"backend"},
	})
	if err != nil || second.IID != 2 || second.Author.Username != "bob" || second.Assignee != nil {
		t.Fatalf("create second: %v %s", err, second)
	}

	if got, _, err := gl.MergeRequests.GetMergeRequest(pid, 1, nil); err != nil || got.ID != mr.ID ||
		got.Title != "Add the feature" || got.Description != "Adds feature.txt" || got.TargetBranch != "master" {
		t.Fatalf("get: %v %s", err, got)
	}

	// Project lists: state, labels, order, iids.
	l, resp, err := gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{
		State: gitlab.Ptr("opened"), OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("asc")})
	wantIIDs("opened, oldest first", l, resp, err, 1, 2)
	l, resp, err = gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{
		State: gitlab.Ptr("opened"), OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("desc")})
	wantIIDs("opened, newest first", l, resp, err, 2, 1)
	l, resp, err = gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{Labels: &gitlab.LabelOptions{"ux"}})
	wantIIDs("label ux", l, resp, err, 1)
	l, resp, err = gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{
		Labels: &gitlab.LabelOptions{"backend", "ux"}, State: gitlab.Ptr("all")})
	wantIIDs("labels backend and ux", l, resp, err, 1)
	l, resp, err = gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{State: gitlab.Ptr("merged")})
	wantIIDs("merged", l, resp, err)
	l, resp, err = gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{IIDs: &[]int64{2}})
	wantIIDs("iids[]=2", l, resp, err, 2)
	if _, _, err := gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{State: gitlab.Ptr("sleeping")}); err == nil {
		t.Errorf("state=sleeping: no error")
	}

	// Lists across projects.
	l, resp, err = gl.MergeRequests.ListMergeRequests(&gitlab.ListMergeRequestsOptions{Scope: gitlab.Ptr("all"),
		OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("asc")})
	wantIIDs("all, as root", l, resp, err, 1, 2)
	l, resp, err = asBob.MergeRequests.ListMergeRequests(nil)
	wantIIDs("created by bob", l, resp, err, 2)
	l, resp, err = asAlice.MergeRequests.ListMergeRequests(&gitlab.ListMergeRequestsOptions{Scope: gitlab.Ptr("assigned_to_me")})
	wantIIDs("assigned to alice", l, resp, err, 1)

	// Update: title, labels, assignee; close and reopen.
	up, _, err := asAlice.MergeRequests.UpdateMergeRequest(pid, 1, &gitlab.UpdateMergeRequestOptions{
		Title: gitlab.Ptr("Add the feature (v2)"), Labels: &gitlab.LabelOptions{"ux", "api"}, AssigneeID: gitlab.Ptr(bobID)})
	if err != nil || up.Title != "Add the feature (v2)" || fmt.Sprint(up.Labels) != "[api ux]" || up.Assignee == nil || up.Assignee.ID != bobID {
		t.Fatalf("update: %v %s", err, up)
	}
	closed, _, err := gl.MergeRequests.UpdateMergeRequest(pid, 1, &gitlab.UpdateMergeRequestOptions{StateEvent: gitlab.Ptr("close")})
	if err != nil || closed.State != "closed" || closed.ClosedAt == nil {
		t.Fatalf("close: %v %s", err, closed)
	}
	l, resp, err = gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{State: gitlab.Ptr("closed")})
	wantIIDs("closed", l, resp, err, 1)
	reopened, _, err := gl.MergeRequests.UpdateMergeRequest(pid, 1, &gitlab.UpdateMergeRequestOptions{StateEvent: gitlab.Ptr("reopen")})
	if err != nil || reopened.State != "reopened" {
		t.Fatalf("reopen: %v %s", err, reopened)
	}
	l, resp, err = gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{
		State: gitlab.Ptr("opened"), Sort: gitlab.Ptr("asc")})
	wantIIDs("opened includes reopened", l, resp, err, 1, 2)

	// Commits, newest first, and changes against the merge base.
	commits, _, err := gl.MergeRequests.GetMergeRequestCommits(pid, 1, nil)
	if err != nil || len(commits) != 2 || commits[0].ID != c2 || commits[1].ID != c1 ||
		commits[0].Title != "Document the feature" || commits[0].ShortID == "" || commits[0].AuthorName == "" || commits[0].CreatedAt == nil {
		t.Fatalf("commits: %v %v", err, commits)
	}
	//lint:ignore SA1019 GitLab 9.x has /changes and no /diffs.
	ch, _, err := gl.MergeRequests.GetMergeRequestChanges(pid, 1, nil) //nolint:staticcheck
	if err != nil || ch.IID != 1 || ch.SHA != c2 {
		t.Fatalf("changes: %v %s", err, ch)
	}
	req, err := gl.NewRequest(http.MethodGet, fmt.Sprintf("projects/%d/merge_requests/1/changes", pid), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var withChanges struct {
		IID     int64                      `json:"iid"`
		Changes []*gitlab.MergeRequestDiff `json:"changes"`
	}
	if _, err := gl.Do(req, &withChanges); err != nil {
		t.Fatalf("changes entries: %v", err)
	}
	var paths []string
	for _, d := range withChanges.Changes {
		paths = append(paths, d.NewPath)
		if !d.NewFile || d.DeletedFile || !strings.Contains(d.Diff, "+") {
			t.Errorf("change %+v", d)
		}
	}
	sort.Strings(paths)
	if fmt.Sprint(paths) != "[docs/feature.md feature.txt]" {
		t.Errorf("changed paths %v (master's own change must not show)", paths)
	}

	// Subscriptions: root authored it, so is subscribed.
	if u, _, err := gl.MergeRequests.UnsubscribeFromMergeRequest(pid, 1); err != nil || u.Subscribed {
		t.Fatalf("unsubscribe: %v %v", err, u)
	}
	if s, _, err := gl.MergeRequests.SubscribeToMergeRequest(pid, 1); err != nil || !s.Subscribed {
		t.Fatalf("subscribe: %v %v", err, s)
	}
	if _, resp, _ := gl.MergeRequests.SubscribeToMergeRequest(pid, 1); resp == nil || resp.StatusCode != http.StatusNotModified {
		t.Errorf("repeated subscribe: %v, want 304", resp)
	}

	// Todos: alice was assigned at creation, then marks one herself.
	todo, _, err := asAlice.MergeRequests.CreateTodo(pid, 1)
	if err != nil || todo.ID == 0 || todo.ActionName != "marked" || todo.TargetType != "MergeRequest" || todo.State != "pending" ||
		todo.Target == nil || todo.Target.IID != 1 || todo.Project == nil || todo.Project.ID != pid || todo.Author == nil {
		t.Fatalf("create todo: %v %+v", err, todo)
	}
	if _, resp, _ := asAlice.MergeRequests.CreateTodo(pid, 1); resp == nil || resp.StatusCode != http.StatusNotModified {
		t.Errorf("repeated todo: %v, want 304", resp)
	}
	todos, _, err := asAlice.Todos.ListTodos(nil)
	if err != nil {
		t.Fatalf("list todos: %v", err)
	}
	actions := map[string]int64{}
	for _, td := range todos {
		actions[string(td.ActionName)] = td.ID
		if td.Target == nil || td.Target.IID != 1 || td.TargetType != "MergeRequest" {
			t.Errorf("todo target %+v", td)
		}
	}
	if len(todos) != 2 || actions["marked"] != todo.ID || actions["assigned"] == 0 {
		t.Fatalf("alice's todos %v", actions)
	}
	if _, err := asAlice.Todos.MarkTodoAsDone(todo.ID); err != nil {
		t.Fatalf("mark done: %v", err)
	}
	if pending, _, err := asAlice.Todos.ListTodos(nil); err != nil || len(pending) != 1 || pending[0].ActionName != "assigned" {
		t.Fatalf("pending after one done: %v %v", err, pending)
	}
	if done, _, err := asAlice.Todos.ListTodos(&gitlab.ListTodosOptions{State: gitlab.Ptr("done")}); err != nil || len(done) != 1 || done[0].ID != todo.ID {
		t.Fatalf("done todos: %v %v", err, done)
	}
	if _, err := asAlice.Todos.MarkAllTodosAsDone(); err != nil {
		t.Fatalf("mark all done: %v", err)
	}
	if pending, _, err := asAlice.Todos.ListTodos(nil); err != nil || len(pending) != 0 {
		t.Fatalf("pending after all done: %v %v", err, pending)
	}

	// Accept: a stale sha is refused, the right one merges and removes the branch.
	_, resp, err = gl.MergeRequests.AcceptMergeRequest(pid, 1, &gitlab.AcceptMergeRequestOptions{SHA: gitlab.Ptr(c1)})
	var er *gitlab.ErrorResponse
	if err == nil || resp == nil || resp.StatusCode != http.StatusConflict || !errors.As(err, &er) ||
		!strings.Contains(string(er.Body), "SHA does not match HEAD of source branch: "+c2) {
		t.Fatalf("accept with a stale sha: %v %v", err, resp)
	}
	merged, _, err := gl.MergeRequests.AcceptMergeRequest(pid, 1, &gitlab.AcceptMergeRequestOptions{
		SHA: gitlab.Ptr(c2), ShouldRemoveSourceBranch: gitlab.Ptr(true)})
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	master := e.head("master")
	if merged.State != "merged" || merged.MergeCommitSHA != master || merged.MergedAt == nil {
		t.Fatalf("accepted %s; master %s", merged, master)
	}
	if p := e.parents(master); len(p) != 2 || p[0] != oldMaster || p[1] != c2 {
		t.Errorf("merge parents %v", p)
	}
	wantMsg := "Merge branch 'feature' into 'master'\n\nAdd the feature (v2)\n\nSee merge request root/client-flow!1"
	if msg := e.git("log", "-1", "--format=%B", master); msg != wantMsg {
		t.Errorf("merge message %q, want %q", msg, wantMsg)
	}
	if e.hasBranch("feature") {
		t.Errorf("the source branch survived should_remove_source_branch")
	}
	if _, _, err := gl.Branches.GetBranch(pid, "feature"); !errors.Is(err, gitlab.ErrNotFound) {
		t.Errorf("GET removed branch: %v", err)
	}
	if got, _, err := gl.MergeRequests.GetMergeRequest(pid, 1, nil); err != nil || got.State != "merged" || got.MergeCommitSHA != master {
		t.Errorf("get merged: %v %s", err, got)
	}
	if issues, _, err := gl.MergeRequests.GetIssuesClosedOnMerge(pid, 1, nil); err != nil || len(issues) != 0 {
		t.Errorf("closes_issues: %v %v", err, issues)
	}

	// Cancelling a merge-when-pipeline-succeeds that was never set: 406;
	// on a merged MR: 405.
	if _, resp, err := gl.MergeRequests.CancelMergeWhenPipelineSucceeds(pid, 2); err == nil || resp == nil || resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("cancel MWPS through the client (%s): %v, want 406", clientMethod(resp), err)
	}
	if r, body := srv.Do(t, "PUT", e.mrPath(2, "/cancel_merge_when_pipeline_succeeds"), srv.RootToken, nil); r.StatusCode != 406 {
		t.Errorf("PUT cancel MWPS: %d %s, want 406", r.StatusCode, body)
	} else {
		wantMessage(t, body, "406 Not Acceptable")
	}
	if r, body := srv.Do(t, "PUT", e.mrPath(1, "/cancel_merge_when_pipeline_succeeds"), srv.RootToken, nil); r.StatusCode != 405 {
		t.Errorf("PUT cancel MWPS on a merged MR: %d %s, want 405", r.StatusCode, body)
	}

	// Delete: owners and admins only.
	if resp, err := asBob.MergeRequests.DeleteMergeRequest(pid, 2); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("delete as a developer: %v %v, want 403", err, resp)
	}
	if resp, err := gl.MergeRequests.DeleteMergeRequest(pid, 2); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %v %v", err, resp)
	}
	if _, _, err := gl.MergeRequests.GetMergeRequest(pid, 2, nil); !errors.Is(err, gitlab.ErrNotFound) {
		t.Errorf("deleted MR still readable: %v", err)
	}
}

// clientMethod names the method and status a client call ended with.
func clientMethod(resp *gitlab.Response) string {
	if resp == nil || resp.Request == nil {
		return "no response"
	}
	return fmt.Sprintf("%s -> %d", resp.Request.Method, resp.StatusCode)
}
