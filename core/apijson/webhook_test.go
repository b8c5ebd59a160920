package apijson_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// Golden key lists, transcribed from the request bodies of GitLab 9.x's
// doc/user/project/integrations/webhooks.md (push, tag push and issue
// events). Arrays of objects are written "key[].field".
var (
	hookProjectKeys = []string{
		"name", "description", "web_url", "avatar_url", "git_ssh_url", "git_http_url",
		"namespace", "visibility_level", "path_with_namespace", "default_branch",
		"homepage", "url", "ssh_url", "http_url",
	}
	pushKeys = joinKeys(
		[]string{"object_kind", "before", "after", "ref", "checkout_sha", "message",
			"user_id", "user_name", "user_username", "user_email", "user_avatar", "project_id",
			"project", "repository", "commits", "total_commits_count"},
		prefixed("project.", hookProjectKeys),
		prefixed("repository.", []string{"name", "url", "description", "homepage",
			"git_http_url", "git_ssh_url", "visibility_level"}),
		prefixed("commits[].", []string{"id", "message", "timestamp", "url", "author",
			"author.name", "author.email", "added", "modified", "removed"}),
	)
	issueKeys = joinKeys(
		[]string{"object_kind", "user", "project", "repository", "object_attributes",
			"assignees", "assignee", "labels"},
		prefixed("user.", []string{"name", "username", "avatar_url"}),
		prefixed("project.", hookProjectKeys),
		prefixed("repository.", []string{"name", "url", "description", "homepage"}),
		prefixed("object_attributes.", []string{"id", "title", "assignee_ids", "assignee_id",
			"author_id", "project_id", "created_at", "updated_at", "position", "branch_name",
			"description", "milestone_id", "state", "iid", "url", "action",
			"confidential", "due_date"}),
		prefixed("assignees[].", []string{"name", "username", "avatar_url"}),
		prefixed("assignee.", []string{"name", "username", "avatar_url"}),
		prefixed("labels[].", []string{"id", "title", "color", "project_id", "created_at",
			"updated_at", "template", "description", "type", "group_id"}),
	)
)

func prefixed(p string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = p + k
	}
	return out
}

func joinKeys(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	sort.Strings(out)
	return out
}

// keysOf lists every object key of a JSON document, nested ones as paths.
func keysOf(t *testing.T, body []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode payload: %v", err)
	}
	set := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, child := range x {
				set[prefix+k] = true
				walk(prefix+k+".", child)
			}
		case []any:
			for _, child := range x {
				walk(strings.TrimSuffix(prefix, ".")+"[].", child)
			}
		}
	}
	walk("", v)
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func assertKeys(t *testing.T, body []byte, want []string) {
	t.Helper()
	got := keysOf(t, body)
	for _, k := range want {
		if !slices.Contains(got, k) {
			t.Errorf("missing key %s", k)
		}
	}
	for _, k := range got {
		if !slices.Contains(want, k) {
			t.Errorf("undocumented key %s", k)
		}
	}
}

func hookProject() apijson.HookProjectInput {
	return apijson.HookProjectInput{
		Project: domain.Project{ID: 15, Name: "Diaspora", Path: "diaspora", Description: "A network",
			DefaultBranch: "master", Visibility: domain.Internal},
		NamespaceName: "Mike", FullPath: "mike/diaspora",
		WebURL: "http://example.com/mike/diaspora", SSHURL: "git@example.com:mike/diaspora.git",
		HTTPURL: "http://example.com/mike/diaspora.git",
	}
}

var pusher = domain.User{ID: 4, Username: "jsmith", Name: "John Smith", Email: "john@example.com",
	AvatarURL: "http://example.com/uploads/user/avatar/4/a.png"}

// pushCommits makes n commits, newest first, one minute apart, in +02:00.
func pushCommits(n int) []apijson.PushHookCommit {
	zone := time.FixedZone("", 2*3600)
	base := time.Date(2012, 1, 3, 23, 36, 29, 0, zone)
	out := make([]apijson.PushHookCommit, n)
	for i := range out {
		seq := n - i // the newest has the highest number
		out[i] = apijson.PushHookCommit{
			PushCommit: domain.PushCommit{ID: fmt.Sprintf("%040x", seq), Message: fmt.Sprintf("change %d\n", seq),
				Timestamp: base.Add(time.Duration(seq) * time.Minute),
				Author:    domain.Signature{Name: "Jordi Mallach", Email: "jordi@softcatala.org"}},
			Added: []string{"CHANGELOG"}, Modified: []string{"app/controller/application.rb"},
		}
	}
	return out
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal payload: %v", err)
	}
	return body
}

