package mergerequests_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestStateTransitions walks the spec's state table through HTTP on both
// storage drivers: create -> opened -> closed -> reopened -> merged.
func TestStateTransitions(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		name string
		opts []apptest.Option
	}{{"sqlite", nil}, {"postgres", []apptest.Option{apptest.Postgres()}}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			testStateTransitions(t, newServer(t, v.opts...))
		})
	}
}

func testStateTransitions(t *testing.T, s *mrServer) {
	r := s.seed("states", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)

	data := s.Expect(201, "POST", mrsPath(r.id), dev.token, form("source_branch", "feature",
		"target_branch", "master", "title", "Add feature", "description", "why it matters")).Body
	var m mrJSON
	decode(t, data, &m)
	if m.State != "opened" || m.IID != 1 || m.ProjectID != r.id || m.SourceProjectID != r.id || m.TargetProjectID != r.id ||
		m.SourceBranch != "feature" || m.TargetBranch != "master" || m.Title != "Add feature" || m.Description != "why it matters" {
		t.Fatalf("created: %+v", m)
	}
	if m.Author == nil || m.Author.ID != dev.id || m.Author.Username != "dev" || m.Assignee != nil {
		t.Fatalf("created author/assignee: %s", data)
	}
	if m.MergeStatus != "can_be_merged" || m.SHA != r.feature || m.MergeCommitSHA != nil || m.MergedAt != nil ||
		m.ClosedAt != nil || m.MergeWhenPipelineSucceeds || m.WorkInProgress || m.Labels == nil || len(m.Labels) != 0 {
		t.Fatalf("created merge fields: %s", data)
	}
	// Nullable fields are present as null, not omitted.
	for _, k := range []string{"assignee", "milestone", "merge_commit_sha", "merged_at", "closed_at"} {
		if !strings.Contains(string(data), `"`+k+`":null`) {
			t.Errorf("created: %q is not null in %s", k, data)
		}
	}
	if got := s.get(dev.token, r.id, 1); got.State != "opened" || got.ID != m.ID || got.SHA != r.feature {
		t.Fatalf("get after create: %+v", got)
	}

	closed := s.mrCall(200, "PUT", mrPath(r.id, 1, ""), dev.token, form("state_event", "close"))
	if closed.State != "closed" || closed.ClosedAt == nil || closed.MergedAt != nil {
		t.Fatalf("close: %+v", closed)
	}
	if again := s.mrCall(200, "PUT", mrPath(r.id, 1, ""), dev.token, form("state_event", "close")); again.State != "closed" {
		t.Fatalf("repeat close: %+v", again)
	}
	if got := s.get(dev.token, r.id, 1); got.State != "closed" {
		t.Fatalf("get after close: %+v", got)
	}

	reopened := s.mrCall(200, "PUT", mrPath(r.id, 1, ""), dev.token, form("state_event", "reopen"))
	if reopened.State != "reopened" {
		t.Fatalf("reopen: %+v", reopened)
	}
	if got := s.get(dev.token, r.id, 1); got.State != "reopened" {
		t.Fatalf("get after reopen: %+v", got)
	}

	merged := s.mrCall(200, "PUT", mrPath(r.id, 1, "/merge"), dev.token, form("should_remove_source_branch", "true"))
	head, _ := s.head(r.id, "master")
	if merged.State != "merged" || merged.MergeCommitSHA == nil || *merged.MergeCommitSHA != head || merged.MergedAt == nil {
		t.Fatalf("merge: state %q merge_commit_sha %s (master %s) merged_at %s", merged.State, str(merged.MergeCommitSHA), head, str(merged.MergedAt))
	}
	c := s.gitCommit(r.id, head)
	if !reflect.DeepEqual(c.ParentIDs, []string{r.master, r.feature}) {
		t.Fatalf("merge commit parents %v, want [%s %s]", c.ParentIDs, r.master, r.feature)
	}
	wantMsg := "Merge branch 'feature' into 'master'\n\nAdd feature\n\nSee merge request root/states!1"
	if got := strings.TrimRight(c.Message, "\n"); got != wantMsg {
		t.Fatalf("merge commit message %q, want %q", got, wantMsg)
	}
	if _, ok := s.head(r.id, "feature"); ok {
		t.Fatal("should_remove_source_branch=true left the source branch")
	}

	// state_event on a merged merge request changes nothing.
	for _, ev := range []string{"close", "reopen"} {
		if got := s.mrCall(200, "PUT", mrPath(r.id, 1, ""), dev.token, form("state_event", ev)); got.State != "merged" {
			t.Fatalf("state_event=%s on merged: %+v", ev, got)
		}
	}
	if got := s.get(dev.token, r.id, 1); got.State != "merged" || str(got.MergeCommitSHA) != head || got.SHA != r.feature {
		t.Fatalf("get after merge: state %q merge_commit_sha %s sha %s", got.State, str(got.MergeCommitSHA), got.SHA)
	}
}

