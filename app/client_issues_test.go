package app_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestGoGitLabIssuesNotesSnippets drives milestones, labels, issues,
// notes (on issues, merge requests and snippets, award-only ones too)
// and project snippets with the official Go client: every call must
// parse and carry the right values.
func TestGoGitLabIssuesNotesSnippets(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	e := newMREnv(t, srv, "client-issues")
	e.commit("master", "", "Seed", mrAdd("README.md", "hello\n"))
	e.commit("feature", "master", "Feature", mrAdd("feature.txt", "f\n"))
	aliceID, aliceTok := createUser(t, srv, "alice")
	bobID, bobTok := createUser(t, srv, "bob")
	e.member(aliceID, 30)
	e.member(bobID, 20)
	client := func(token string) *gitlab.Client {
		c, err := gitlab.NewClient(token, gitlab.WithBaseURL(srv.API()), gitlab.WithoutRetries())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	gl, asAlice, asBob := client(srv.RootToken), client(aliceTok), client(bobTok)
	pid := e.pid
	day := func(s string) *gitlab.ISOTime {
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		v := gitlab.ISOTime(d)
		return &v
	}
	must := func(what string, resp *gitlab.Response, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v (%s)", what, err, clientMethod(resp))
		}
	}
	status := func(what string, resp *gitlab.Response, want int) {
		t.Helper()
		if resp == nil || resp.StatusCode != want {
			t.Errorf("%s: %s, want %d", what, clientMethod(resp), want)
		}
	}

	// Milestones.
	ms, resp, err := gl.Milestones.CreateMilestone(pid, &gitlab.CreateMilestoneOptions{Title: gitlab.Ptr("v1.0"),
		Description: gitlab.Ptr("First release"), StartDate: day("2030-01-01"), DueDate: day("2030-01-31")})
	must("create milestone", resp, err)
	if ms.IID != 1 || ms.ProjectID != pid || ms.Title != "v1.0" || ms.Description != "First release" || ms.State != "active" ||
		ms.DueDate == nil || ms.DueDate.String() != "2030-01-31" || ms.StartDate == nil || ms.StartDate.String() != "2030-01-01" ||
		ms.CreatedAt == nil || ms.UpdatedAt == nil {
		t.Fatalf("created milestone %s", ms)
	}
	ms2, resp, err := asBob.Milestones.CreateMilestone(pid, &gitlab.CreateMilestoneOptions{Title: gitlab.Ptr("v2.0")})
	must("reporter creates a milestone", resp, err)
	if ms2.IID != 2 || ms2.DueDate != nil {
		t.Errorf("second milestone %s", ms2)
	}
	if _, resp, err := gl.Milestones.CreateMilestone(pid, &gitlab.CreateMilestoneOptions{Title: gitlab.Ptr("v1.0")}); err == nil {
		t.Errorf("duplicate milestone title accepted: %s", clientMethod(resp))
	}
	milestoneTitles := func(what string, opt *gitlab.ListMilestonesOptions, want ...string) {
		t.Helper()
		l, resp, err := gl.Milestones.ListMilestones(pid, opt)
		must(what, resp, err)
		var got []string
		for _, m := range l {
			got = append(got, m.Title)
		}
		sort.Strings(got)
		if fmt.Sprint(got) != fmt.Sprint(want) || resp.TotalItems != int64(len(want)) {
			t.Errorf("%s: %v (X-Total %d), want %v", what, got, resp.TotalItems, want)
		}
	}
	milestoneTitles("milestones", nil, "v1.0", "v2.0")
	milestoneTitles("milestones iids[]=2", &gitlab.ListMilestonesOptions{IIDs: &[]int64{2}}, "v2.0")
	milestoneTitles("milestones search", &gitlab.ListMilestonesOptions{Search: gitlab.Ptr("First")}, "v1.0")
	if got, resp, err := gl.Milestones.GetMilestone(pid, ms.ID); err != nil || got.ID != ms.ID || got.Title != "v1.0" {
		t.Errorf("get milestone: %v %s %s", err, clientMethod(resp), got)
	}

	// Labels.
	bug, resp, err := gl.Labels.CreateLabel(pid, &gitlab.CreateLabelOptions{Name: gitlab.Ptr("bug"), Color: gitlab.Ptr("#FF0000"),
		Description: gitlab.Ptr("Something is broken")})
	must("create label", resp, err)
	if bug.ID == 0 || bug.Name != "bug" || bug.Color != "#FF0000" || bug.Description != "Something is broken" || bug.OpenIssuesCount != 0 {
		t.Fatalf("created label %s", bug)
	}
	_, resp, _ = gl.Labels.CreateLabel(pid, &gitlab.CreateLabelOptions{Name: gitlab.Ptr("bug"), Color: gitlab.Ptr("#00FF00")})
	status("duplicate label", resp, http.StatusConflict)
	_, resp, _ = gl.Labels.CreateLabel(pid, &gitlab.CreateLabelOptions{Name: gitlab.Ptr("odd"), Color: gitlab.Ptr("red-ish")})
	status("label with a bad color", resp, http.StatusBadRequest)

	// Issues.
	first, resp, err := gl.Issues.CreateIssue(pid, &gitlab.CreateIssueOptions{Title: gitlab.Ptr("First issue"),
		Description: gitlab.Ptr("It is broken"), Labels: &gitlab.LabelOptions{"ui", "bug"}, MilestoneID: gitlab.Ptr(ms.ID),
		AssigneeID: gitlab.Ptr(aliceID), DueDate: day("2030-02-03")})
	must("create issue", resp, err)
	if first.IID != 1 || first.ProjectID != pid || first.State != "opened" || first.Title != "First issue" ||
		first.Description != "It is broken" || fmt.Sprint(first.Labels) != "[bug ui]" || first.Milestone == nil ||
		first.Milestone.ID != ms.ID || first.Assignee == nil || first.Assignee.ID != aliceID || len(first.Assignees) != 1 ||
		first.Assignees[0].ID != aliceID || first.Author == nil || first.Author.Username != "root" || first.Confidential ||
		first.DueDate == nil || first.DueDate.String() != "2030-02-03" || first.CreatedAt == nil || first.UpdatedAt == nil ||
		first.ClosedAt != nil || first.UserNotesCount != 0 || first.Upvotes != 0 || !first.Subscribed ||
		!strings.HasSuffix(first.WebURL, "/root/client-issues/issues/1") {
		t.Fatalf("created issue %s", first)
	}
	second, resp, err := asBob.Issues.CreateIssue(pid, &gitlab.CreateIssueOptions{Title: gitlab.Ptr("Second issue"),
		Confidential: gitlab.Ptr(true)})
	must("reporter creates a confidential issue", resp, err)
	if second.IID != 2 || !second.Confidential || second.Author.ID != bobID || second.Assignee != nil ||
		len(second.Assignees) != 0 || second.Milestone != nil || len(second.Labels) != 0 || second.DueDate != nil {
		t.Fatalf("second issue %s", second)
	}
	if got, resp, err := asAlice.Issues.GetIssue(pid, 1); err != nil || got.ID != first.ID || got.Title != "First issue" || got.Subscribed != true {
		t.Errorf("get issue as the assignee: %v %s %s", err, clientMethod(resp), got)
	}
	if _, resp, _ := gl.Issues.GetIssue(pid, 99); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("missing issue: %s", clientMethod(resp))
	}
	if l, resp, err := gl.Labels.ListLabels(pid, nil); err != nil || len(l) != 2 {
		t.Errorf("labels after create: %v %s %v", err, clientMethod(resp), l)
	} else {
		for _, lb := range l {
			if lb.Name == "ui" && (lb.Color != "#428BCA" || lb.OpenIssuesCount != 1) || lb.Name == "bug" && lb.OpenIssuesCount != 1 {
				t.Errorf("label %s", lb)
			}
		}
	}

	iids := func(l []*gitlab.Issue) []int64 {
		out := []int64{}
		for _, is := range l {
			out = append(out, is.IID)
		}
		return out
	}
	wantIssues := func(what string, l []*gitlab.Issue, resp *gitlab.Response, err error, want ...int64) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if fmt.Sprint(iids(l)) != fmt.Sprint(want) || resp.TotalItems != int64(len(want)) {
			t.Errorf("%s: iids %v (X-Total %d), want %v", what, iids(l), resp.TotalItems, want)
		}
	}
	l, resp, err := gl.Issues.ListProjectIssues(pid, nil)
	wantIssues("project issues, newest first", l, resp, err, 2, 1)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("asc")})
	wantIssues("oldest first", l, resp, err, 1, 2)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{Labels: &gitlab.LabelOptions{"bug"}})
	wantIssues("labels=bug", l, resp, err, 1)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{Milestone: gitlab.Ptr("v1.0")})
	wantIssues("milestone=v1.0", l, resp, err, 1)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{IIDs: &[]int64{2}})
	wantIssues("iids[]=2", l, resp, err, 2)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{Search: gitlab.Ptr("Second")})
	wantIssues("search", l, resp, err, 2)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{AuthorID: gitlab.Ptr(bobID)})
	wantIssues("author_id", l, resp, err, 2)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{AssigneeID: gitlab.AssigneeID(aliceID)})
	wantIssues("assignee_id", l, resp, err, 1)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{State: gitlab.Ptr("closed")})
	wantIssues("closed", l, resp, err)
	l, resp, err = gl.Issues.ListIssues(&gitlab.ListIssuesOptions{Scope: gitlab.Ptr("all"), OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("asc")})
	wantIssues("all issues as root", l, resp, err, 1, 2)
	l, resp, err = asBob.Issues.ListIssues(nil)
	wantIssues("created by bob", l, resp, err, 2)
	l, resp, err = asAlice.Issues.ListIssues(&gitlab.ListIssuesOptions{Scope: gitlab.Ptr("assigned_to_me")})
	wantIssues("assigned to alice", l, resp, err, 1)
	l, resp, err = gl.Milestones.GetMilestoneIssues(pid, ms.ID, nil)
	wantIssues("issues of the milestone", l, resp, err, 1)

	// Update, close, reopen.
	up, resp, err := asAlice.Issues.UpdateIssue(pid, 1, &gitlab.UpdateIssueOptions{Title: gitlab.Ptr("First issue (edited)"),
		Labels: &gitlab.LabelOptions{"bug"}, StateEvent: gitlab.Ptr("close")})
	must("update and close", resp, err)
	if up.Title != "First issue (edited)" || fmt.Sprint(up.Labels) != "[bug]" || up.State != "closed" || up.ClosedAt == nil {
		t.Errorf("closed %s", up)
	}
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{State: gitlab.Ptr("closed")})
	wantIssues("closed after close", l, resp, err, 1)
	up, resp, err = asAlice.Issues.UpdateIssue(pid, 1, &gitlab.UpdateIssueOptions{StateEvent: gitlab.Ptr("reopen")})
	must("reopen", resp, err)
	if up.State != "reopened" {
		t.Errorf("reopened %s", up)
	}
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{State: gitlab.Ptr("opened")})
	wantIssues("opened includes reopened", l, resp, err, 2, 1)
	if _, resp, err := gl.Issues.UpdateIssue(pid, 1, &gitlab.UpdateIssueOptions{StateEvent: gitlab.Ptr("nap")}); err == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("state_event=nap: %s", clientMethod(resp))
	}

	// Subscriptions and todos.
	if s, resp, err := asAlice.Issues.SubscribeToIssue(pid, 2); err != nil || !s.Subscribed || s.IID != 2 {
		t.Errorf("subscribe: %v %s %s", err, clientMethod(resp), s)
	}
	_, resp, _ = asAlice.Issues.SubscribeToIssue(pid, 2)
	status("repeated subscribe", resp, http.StatusNotModified)
	if s, resp, err := asAlice.Issues.UnsubscribeFromIssue(pid, 2); err != nil || s.Subscribed {
		t.Errorf("unsubscribe: %v %s %s", err, clientMethod(resp), s)
	}
	_, resp, _ = asAlice.Issues.UnsubscribeFromIssue(pid, 2)
	status("repeated unsubscribe", resp, http.StatusNotModified)
	todo, resp, err := asAlice.Issues.CreateTodo(pid, 2)
	must("todo", resp, err)
	if todo.ActionName != "marked" || todo.TargetType != "Issue" || todo.Target == nil || todo.Target.IID != 2 ||
		todo.Project == nil || todo.Project.ID != pid || todo.Author == nil || todo.Author.ID != aliceID {
		t.Errorf("todo %s", todo)
	}
	_, resp, _ = asAlice.Issues.CreateTodo(pid, 2)
	status("repeated todo", resp, http.StatusNotModified)

	// Milestone: update, close, list by state.
	upm, resp, err := gl.Milestones.UpdateMilestone(pid, ms.ID, &gitlab.UpdateMilestoneOptions{Description: gitlab.Ptr("Shipped"),
		StateEvent: gitlab.Ptr("close")})
	must("close milestone", resp, err)
	if upm.State != "closed" || upm.Description != "Shipped" || upm.Title != "v1.0" {
		t.Errorf("closed milestone %s", upm)
	}
	milestoneTitles("closed milestones", &gitlab.ListMilestonesOptions{State: gitlab.Ptr("closed")}, "v1.0")
	milestoneTitles("active milestones", &gitlab.ListMilestonesOptions{State: gitlab.Ptr("active")}, "v2.0")

	// Labels: rename (carried over to the issue), delete.
	renamed, resp, err := gl.Labels.UpdateLabel(pid, nil, &gitlab.UpdateLabelOptions{Name: gitlab.Ptr("bug"),
		NewName: gitlab.Ptr("defect"), Color: gitlab.Ptr("#00AA00")})
	must("rename label", resp, err)
	if renamed.Name != "defect" || renamed.Color != "#00AA00" || renamed.ID != bug.ID {
		t.Errorf("renamed label %s", renamed)
	}
	if got, _, err := gl.Issues.GetIssue(pid, 1); err != nil || fmt.Sprint(got.Labels) != "[defect]" {
		t.Errorf("issue after the rename: %v %v", err, got)
	}
	resp, err = gl.Labels.DeleteLabel(pid, nil, &gitlab.DeleteLabelOptions{Name: gitlab.Ptr("ui")})
	must("delete label", resp, err)
	if ls, _, err := gl.Labels.ListLabels(pid, nil); err != nil || len(ls) != 1 || ls[0].Name != "defect" || ls[0].OpenIssuesCount != 1 {
		t.Errorf("labels after delete: %v %v", err, ls)
	}

	// Issue notes.
	note, resp, err := asAlice.Notes.CreateIssueNote(pid, 1, &gitlab.CreateIssueNoteOptions{Body: gitlab.Ptr("Still broken")})
	must("create issue note", resp, err)
	if note.ID == 0 || note.Body != "Still broken" || note.Author.ID != aliceID || note.System || note.NoteableType != "Issue" ||
		note.NoteableID != first.ID || note.NoteableIID != 1 || note.CreatedAt == nil || note.UpdatedAt == nil {
		t.Fatalf("issue note %s", note)
	}
	notes, resp, err := gl.Notes.ListIssueNotes(pid, 1, &gitlab.ListIssueNotesOptions{OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("asc")})
	must("list issue notes", resp, err)
	var bodies []string
	system := 0
	for _, n := range notes {
		bodies = append(bodies, n.Body)
		if n.System {
			system++
		}
	}
	if len(notes) < 3 || system == 0 || notes[len(notes)-1].ID != note.ID || !strings.Contains(strings.Join(bodies, "|"), "closed") ||
		resp.TotalItems != int64(len(notes)) {
		t.Errorf("issue notes (oldest first): %q, %d system, X-Total %d", bodies, system, resp.TotalItems)
	}
	if got, resp, err := gl.Notes.GetIssueNote(pid, 1, note.ID); err != nil || got.Body != "Still broken" || got.Author.ID != aliceID {
		t.Errorf("get issue note: %v %s %s", err, clientMethod(resp), got)
	}
	if got, resp, err := asAlice.Notes.UpdateIssueNote(pid, 1, note.ID, &gitlab.UpdateIssueNoteOptions{Body: gitlab.Ptr("Fixed?")}); err != nil || got.Body != "Fixed?" {
		t.Errorf("update own note: %v %s %s", err, clientMethod(resp), got)
	}
	_, resp, _ = asBob.Notes.UpdateIssueNote(pid, 1, note.ID, &gitlab.UpdateIssueNoteOptions{Body: gitlab.Ptr("Hijacked")})
	status("a reporter edits someone's note", resp, http.StatusForbidden)
	if got, _, err := gl.Issues.GetIssue(pid, 1); err != nil || got.UserNotesCount != 1 {
		t.Errorf("user_notes_count: %v %v", err, got)
	}
	resp, err = asAlice.Notes.DeleteIssueNote(pid, 1, note.ID)
	must("delete issue note", resp, err)
	status("delete issue note", resp, http.StatusNoContent)
	_, resp, _ = gl.Notes.GetIssueNote(pid, 1, note.ID)
	status("deleted note", resp, http.StatusNotFound)

	// Award-only notes are votes.
	award, resp, err := asAlice.Notes.CreateIssueNote(pid, 1, &gitlab.CreateIssueNoteOptions{Body: gitlab.Ptr(":thumbsup:")})
	must("award note", resp, err)
	status("award note", resp, http.StatusCreated)
	if award.ID == 0 {
		t.Errorf("award %s", award)
	}
	_, resp, err = asBob.Notes.CreateIssueNote(pid, 1, &gitlab.CreateIssueNoteOptions{Body: gitlab.Ptr(":thumbsdown:")})
	must("thumbsdown", resp, err)
	again, resp, err := asAlice.Notes.CreateIssueNote(pid, 1, &gitlab.CreateIssueNoteOptions{Body: gitlab.Ptr(":+1:")})
	must("repeated award", resp, err)
	if again.ID != award.ID {
		t.Errorf("a repeated award is a new one: %d, first %d", again.ID, award.ID)
	}
	if got, _, err := gl.Issues.GetIssue(pid, 1); err != nil || got.Upvotes != 1 || got.Downvotes != 1 || got.UserNotesCount != 0 {
		t.Errorf("votes: %v up %d down %d notes %d", err, got.Upvotes, got.Downvotes, got.UserNotesCount)
	}

	// Merge request notes.
	mr, resp, err := gl.MergeRequests.CreateMergeRequest(pid, &gitlab.CreateMergeRequestOptions{Title: gitlab.Ptr("Feature"),
		SourceBranch: gitlab.Ptr("feature"), TargetBranch: gitlab.Ptr("master")})
	must("create merge request", resp, err)
	mn, resp, err := asBob.Notes.CreateMergeRequestNote(pid, mr.IID, &gitlab.CreateMergeRequestNoteOptions{Body: gitlab.Ptr("LGTM")})
	must("create merge request note", resp, err)
	if mn.Body != "LGTM" || mn.NoteableType != "MergeRequest" || mn.NoteableID != mr.ID || mn.NoteableIID != mr.IID || mn.Author.ID != bobID {
		t.Errorf("merge request note %s", mn)
	}
	if ns, resp, err := gl.Notes.ListMergeRequestNotes(pid, mr.IID, nil); err != nil || len(ns) != 1 || ns[0].ID != mn.ID || resp.TotalItems != 1 {
		t.Errorf("merge request notes: %v %s %v", err, clientMethod(resp), ns)
	}
	if got, _, err := gl.Notes.GetMergeRequestNote(pid, mr.IID, mn.ID); err != nil || got.Body != "LGTM" {
		t.Errorf("get merge request note: %v %v", err, got)
	}
	if got, _, err := gl.Notes.UpdateMergeRequestNote(pid, mr.IID, mn.ID, &gitlab.UpdateMergeRequestNoteOptions{Body: gitlab.Ptr("LGTM!")}); err != nil || got.Body != "LGTM!" {
		t.Errorf("admin edits a merge request note: %v %v", err, got)
	}
	if got, _, err := gl.MergeRequests.GetMergeRequest(pid, mr.IID, nil); err != nil || got.UserNotesCount != 1 {
		t.Errorf("merge request user_notes_count: %v %v", err, got)
	}
	resp, err = asBob.Notes.DeleteMergeRequestNote(pid, mr.IID, mn.ID)
	must("delete merge request note", resp, err)
	if ns, _, err := gl.Notes.ListMergeRequestNotes(pid, mr.IID, nil); err != nil || len(ns) != 0 {
		t.Errorf("merge request notes after delete: %v %v", err, ns)
	}

	// Project snippets.
	// go-gitlab sends the content as "content" (GitLab 9.x named it
	// "code"). Should the create fail, a plain request makes the snippet
	// so the calls after it are still checked.
	agent := "hearth-client-test/1.0"
	sn, resp, err := gl.ProjectSnippets.CreateSnippet(pid, &gitlab.CreateProjectSnippetOptions{Title: gitlab.Ptr("Hello"),
		FileName: gitlab.Ptr("hello.rb"), Description: gitlab.Ptr("Greets"), Content: gitlab.Ptr("puts 'hello'\n"),
		Visibility: gitlab.Ptr(gitlab.InternalVisibility)}, gitlab.WithHeader("User-Agent", agent))
	if err != nil {
		t.Errorf("create snippet with go-gitlab: %v (%s)", err, clientMethod(resp))
		sn = &gitlab.Snippet{}
		srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/snippets", pid), srv.RootToken, vals("title", "Hello", "file_name", "hello.rb",
			"description", "Greets", "code", "puts 'hello'\n", "visibility", "internal"), 201, sn)
		agent = "Go-http-client/1.1"
	}
	if sn.ID == 0 || sn.Title != "Hello" || sn.FileName != "hello.rb" || sn.Description != "Greets" || sn.Author.Username != "root" ||
		sn.ProjectID != pid || sn.Visibility != "internal" || sn.CreatedAt == nil || sn.UpdatedAt == nil ||
		!strings.HasSuffix(sn.WebURL, fmt.Sprintf("/root/client-issues/snippets/%d", sn.ID)) {
		t.Fatalf("created snippet %s", sn)
	}
	srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/snippets", pid), bobTok, vals("title", "x", "file_name", "x", "code", "x",
		"visibility", "private"), 201, nil)
	if ss, resp, err := gl.ProjectSnippets.ListSnippets(pid, nil); err != nil || len(ss) != 2 || resp.TotalItems != 2 {
		t.Errorf("list snippets: %v %s %v", err, clientMethod(resp), ss)
	}
	if got, resp, err := asAlice.ProjectSnippets.GetSnippet(pid, sn.ID); err != nil || got.Title != "Hello" || got.ID != sn.ID {
		t.Errorf("get snippet: %v %s %s", err, clientMethod(resp), got)
	}
	raw, resp, err := asAlice.ProjectSnippets.SnippetContent(pid, sn.ID)
	must("raw snippet", resp, err)
	if string(raw) != "puts 'hello'\n" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("raw snippet %q, Content-Type %q", raw, resp.Header.Get("Content-Type"))
	}
	upd, resp, err := gl.ProjectSnippets.UpdateSnippet(pid, sn.ID, &gitlab.UpdateProjectSnippetOptions{Title: gitlab.Ptr("Hello again"),
		Content: gitlab.Ptr("puts 'again'\n")})
	must("update snippet", resp, err)
	if upd.Title != "Hello again" || upd.FileName != "hello.rb" {
		t.Errorf("updated snippet %s", upd)
	}
	if raw, _, err := gl.ProjectSnippets.SnippetContent(pid, sn.ID); err != nil || string(raw) != "puts 'again'\n" {
		t.Errorf("raw after update %q %v", raw, err)
	}
	_, resp, _ = asAlice.ProjectSnippets.UpdateSnippet(pid, sn.ID, &gitlab.UpdateProjectSnippetOptions{Title: gitlab.Ptr("Mine now")})
	status("a developer edits root's snippet", resp, http.StatusForbidden)
	// User agent detail: go-gitlab has no method, so its raw request.
	var detail struct {
		UserAgent        string `json:"user_agent"`
		IPAddress        string `json:"ip_address"`
		AkismetSubmitted *bool  `json:"akismet_submitted"`
	}
	detailPath := fmt.Sprintf("projects/%d/snippets/%d/user_agent_detail", pid, sn.ID)
	req, err := gl.NewRequest(http.MethodGet, detailPath, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = gl.Do(req, &detail)
	must("user agent detail", resp, err)
	if detail.UserAgent != agent || detail.IPAddress != "127.0.0.1" || detail.AkismetSubmitted == nil || *detail.AkismetSubmitted {
		t.Errorf("user agent detail %+v", detail)
	}
	req, _ = asAlice.NewRequest(http.MethodGet, detailPath, nil, nil)
	resp, _ = asAlice.Do(req, nil)
	status("user agent detail as a developer", resp, http.StatusForbidden)

	// Snippet notes: the single read is snippet-shaped.
	snn, resp, err := asAlice.Notes.CreateSnippetNote(pid, sn.ID, &gitlab.CreateSnippetNoteOptions{Body: gitlab.Ptr("Nice")})
	must("create snippet note", resp, err)
	if snn.Body != "Nice" || snn.NoteableType != "Snippet" || snn.NoteableID != sn.ID || snn.Author.ID != aliceID {
		t.Errorf("snippet note %s", snn)
	}
	if ns, resp, err := gl.Notes.ListSnippetNotes(pid, sn.ID, nil); err != nil || len(ns) != 1 || ns[0].Body != "Nice" || resp.TotalItems != 1 {
		t.Errorf("snippet notes: %v %s %v", err, clientMethod(resp), ns)
	}
	if got, resp, err := gl.Notes.GetSnippetNote(pid, sn.ID, snn.ID); err != nil || got.ID != snn.ID || got.Author.ID != aliceID ||
		got.CreatedAt == nil || got.UpdatedAt == nil || got.Title != "" || got.FileName != "" || got.ExpiresAt != nil {
		t.Errorf("get snippet note: %v %s %s", err, clientMethod(resp), got)
	}
	if got, _, err := asAlice.Notes.UpdateSnippetNote(pid, sn.ID, snn.ID, &gitlab.UpdateSnippetNoteOptions{Body: gitlab.Ptr("Very nice")}); err != nil || got.Body != "Very nice" {
		t.Errorf("update snippet note: %v %v", err, got)
	}
	resp, err = asAlice.Notes.DeleteSnippetNote(pid, sn.ID, snn.ID)
	must("delete snippet note", resp, err)

	// Deletes: snippet (idempotent), issue.
	resp, err = gl.ProjectSnippets.DeleteSnippet(pid, sn.ID)
	must("delete snippet", resp, err)
	status("delete snippet", resp, http.StatusOK)
	_, resp, _ = gl.ProjectSnippets.GetSnippet(pid, sn.ID)
	status("deleted snippet", resp, http.StatusNotFound)
	resp, err = gl.ProjectSnippets.DeleteSnippet(pid, sn.ID)
	must("delete snippet again", resp, err)
	status("delete snippet again", resp, http.StatusOK)

	resp, _ = asAlice.Issues.DeleteIssue(pid, 2)
	status("a developer deletes an issue", resp, http.StatusForbidden)
	resp, err = gl.Issues.DeleteIssue(pid, 2)
	must("delete issue", resp, err)
	status("delete issue", resp, http.StatusNoContent)
	_, resp, _ = gl.Issues.GetIssue(pid, 2)
	status("deleted issue", resp, http.StatusNotFound)
	l, resp, err = gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{State: gitlab.Ptr("all")})
	wantIssues("issues after delete", l, resp, err, 1)
}