func TestPushPayloadMatchesDocAndGoGitLab(t *testing.T) {
	before, after := strings.Repeat("9", 40), fmt.Sprintf("%040x", 25)
	body := marshal(t, apijson.PushPayload(apijson.PushHookInput{
		Project: hookProject(), Pusher: pusher, Ref: "refs/heads/master",
		Before: before, After: after, Commits: pushCommits(25), TotalCommits: 25,
	}))
	assertKeys(t, body, pushKeys)

	ev, err := gitlab.ParseWebhook(gitlab.EventTypePush, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the push payload: %v\n%s", err, body)
	}
	push := ev.(*gitlab.PushEvent)
	if push.ObjectKind != "push" || push.Before != before || push.After != after ||
		push.Ref != "refs/heads/master" || push.CheckoutSHA != after {
		t.Errorf("decoded kind/before/after/ref/checkout = %q %q %q %q %q", push.ObjectKind, push.Before, push.After, push.Ref, push.CheckoutSHA)
	}
	if push.UserID != 4 || push.UserName != "John Smith" || push.UserUsername != "jsmith" ||
		push.UserEmail != "john@example.com" || push.UserAvatar != pusher.AvatarURL || push.ProjectID != 15 {
		t.Errorf("decoded user/project = %+v", push)
	}
	p := push.Project
	if p.Name != "Diaspora" || p.Namespace != "Mike" || p.PathWithNamespace != "mike/diaspora" ||
		p.WebURL != "http://example.com/mike/diaspora" || p.GitSSHURL != "git@example.com:mike/diaspora.git" ||
		p.URL != p.GitSSHURL || p.Homepage != p.WebURL || p.HTTPURL != "http://example.com/mike/diaspora.git" {
		t.Errorf("decoded project = %+v", p)
	}
	if push.TotalCommitsCount != 25 || len(push.Commits) != apijson.PushHookCommitLimit {
		t.Fatalf("decoded %d commits of %d, want 20 of 25", len(push.Commits), push.TotalCommitsCount)
	}
	// The newest 20 (6..25), oldest first: the last one is the pushed head.
	first, last := push.Commits[0], push.Commits[19]
	if first.ID != fmt.Sprintf("%040x", 6) || last.ID != after {
		t.Errorf("commit order: first %s last %s", first.ID, last.ID)
	}
	if last.Message != "change 25\n" || last.URL != "http://example.com/mike/diaspora/commit/"+after ||
		last.Author.Name != "Jordi Mallach" || last.Author.Email != "jordi@softcatala.org" ||
		!slices.Equal(last.Added, []string{"CHANGELOG"}) || len(last.Removed) != 0 {
		t.Errorf("decoded commit = %+v", last)
	}
	want := time.Date(2012, 1, 3, 21, 36+25, 29, 0, time.UTC)
	if last.Timestamp == nil || !last.Timestamp.Equal(want) {
		t.Errorf("timestamp = %v, want %v", last.Timestamp, want)
	}
	if !strings.Contains(string(body), `"timestamp":"2012-01-04T00:01:29+02:00"`) {
		t.Errorf("timestamp not in the committer's offset: %s", body)
	}
	for _, null := range []string{`"message":null`, `"avatar_url":null`} {
		if !strings.Contains(string(body), null) {
			t.Errorf("payload lacks %s", null)
		}
	}
	if !strings.Contains(string(body), `"visibility_level":10`) {
		t.Errorf("internal project is not visibility_level 10: %s", body)
	}
}

func TestTagPushPayload(t *testing.T) {
	tagObject, peeled := strings.Repeat("a", 40), strings.Repeat("b", 40)
	body := marshal(t, apijson.PushPayload(apijson.PushHookInput{
		Project: hookProject(), Pusher: pusher, Ref: "refs/tags/v1.0.0",
		Before: domain.ZeroID, After: tagObject, CheckoutSHA: peeled, Message: "Release 1.0",
		Commits: []apijson.PushHookCommit{},
	}))
	assertKeysNoCommits(t, body)
	ev, err := gitlab.ParseWebhook(gitlab.EventTypeTagPush, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the tag push payload: %v\n%s", err, body)
	}
	tag := ev.(*gitlab.TagEvent)
	if tag.ObjectKind != "tag_push" || tag.Ref != "refs/tags/v1.0.0" || tag.Before != domain.ZeroID ||
		tag.After != tagObject || tag.CheckoutSHA != peeled || tag.Message != "Release 1.0" ||
		tag.UserUsername != "jsmith" || tag.ProjectID != 15 || tag.TotalCommitsCount != 0 || len(tag.Commits) != 0 {
		t.Errorf("decoded tag push = %+v", tag)
	}
	if !strings.Contains(string(body), `"commits":[]`) {
		t.Errorf("commits not an empty list: %s", body)
	}
}

// assertKeysNoCommits checks a payload without commits: their keys cannot show.
func assertKeysNoCommits(t *testing.T, body []byte) {
	t.Helper()
	var want []string
	for _, k := range pushKeys {
		if !strings.HasPrefix(k, "commits[].") {
			want = append(want, k)
		}
	}
	assertKeys(t, body, want)
}

