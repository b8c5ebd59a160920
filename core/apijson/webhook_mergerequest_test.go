package apijson_test

import (
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// Golden keys of the merge request event of GitLab 9.x's webhooks.md.
// The doc draws assignee inside object_attributes; GitLab 9.x's
// Issuable#to_hook_data puts a merge request's assignee at the top, next
// to labels, and that is what is sent.
var (
	hookUserKeys       = []string{"name", "username", "avatar_url"}
	hookRepositoryKeys = []string{"name", "url", "description", "homepage"}
	hookGitCommitKeys  = []string{"id", "message", "timestamp", "url", "author", "author.name", "author.email"}
	hookLabelKeys      = []string{"id", "title", "color", "project_id", "created_at",
		"updated_at", "template", "description", "type", "group_id"}
	mergeRequestKeys = joinKeys(
		[]string{"object_kind", "user", "project", "repository", "object_attributes", "labels", "assignee"},
		prefixed("user.", hookUserKeys),
		prefixed("project.", hookProjectKeys),
		prefixed("repository.", hookRepositoryKeys),
		prefixed("object_attributes.", []string{"id", "target_branch", "source_branch",
			"source_project_id", "author_id", "assignee_id", "title", "created_at", "updated_at",
			"milestone_id", "state", "merge_status", "target_project_id", "iid", "description",
			"source", "target", "last_commit", "work_in_progress", "url", "action"}),
		prefixed("object_attributes.source.", hookProjectKeys),
		prefixed("object_attributes.target.", hookProjectKeys),
		prefixed("object_attributes.last_commit.", hookGitCommitKeys),
		prefixed("labels[].", hookLabelKeys),
		prefixed("assignee.", hookUserKeys),
	)
)

func forkProject() apijson.HookProjectInput {
	return apijson.HookProjectInput{
		Project: domain.Project{ID: 14, Name: "Awesome Project", Path: "awesome_project",
			DefaultBranch: "master", Visibility: domain.Public},
		NamespaceName: "Awesome Space", FullPath: "awesome_space/awesome_project",
		WebURL: "http://example.com/awesome_space/awesome_project", SSHURL: "git@example.com:awesome_space/awesome_project.git",
		HTTPURL: "http://example.com/awesome_space/awesome_project.git",
	}
}

// headCommit is committed in +02:00, authored a day earlier elsewhere.
func headCommit() domain.Commit {
	zone := time.FixedZone("", 2*3600)
	return domain.Commit{ID: strings.Repeat("d", 40), Message: "fixed readme\n",
		Author:    domain.Signature{Name: "GitLab dev user", Email: "gitlabdev@example.com", When: time.Date(2012, 1, 2, 9, 0, 0, 0, time.UTC)},
		Committer: domain.Signature{Name: "Other", Email: "other@example.com", When: time.Date(2012, 1, 3, 23, 36, 29, 0, zone)}}
}

func mergeRequest() domain.MergeRequest {
	assignee, milestone := int64(6), int64(3)
	created := time.Date(2013, 12, 3, 17, 23, 34, 0, time.UTC)
	return domain.MergeRequest{ID: 99, IID: 1, ProjectID: 15, SourceProjectID: 14, TargetProjectID: 15,
		Title: "WIP: MS-Viewport", Description: "viewport", State: domain.MROpened,
		SourceBranch: "ms-viewport", TargetBranch: "master", AuthorID: 51, AssigneeID: &assignee,
		MilestoneID: &milestone, MergeStatus: domain.MergeUnchecked, SourceSHA: strings.Repeat("d", 40),
		CreatedAt: created, UpdatedAt: created.Add(time.Minute)}
}

func TestMergeRequestPayloadMatchesDocAndGoGitLab(t *testing.T) {
	fork, head := forkProject(), headCommit()
	assignee := domain.User{ID: 6, Username: "user1", Name: "User1"}
	label := domain.Label{ID: 206, ProjectID: 15, Name: "API", Color: "#ffffff", Description: "API related issues"}
	body := marshal(t, apijson.MergeRequestPayload(apijson.MergeRequestHookInput{
		Project: hookProject(), Source: &fork, Actor: pusher, MergeRequest: mergeRequest(),
		LastCommit: &head, Assignee: &assignee, Labels: []domain.Label{label},
		Action: apijson.MergeRequestActionOpen,
	}))
	assertKeys(t, body, mergeRequestKeys)

	ev, err := gitlab.ParseWebhook(gitlab.EventTypeMergeRequest, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the merge request payload: %v\n%s", err, body)
	}
	mr := ev.(*gitlab.MergeEvent)
	a := mr.ObjectAttributes
	if mr.ObjectKind != "merge_request" || a.ID != 99 || a.IID != 1 || a.Action != "open" || a.State != "opened" ||
		a.MergeStatus != "unchecked" || a.SourceProjectID != 14 || a.TargetProjectID != 15 ||
		a.SourceBranch != "ms-viewport" || a.TargetBranch != "master" || a.AuthorID != 51 ||
		a.AssigneeID != 6 || a.MilestoneID != 3 || a.Title != "WIP: MS-Viewport" || !a.WorkInProgress ||
		a.URL != "http://example.com/mike/diaspora/merge_requests/1" {
		t.Errorf("decoded object_attributes = %+v", a)
	}
	if a.CreatedAt != "2013-12-03T17:23:34Z" || a.UpdatedAt != "2013-12-03T17:24:34Z" {
		t.Errorf("timestamps %q %q", a.CreatedAt, a.UpdatedAt)
	}
	if a.Source == nil || a.Source.PathWithNamespace != "awesome_space/awesome_project" || a.Source.Namespace != "Awesome Space" ||
		a.Target == nil || a.Target.PathWithNamespace != "mike/diaspora" || a.Target.Homepage != "http://example.com/mike/diaspora" {
		t.Errorf("decoded source/target = %+v %+v", a.Source, a.Target)
	}
	lc := a.LastCommit
	// The timestamp is the committer's date, in the committer's offset.
	want := time.Date(2012, 1, 3, 21, 36, 29, 0, time.UTC)
	if lc.ID != head.ID || lc.Message != "fixed readme\n" || lc.Author.Name != "GitLab dev user" ||
		lc.URL != "http://example.com/mike/diaspora/commit/"+head.ID || lc.Timestamp == nil || !lc.Timestamp.Equal(want) {
		t.Errorf("decoded last_commit = %+v", lc)
	}
	if !strings.Contains(string(body), `"timestamp":"2012-01-03T23:36:29+02:00"`) {
		t.Errorf("last_commit timestamp not the committer's: %s", body)
	}
	if mr.User == nil || mr.User.Username != "jsmith" || len(mr.Labels) != 1 || mr.Labels[0].Title != "API" ||
		mr.Repository == nil || mr.Repository.URL != "git@example.com:mike/diaspora.git" {
		t.Errorf("decoded user/labels/repository = %+v %+v %+v", mr.User, mr.Labels, mr.Repository)
	}
	if !strings.Contains(string(body), `"assignee":{"name":"User1","username":"user1","avatar_url":null}`) {
		t.Errorf("payload lacks the top-level assignee: %s", body)
	}
}

func TestMergedMergeRequestWithinOneProject(t *testing.T) {
	mr := mergeRequest()
	mr.SourceProjectID, mr.AssigneeID, mr.MilestoneID, mr.State = 15, nil, nil, domain.MRMerged
	mr.Title = "Viewport"
	body := marshal(t, apijson.MergeRequestPayload(apijson.MergeRequestHookInput{
		Project: hookProject(), Actor: pusher, MergeRequest: mr, Action: apijson.MergeRequestActionMerge,
	}))
	var want []string
	for _, k := range mergeRequestKeys {
		if !strings.HasPrefix(k, "assignee") && !strings.HasPrefix(k, "labels[].") &&
			!strings.HasPrefix(k, "object_attributes.last_commit.") {
			want = append(want, k)
		}
	}
	assertKeys(t, body, want)
	for _, s := range []string{`"assignee_id":null`, `"milestone_id":null`, `"last_commit":null`, `"labels":[]`,
		`"work_in_progress":false`, `"action":"merge"`, `"state":"merged"`} {
		if !strings.Contains(string(body), s) {
			t.Errorf("payload lacks %s: %s", s, body)
		}
	}
	ev, err := gitlab.ParseWebhook(gitlab.EventTypeMergeRequest, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the merge request payload: %v", err)
	}
	a := ev.(*gitlab.MergeEvent).ObjectAttributes
	// Without a source project of its own, the source is the target.
	if a.Source == nil || a.Target == nil || a.Source.PathWithNamespace != "mike/diaspora" || *a.Source != *a.Target {
		t.Errorf("source %+v target %+v", a.Source, a.Target)
	}
}