// TestMergeSourceBranchRemoval: should_remove_source_branch and the
// creator's remove_source_branch delete the source, unless it is
// protected; without either the source stays. merge_commit_message is used.
func TestMergeSourceBranchRemoval(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("removal", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)

	s.protect(r.id, "feature", true, true)
	s.create(dev.token, r.id, "feature", "master", "Protected source")
	m := s.mrCall(200, "PUT", mrPath(r.id, 1, "/merge"), dev.token, form("should_remove_source_branch", "true"))
	if m.State != "merged" {
		t.Fatalf("merge of protected source: %+v", m)
	}
	if head, ok := s.head(r.id, "feature"); !ok || head != r.feature {
		t.Fatalf("protected source branch was removed or moved: %q %v", head, ok)
	}

	forced := s.branch(r, "forced")
	created := s.create(dev.token, r.id, "forced", "master", "Forced removal", "remove_source_branch", "true")
	if !created.ForceRemoveSourceBranch {
		t.Fatalf("remove_source_branch=true: force_remove_source_branch false")
	}
	if m := s.mrCall(200, "PUT", mrPath(r.id, 2, "/merge"), dev.token, nil); m.State != "merged" {
		t.Fatalf("merge of forced: %+v", m)
	}
	if _, ok := s.head(r.id, "forced"); ok {
		t.Fatal("force_remove_source_branch did not remove the source branch")
	}
	if c := s.gitCommit(r.id, "master"); len(c.ParentIDs) != 2 || c.ParentIDs[1] != forced {
		t.Fatalf("master after forced merge: parents %v", c.ParentIDs)
	}

	kept := s.branch(r, "kept")
	s.create(dev.token, r.id, "kept", "master", "Kept")
	m = s.mrCall(200, "PUT", mrPath(r.id, 3, "/merge"), dev.token, form("merge_commit_message", "Custom merge message"))
	if m.State != "merged" {
		t.Fatalf("merge of kept: %+v", m)
	}
	if head, ok := s.head(r.id, "kept"); !ok || head != kept {
		t.Fatal("source branch removed without being asked to")
	}
	if c := s.gitCommit(r.id, *m.MergeCommitSHA); strings.TrimRight(c.Message, "\n") != "Custom merge message" {
		t.Fatalf("merge_commit_message ignored: %q", c.Message)
	}
}

