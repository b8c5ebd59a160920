package apijson_test

import (
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// Golden keys of the four comment events of GitLab 9.x's webhooks.md.
// The issue block stops at iid: the labels later versions add are not
// 9.x's.
var (
	noteKeys = joinKeys(
		[]string{"object_kind", "user", "project_id", "project", "repository", "object_attributes"},
		prefixed("user.", hookUserKeys),
		prefixed("project.", hookProjectKeys),
		prefixed("repository.", hookRepositoryKeys),
		prefixed("object_attributes.", []string{"id", "note", "noteable_type", "author_id", "created_at",
			"updated_at", "project_id", "attachment", "line_code", "commit_id", "noteable_id", "system",
			"st_diff", "url"}),
	)
	stDiffKeys = prefixed("object_attributes.st_diff.", []string{"diff", "new_path", "old_path",
		"a_mode", "b_mode", "new_file", "renamed_file", "deleted_file"})
	commitNoteKeys = joinKeys(noteKeys, stDiffKeys, []string{"commit"}, prefixed("commit.", hookGitCommitKeys))
	mrNoteKeys     = joinKeys(noteKeys, []string{"merge_request"},
		prefixed("merge_request.", []string{"id", "target_branch", "source_branch", "source_project_id",
			"author_id", "assignee_id", "title", "created_at", "updated_at", "milestone_id", "state",
			"merge_status", "target_project_id", "iid", "description", "position", "source", "target",
			"last_commit", "work_in_progress", "assignee"}),
		prefixed("merge_request.source.", hookProjectKeys),
		prefixed("merge_request.target.", hookProjectKeys),
		prefixed("merge_request.last_commit.", hookGitCommitKeys),
		prefixed("merge_request.assignee.", hookUserKeys),
	)
	issueNoteKeys = joinKeys(noteKeys, []string{"issue"},
		prefixed("issue.", []string{"id", "title", "assignee_ids", "assignee_id", "author_id", "project_id",
			"created_at", "updated_at", "position", "branch_name", "description", "milestone_id", "state", "iid"}),
	)
	snippetNoteKeys = joinKeys(noteKeys, []string{"snippet"},
		prefixed("snippet.", []string{"id", "title", "content", "author_id", "project_id", "created_at",
			"updated_at", "file_name", "expires_at", "type", "visibility_level"}),
	)
)

var noteTime = time.Date(2015, 5, 17, 18, 8, 9, 0, time.FixedZone("", 3600))

func note(id int64, typ string, noteableID int64, body string) domain.Note {
	project := int64(15)
	return domain.Note{ID: id, ProjectID: &project, NoteableType: typ, NoteableID: noteableID, AuthorID: 4,
		Body: body, CreatedAt: noteTime, UpdatedAt: noteTime}
}

func parseNote(t *testing.T, body []byte) any {
	t.Helper()
	ev, err := gitlab.ParseWebhook(gitlab.EventTypeNote, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the note payload: %v\n%s", err, body)
	}
	return ev
}

func TestCommitNotePayload(t *testing.T) {
	head := headCommit()
	diff := &apijson.HookNoteDiff{Diff: "--- /dev/null\n+++ b/six\n", NewPath: "six", OldPath: "six",
		AMode: "0", BMode: "160000", NewFile: true}
	body := marshal(t, apijson.NotePayload(apijson.NoteHookInput{
		Project: hookProject(), Author: pusher, Note: note(1243, "Commit", 0, "How does this work?"),
		LineCode: "bec9703f_0_1", StDiff: diff, Commit: &head,
	}))
	assertKeys(t, body, commitNoteKeys)
	ev := parseNote(t, body).(*gitlab.CommitCommentEvent)
	a := ev.ObjectAttributes
	if ev.ObjectKind != "note" || ev.ProjectID != 15 || a.ID != 1243 || a.Note != "How does this work?" ||
		a.NoteableType != "Commit" || a.CommitID != head.ID || a.NoteableID != 0 || a.AuthorID != 4 ||
		a.ProjectID != 15 || a.LineCode != "bec9703f_0_1" || a.System ||
		a.URL != "http://example.com/mike/diaspora/commit/"+head.ID+"#note_1243" {
		t.Errorf("decoded object_attributes = %+v", a)
	}
	// Note timestamps are in UTC, written as Ruby's Time#to_s.
	if a.CreatedAt != "2015-05-17 17:08:09 UTC" || a.UpdatedAt != a.CreatedAt {
		t.Errorf("timestamps %q %q", a.CreatedAt, a.UpdatedAt)
	}
	if a.StDiff == nil || a.StDiff.NewPath != "six" || a.StDiff.BMode != "160000" || !a.StDiff.NewFile {
		t.Errorf("decoded st_diff = %+v", a.StDiff)
	}
	if ev.Commit == nil || ev.Commit.ID != head.ID || ev.Commit.Message != "fixed readme\n" ||
		ev.Commit.Author.Email != "gitlabdev@example.com" || ev.User == nil || ev.User.Username != "jsmith" {
		t.Errorf("decoded commit/user = %+v %+v", ev.Commit, ev.User)
	}
	if !strings.Contains(string(body), `"noteable_id":null`) || !strings.Contains(string(body), `"attachment":null`) {
		t.Errorf("commit note payload: %s", body)
	}
}

func TestMergeRequestNotePayload(t *testing.T) {
	fork, head := forkProject(), headCommit()
	assignee := domain.User{ID: 6, Username: "user1", Name: "User1"}
	body := marshal(t, apijson.NotePayload(apijson.NoteHookInput{
		Project: hookProject(), Author: pusher, Note: note(1244, domain.TargetMergeRequest, 99, "This MR needs work."),
		MergeRequest: &apijson.NoteHookMergeRequestInput{MergeRequest: mergeRequest(), Source: &fork,
			LastCommit: &head, Assignee: &assignee},
	}))
	var want []string
	for _, k := range mrNoteKeys {
		if !strings.HasPrefix(k, "object_attributes.st_diff.") {
			want = append(want, k)
		}
	}
	assertKeys(t, body, want)
	ev := parseNote(t, body).(*gitlab.MergeCommentEvent)
	a, mr := ev.ObjectAttributes, ev.MergeRequest
	if a.ID != 1244 || a.Note != "This MR needs work." || a.NoteableType != "MergeRequest" || a.NoteableID != 99 ||
		a.CommitID != "" || a.LineCode != "" || a.StDiff != nil ||
		a.URL != "http://example.com/mike/diaspora/merge_requests/1#note_1244" {
		t.Errorf("decoded object_attributes = %+v", a)
	}
	if mr.ID != 99 || mr.IID != 1 || mr.State != "opened" || mr.MergeStatus != "unchecked" || mr.AssigneeID != 6 ||
		mr.SourceProjectID != 14 || mr.TargetProjectID != 15 || !mr.WorkInProgress || mr.CreatedAt != "2013-12-03 17:23:34 UTC" ||
		mr.Source == nil || mr.Source.Name != "Awesome Project" || mr.Target == nil || mr.Target.Name != "Diaspora" ||
		mr.LastCommit.ID != head.ID || mr.Assignee == nil || mr.Assignee.Username != "user1" {
		t.Errorf("decoded merge_request = %+v", mr)
	}
	if !strings.Contains(string(body), `"commit_id":""`) || !strings.Contains(string(body), `"line_code":null`) {
		t.Errorf("merge request note payload: %s", body)
	}
}

func TestIssueNotePayload(t *testing.T) {
	created := time.Date(2015, 4, 12, 14, 53, 17, 0, time.UTC)
	issue := domain.Issue{ID: 92, IID: 17, ProjectID: 15, Title: "test", Description: "test",
		State: domain.IssueClosed, AuthorID: 1, CreatedAt: created, UpdatedAt: created}
	n := note(1241, domain.TargetIssue, 92, "Hello world")
	n.System = true
	body := marshal(t, apijson.NotePayload(apijson.NoteHookInput{
		Project: hookProject(), Author: pusher, Note: n, Issue: &issue,
	}))
	var want []string
	for _, k := range issueNoteKeys {
		if !strings.HasPrefix(k, "object_attributes.st_diff.") {
			want = append(want, k)
		}
	}
	assertKeys(t, body, want)
	ev := parseNote(t, body).(*gitlab.IssueCommentEvent)
	a, is := ev.ObjectAttributes, ev.Issue
	if a.ID != 1241 || a.Note != "Hello world" || a.NoteableType != "Issue" || a.NoteableID != 92 || !a.System ||
		a.URL != "http://example.com/mike/diaspora/issues/17#note_1241" {
		t.Errorf("decoded object_attributes = %+v", a)
	}
	if is.ID != 92 || is.IID != 17 || is.State != "closed" || is.Title != "test" || is.AssigneeID != 0 ||
		len(is.AssigneeIDs) != 0 || is.CreatedAt != "2015-04-12 14:53:17 UTC" {
		t.Errorf("decoded issue = %+v", is)
	}
	for _, s := range []string{`"assignee_ids":[]`, `"assignee_id":null`, `"branch_name":null`, `"system":true`} {
		if !strings.Contains(string(body), s) {
			t.Errorf("payload lacks %s: %s", s, body)
		}
	}
}

func TestSnippetNotePayload(t *testing.T) {
	created := time.Date(2015, 4, 9, 2, 40, 38, 0, time.UTC)
	snippet := domain.Snippet{ID: 53, ProjectID: 15, Title: "test", FileName: "test.rb", Content: "puts 'Hello world'",
		Visibility: domain.Private, AuthorID: 1, CreatedAt: created, UpdatedAt: created}
	body := marshal(t, apijson.NotePayload(apijson.NoteHookInput{
		Project: hookProject(), Author: pusher, Note: note(1245, domain.TargetSnippet, 53, "Is this snippet right?"),
		Snippet: &snippet,
	}))
	var want []string
	for _, k := range snippetNoteKeys {
		if !strings.HasPrefix(k, "object_attributes.st_diff.") {
			want = append(want, k)
		}
	}
	assertKeys(t, body, want)
	ev := parseNote(t, body).(*gitlab.SnippetCommentEvent)
	a, s := ev.ObjectAttributes, ev.Snippet
	if a.ID != 1245 || a.Note != "Is this snippet right?" || a.NoteableType != "Snippet" || a.NoteableID != 53 ||
		a.URL != "http://example.com/mike/diaspora/snippets/53#note_1245" {
		t.Errorf("decoded object_attributes = %+v", a)
	}
	if s == nil || s.ID != 53 || s.Title != "test" || s.Content != "puts 'Hello world'" || s.Filename != "test.rb" ||
		s.Type != "ProjectSnippet" || s.VisibilityLevel != 0 || s.ExpiresAt != "" || s.CreatedAt != "2015-04-09 02:40:38 UTC" {
		t.Errorf("decoded snippet = %+v", s)
	}
	if !strings.Contains(string(body), `"expires_at":null`) {
		t.Errorf("snippet payload: %s", body)
	}
}
