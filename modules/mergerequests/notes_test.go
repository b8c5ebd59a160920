package mergerequests_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TestSystemNotesAndEvents checks what a merge request's life leaves
// behind: system notes for each change (the notes module will list them),
// feed events opened/closed/reopened/merged, and a merged event naming
// the issues the merge closes.
func TestSystemNotesAndEvents(t *testing.T) {
	t.Parallel()
	var notes ports.NoteStore
	var closes [][]domain.IssueKey
	s := newServer(t, apptest.With(fx.Populate(&notes), fx.Invoke(func(bus ports.EventBus) {
		bus.Subscribe(domain.MergeRequestEvent{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
			if e := ev.(domain.MergeRequestEvent); e.Action == domain.ActionMerged {
				closes = append(closes, e.Closes)
			}
			return nil
		})
	})))
	r := s.seed("notes", "private")
	dev := s.person("dev")
	other := s.person("other")
	s.member(r.id, dev, developer)
	s.member(r.id, other, developer)
	sig := domain.Signature{Name: "Dev", Email: "dev@example.com", When: time.Now().UTC()}
	if _, err := s.Repos.CommitFiles(context.Background(), domain.RepoPath(r.id), domain.CommitFiles{
		Branch: "feature", Message: "Fix the parser\n\nThis fixes #7 and #8.", Author: sig, Committer: sig,
		Actions: []domain.FileAction{{Action: domain.FileCreate, Path: "fix.txt", Content: []byte("fix\n")}},
	}); err != nil {
		t.Fatal(err)
	}
	m := s.create(dev.token, r.id, "feature", "master", "Add feature", "description", "Closes #3, fixes #4")
	s.mrCall(200, "PUT", mrPath(r.id, m.IID, ""), dev.token, form("state_event", "close"))
	s.mrCall(200, "PUT", mrPath(r.id, m.IID, ""), dev.token, form("state_event", "reopen"))
	s.mrCall(200, "PUT", mrPath(r.id, m.IID, ""), dev.token, form("title", "WIP: Add feature", "labels", "b,a",
		"assignee_id", fmt.Sprint(other.id), "target_branch", "conflict"))
	s.mrCall(200, "PUT", mrPath(r.id, m.IID, ""), dev.token, form("title", "Add feature", "target_branch", "master"))
	merged := s.mrCall(200, "PUT", mrPath(r.id, m.IID, "/merge"), dev.token, nil)
	if merged.State != "merged" {
		t.Fatalf("merge: %+v", merged)
	}
	if !strings.Contains(s.gitCommit(r.id, *merged.MergeCommitSHA).Message, "Closes #3, #4, #7, and #8") {
		t.Errorf("merge message lacks the closing references: %q", s.gitCommit(r.id, *merged.MergeCommitSHA).Message)
	}

	list, _, err := notes.List(context.Background(), domain.TargetMergeRequest, m.ID, domain.Page{Page: 1, PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, n := range list {
		if !n.System || n.AuthorID != dev.id {
			t.Errorf("note %+v: want a system note by dev", n)
		}
		bodies = append(bodies, n.Body)
	}
	want := []string{
		"closed",
		"reopened",
		"changed title from **Add feature** to **WIP: Add feature**",
		"marked as a **Work In Progress**",
		"assigned to @other",
		"changed target branch from `master` to `conflict`",
		`added ~"a" ~"b" labels`,
		"changed title from **WIP: Add feature** to **Add feature**",
		"unmarked as a **Work In Progress**",
		"changed target branch from `conflict` to `master`",
		"merged",
	}
	if strings.Join(bodies, "\n") != strings.Join(want, "\n") {
		t.Errorf("system notes:\n%s\nwant:\n%s", strings.Join(bodies, "\n"), strings.Join(want, "\n"))
	}
	if got := s.get(dev.token, r.id, m.IID); got.UserNotesCount != 0 {
		t.Errorf("user_notes_count counts system notes: %d", got.UserNotesCount)
	}

	var events []struct {
		ActionName string `json:"action_name"`
		TargetType string `json:"target_type"`
		TargetID   int64  `json:"target_id"`
	}
	s.JSON(t, "GET", fmt.Sprintf("/projects/%d/events?target_type=merge_request&sort=asc", r.id), dev.token, nil, 200, &events)
	var actions []string
	for _, e := range events {
		if e.TargetType != "MergeRequest" || e.TargetID != m.ID {
			t.Errorf("event %+v: want target MergeRequest %d", e, m.ID)
		}
		actions = append(actions, e.ActionName)
	}
	if got := strings.Join(actions, ","); got != "opened,closed,reopened,accepted" {
		t.Errorf("feed actions %s, want opened,closed,reopened,accepted", got)
	}

	// The merged event's after-commit subscribers ran before the merge answered.
	if len(closes) != 1 {
		t.Fatalf("merged events: %v", closes)
	}
	wantCloses := []domain.IssueKey{{ProjectID: r.id, IID: 3}, {ProjectID: r.id, IID: 4}, {ProjectID: r.id, IID: 7}, {ProjectID: r.id, IID: 8}}
	if fmt.Sprint(closes[0]) != fmt.Sprint(wantCloses) {
		t.Errorf("merged event closes %v, want %v", closes[0], wantCloses)
	}

	var closing []any
	s.JSON(t, "GET", mrPath(r.id, m.IID, "/closes_issues"), dev.token, nil, 200, &closing)
	if len(closing) != 0 {
		t.Errorf("closes_issues without an issues module: %v", closing)
	}
}