// TestMergeWhenPipelineSucceeds: the merge waits for a pipeline on the
// source head, then happens when one succeeds.
func TestMergeWhenPipelineSucceeds(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("mwps", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	s.create(dev.token, r.id, "feature", "master", "Wait for CI")

	m := s.mrCall(200, "PUT", mrPath(r.id, 1, "/merge"), dev.token, form("merge_when_pipeline_succeeds", "true"))
	if m.State != "opened" || !m.MergeWhenPipelineSucceeds || m.MergeCommitSHA != nil {
		t.Fatalf("merge_when_pipeline_succeeds: %+v", m)
	}
	if got := s.get(dev.token, r.id, 1); got.State != "opened" || !got.MergeWhenPipelineSucceeds {
		t.Fatalf("get after MWPS: %+v", got)
	}
	if head, _ := s.head(r.id, "master"); head != r.master {
		t.Fatalf("MWPS merged at once: master %s", head)
	}

	// A pipeline on another commit does not merge it. The bus is
	// synchronous: whatever the success triggers has run when it returns.
	s.pipelineSucceeded(r.id, "feature", r.base)
	if got := s.get(dev.token, r.id, 1); got.State != "opened" {
		t.Fatalf("pipeline on another SHA merged it: %+v", got)
	}

	s.pipelineSucceeded(r.id, "feature", r.feature)
	got := s.get(dev.token, r.id, 1)
	if got.State != "merged" {
		t.Fatalf("after the pipeline succeeded: %+v", got)
	}
	head, _ := s.head(r.id, "master")
	if str(got.MergeCommitSHA) != head {
		t.Fatalf("merge_commit_sha %s, master %s", str(got.MergeCommitSHA), head)
	}
	if c := s.gitCommit(r.id, head); !reflect.DeepEqual(c.ParentIDs, []string{r.master, r.feature}) {
		t.Fatalf("deferred merge commit parents %v", c.ParentIDs)
	}
}

// TestCancelMergeWhenPipelineSucceeds: cancelling clears the flag and a
// later pipeline no longer merges.
func TestCancelMergeWhenPipelineSucceeds(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("cancel", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	s.create(dev.token, r.id, "feature", "master", "Wait for CI")
	s.mrCall(200, "PUT", mrPath(r.id, 1, "/merge"), dev.token, form("merge_when_pipeline_succeeds", "true"))

	m := s.mrCall(200, "PUT", mrPath(r.id, 1, "/cancel_merge_when_pipeline_succeeds"), dev.token, nil)
	if m.MergeWhenPipelineSucceeds || m.State != "opened" {
		t.Fatalf("cancel: %+v", m)
	}
	if got := s.get(dev.token, r.id, 1); got.MergeWhenPipelineSucceeds {
		t.Fatalf("get after cancel: %+v", got)
	}
	s.pipelineSucceeded(r.id, "feature", r.feature)
	if got := s.get(dev.token, r.id, 1); got.State != "opened" {
		t.Fatalf("a cancelled MWPS merged: %+v", got)
	}
	if head, _ := s.head(r.id, "master"); head != r.master {
		t.Fatalf("master moved after cancel: %s", head)
	}
}

// TestMergedOutside: when the target branch comes to contain the source
// head (a fast-forward push), the merge request reads as merged without a
// merge commit.
func TestMergedOutside(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("outside", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	ff := s.branch(r, "ff")
	s.create(dev.token, r.id, "ff", "master", "Fast forward")

	s.moveRef(r.id, "master", ff, r.master)
	data := s.Expect(200, "GET", mrPath(r.id, 1, ""), dev.token, nil).Body
	var m mrJSON
	decode(t, data, &m)
	if m.State != "merged" || !strings.Contains(string(data), `"merge_commit_sha":null`) {
		t.Fatalf("after master took the source head: %s", data)
	}
	if list, _ := s.list(dev.token, mrsPath(r.id)+"?state=merged"); !reflect.DeepEqual(iids(list), []int64{1}) {
		t.Fatalf("state=merged lists %v", iids(list))
	}
	if list, _ := s.list(dev.token, mrsPath(r.id)+"?state=opened"); len(list) != 0 {
		t.Fatalf("state=opened still lists %v", iids(list))
	}
}

// TestSourcePushRecomputes: a new commit on the source branch moves "sha"
// and re-computes merge_status.
func TestSourcePushRecomputes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("push", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	if m := s.create(dev.token, r.id, "feature", "master", "Will conflict"); m.MergeStatus != "can_be_merged" || m.SHA != r.feature {
		t.Fatalf("created: %+v", m)
	}

	var c struct{ ID string }
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/repository/commits", r.id), dev.token, map[string]any{
		"branch": "feature", "commit_message": "Touch README",
		"actions": []map[string]string{{"action": "update", "file_path": "README.md", "content": "feature side\n"}},
	}, 201, &c)
	// The push event was handled before the commit API answered (and a
	// read refreshes from git anyway).
	m := s.get(dev.token, r.id, 1)
	if m.SHA != c.ID {
		t.Fatalf("sha %s, want the source head %s", m.SHA, c.ID)
	}
	if m.MergeStatus != "cannot_be_merged" {
		t.Fatalf("merge_status after a conflicting push: %q", m.MergeStatus)
	}
	s.ExpectBody(405, `{"message":"Branch cannot be merged"}`, "PUT", mrPath(r.id, 1, "/merge"), dev.token, nil)
}

// TestMergeRequestFields: labels, WIP, web_url, counters, assignee filter,
// milestone, merge_status at create, and what update changes.
func TestMergeRequestFields(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("fields", "private")
	dev, rep, outsider := s.person("dev"), s.person("rep"), s.person("outsider")
	s.member(r.id, dev, developer)
	s.member(r.id, rep, reporter)

	m := s.create(dev.token, r.id, "feature", "master", "Labels", "labels", "b, a,a", "assignee_id", fmt.Sprint(rep.id))
	if !reflect.DeepEqual(m.Labels, []string{"a", "b"}) {
		t.Fatalf("labels %q, want [a b]", m.Labels)
	}
	if want := s.URL + "/root/fields/merge_requests/1"; m.WebURL != want {
		t.Fatalf("web_url %q, want %q", m.WebURL, want)
	}
	if m.UserNotesCount != 0 || m.Upvotes != 0 || m.Downvotes != 0 || m.WorkInProgress {
		t.Fatalf("counters: %+v", m)
	}
	if m.Assignee == nil || m.Assignee.ID != rep.id {
		t.Fatalf("assignee: %+v", m.Assignee)
	}

	for i, title := range []string{"WIP: first", "[WIP] second", "Not WIP at the end"} {
		src := fmt.Sprintf("wip%d", i)
		s.branch(r, src)
		m := s.create(dev.token, r.id, src, "master", title)
		if want := i < 2; m.WorkInProgress != want {
			t.Errorf("title %q: work_in_progress %v, want %v", title, m.WorkInProgress, want)
		}
	}

	// Assignees who cannot read the project, or do not exist, are dropped.
	s.branch(r, "assign-outsider")
	if m := s.create(dev.token, r.id, "assign-outsider", "master", "Outsider", "assignee_id", fmt.Sprint(outsider.id)); m.Assignee != nil {
		t.Errorf("outsider kept as assignee: %+v", m.Assignee)
	}
	s.branch(r, "assign-unknown")
	if m := s.create(dev.token, r.id, "assign-unknown", "master", "Unknown", "assignee_id", "987654"); m.Assignee != nil {
		t.Errorf("unknown user kept as assignee: %+v", m.Assignee)
	}

	s.branch(r, "milestone")
	s.ExpectBody(404, `{"message":"404 Milestone Not Found"}`, "POST", mrsPath(r.id), dev.token,
		form("source_branch", "milestone", "target_branch", "master", "title", "M", "milestone_id", "3"))

	// Conflicts show at once, before any merge attempt.
	c := s.create(dev.token, r.id, "conflict", "master", "Conflicting")
	if c.MergeStatus != "cannot_be_merged" {
		t.Fatalf("conflicting create: merge_status %q", c.MergeStatus)
	}
	if got := s.get(dev.token, r.id, c.IID); got.MergeStatus != "cannot_be_merged" {
		t.Fatalf("conflicting get: merge_status %q", got.MergeStatus)
	}

	// Update: a target without the conflicting change re-computes the status.
	s.moveRef(r.id, "oldbase", r.base, "0000000000000000000000000000000000000000")
	u := s.mrCall(200, "PUT", mrPath(r.id, c.IID, ""), dev.token, form("target_branch", "oldbase"))
	if u.TargetBranch != "oldbase" || u.MergeStatus != "can_be_merged" {
		t.Fatalf("retarget: target %q merge_status %q", u.TargetBranch, u.MergeStatus)
	}
	u = s.mrCall(200, "PUT", mrPath(r.id, c.IID, ""), dev.token, form("title", "[WIP] Conflicting", "labels", "z,y", "description", "d2"))
	if !u.WorkInProgress || u.Title != "[WIP] Conflicting" || !reflect.DeepEqual(u.Labels, []string{"y", "z"}) || u.Description != "d2" {
		t.Fatalf("update title/labels/description: %+v", u)
	}
}