func TestDeletedBranchHasNoCheckoutSHA(t *testing.T) {
	body := marshal(t, apijson.PushPayload(apijson.PushHookInput{
		Project: hookProject(), Pusher: pusher, Ref: "refs/heads/gone",
		Before: strings.Repeat("c", 40), After: domain.ZeroID,
	}))
	assertKeysNoCommits(t, body)
	if !strings.Contains(string(body), `"checkout_sha":null`) || !strings.Contains(string(body), `"commits":[]`) {
		t.Errorf("deleted branch payload: %s", body)
	}
}

func TestIssuePayloadMatchesDocAndGoGitLab(t *testing.T) {
	assigneeID, due := int64(51), time.Date(2017, 9, 30, 0, 0, 0, 0, time.UTC)
	created := time.Date(2013, 12, 3, 17, 15, 43, 0, time.UTC)
	issue := domain.Issue{ID: 301, IID: 23, ProjectID: 15, Title: "New API", Description: "Create new API",
		State: domain.IssueClosed, AuthorID: 4, AssigneeID: &assigneeID, Labels: []string{"API"},
		DueDate: &due, CreatedAt: created, UpdatedAt: created.Add(time.Hour)}
	assignee := domain.User{ID: 51, Username: "user1", Name: "User1"}
	label := domain.Label{ID: 206, ProjectID: 15, Name: "API", Color: "#ffffff", Description: "API related issues",
		CreatedAt: created, UpdatedAt: created}
	body := marshal(t, apijson.IssuePayload(apijson.IssueHookInput{
		Project: hookProject(), Actor: pusher, Issue: issue, Assignee: &assignee,
		Labels: []domain.Label{label}, Action: apijson.IssueActionClose,
	}))
	assertKeys(t, body, issueKeys)

	ev, err := gitlab.ParseWebhook(gitlab.EventTypeIssue, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the issue payload: %v\n%s", err, body)
	}
	is := ev.(*gitlab.IssueEvent)
	a := is.ObjectAttributes
	if is.ObjectKind != "issue" || a.ID != 301 || a.IID != 23 || a.State != "closed" || a.Action != "close" ||
		a.ProjectID != 15 || a.AuthorID != 4 || a.AssigneeID != 51 || !slices.Equal(a.AssigneeIDs, []int64{51}) ||
		a.Title != "New API" || a.Description != "Create new API" ||
		a.URL != "http://example.com/mike/diaspora/issues/23" {
		t.Errorf("decoded object_attributes = %+v", a)
	}
	if a.CreatedAt != "2013-12-03T17:15:43Z" || a.UpdatedAt != "2013-12-03T18:15:43Z" {
		t.Errorf("timestamps %q %q", a.CreatedAt, a.UpdatedAt)
	}
	if a.DueDate == nil || time.Time(*a.DueDate).Format(time.DateOnly) != "2017-09-30" {
		t.Errorf("due date = %v", a.DueDate)
	}
	if is.User == nil || is.User.Username != "jsmith" || is.User.Name != "John Smith" {
		t.Errorf("decoded user = %+v", is.User)
	}
	if is.Assignee == nil || is.Assignee.Username != "user1" || is.Assignees == nil || len(*is.Assignees) != 1 {
		t.Errorf("decoded assignee(s) = %+v %+v", is.Assignee, is.Assignees)
	}
	if len(is.Labels) != 1 || is.Labels[0].Title != "API" || is.Labels[0].ID != 206 ||
		is.Labels[0].Color != "#ffffff" || is.Labels[0].Type != "ProjectLabel" {
		t.Errorf("decoded labels = %+v", is.Labels)
	}
	if is.Project.Name != "Diaspora" || is.Project.PathWithNamespace != "mike/diaspora" ||
		is.Repository == nil || is.Repository.Homepage != "http://example.com/mike/diaspora" {
		t.Errorf("decoded project/repository = %+v %+v", is.Project, is.Repository)
	}
}

func TestUnassignedIssueLeavesAssigneeOut(t *testing.T) {
	body := marshal(t, apijson.IssuePayload(apijson.IssueHookInput{
		Project: hookProject(), Actor: pusher, Action: apijson.IssueActionOpen,
		Issue: domain.Issue{ID: 1, IID: 1, ProjectID: 15, Title: "t", State: domain.IssueOpened},
	}))
	var want []string
	for _, k := range issueKeys {
		if !strings.HasPrefix(k, "assignee") && !strings.HasPrefix(k, "labels[].") {
			want = append(want, k)
		}
	}
	assertKeys(t, body, want)
	for _, s := range []string{`"assignee_id":null`, `"assignee_ids":[]`, `"labels":[]`, `"due_date":null`,
		`"milestone_id":null`, `"branch_name":null`, `"position":0`, `"action":"open"`} {
		if !strings.Contains(string(body), s) {
			t.Errorf("payload lacks %s: %s", s, body)
		}
	}
	ev, err := gitlab.ParseWebhook(gitlab.EventTypeIssue, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the issue payload: %v", err)
	}
	if is := ev.(*gitlab.IssueEvent); is.Assignee != nil || is.ObjectAttributes.State != "opened" {
		t.Errorf("decoded = %+v", is)
	}
}
