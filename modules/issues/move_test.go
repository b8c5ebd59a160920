package issues_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestMoveIssue moves an issue between projects on both storage drivers:
// what the new issue keeps, the copied discussion, the system notes and
// events, the closed original, and each refusal.
func TestMoveIssue(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		name string
		opts []apptest.Option
	}{{"sqlite", nil}, {"postgres", []apptest.Option{apptest.Postgres()}}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			testMove(t, newServer(t, v.opts...))
		})
	}
}

func testMove(t *testing.T, s *server) {
	src, dst, hidden := s.project("src", "private"), s.project("dst", "private"), s.project("hidden", "private")
	rep, half, gst, outsider := s.person("rep"), s.person("half"), s.person("gst"), s.person("outsider")
	s.member(src, rep, reporter)
	s.member(dst, rep, reporter)
	s.member(src, half, reporter)
	s.member(dst, half, guest)
	s.member(src, gst, guest)
	s.member(dst, gst, reporter)
	for _, p := range []int64{src, dst} {
		s.Expect(201, "POST", fmt.Sprintf("/projects/%d/milestones", p), s.RootToken, form("title", "v1"))
		s.Expect(201, "POST", fmt.Sprintf("/projects/%d/labels", p), s.RootToken, form("name", "bug", "color", "#FF0000"))
	}
	s.create(rep.token, dst, "Already there")
	var ms []milestoneJSON
	s.JSON(t, "GET", fmt.Sprintf("/projects/%d/milestones", src), rep.token, nil, 200, &ms)
	old := s.create(rep.token, src, "Crash", "description", "See #1", "labels", "bug,ux",
		"milestone_id", fmt.Sprint(ms[0].ID), "confidential", "true", "due_date", "2026-12-01",
		"assignee_ids[]", fmt.Sprint(rep.id))
	s.Expect(201, "POST", issuePath(src, old.IID, "/notes"), half.token, form("body", "me too"))
	s.Expect(201, "POST", issuePath(src, old.IID, "/award_emoji"), half.token, form("name", "thumbsup"))
	s.takeEvents()

	moved := s.issueCall(201, "POST", issuePath(src, old.IID, "/move"), rep.token, form("to_project_id", fmt.Sprint(dst)))
	if moved.ProjectID != dst || moved.IID != 2 || moved.Title != "Crash" || moved.Description != "See #1" ||
		join(moved.Labels) != "bug" || moved.Milestone == nil || moved.Milestone.ProjectID != dst ||
		!moved.Confidential || str(moved.DueDate) != "2026-12-01" || moved.Author.ID != rep.id ||
		moved.Assignee == nil || moved.Assignee.ID != rep.id || moved.State != "opened" ||
		moved.Upvotes != 1 || moved.UserNotesCount != 1 || moved.CreatedAt != old.CreatedAt {
		t.Fatalf("moved issue: %s", moved.Raw)
	}
	if got := s.get(rep.token, src, old.IID); got.State != "closed" || got.ClosedAt == nil {
		t.Fatalf("original after the move: %s", got.Raw)
	}
	wantNew := []string{fmt.Sprintf("%d: me too", half.id), fmt.Sprintf("%d: [system] moved from root/src#1", rep.id)}
	if got := s.allNotes(moved.ID); join(got) != join(wantNew) {
		t.Errorf("notes of the new issue %v, want %v", got, wantNew)
	}
	wantOld := []string{fmt.Sprintf("%d: me too", half.id), fmt.Sprintf("%d: [system] moved to root/dst#2", rep.id)}
	if got := s.allNotes(old.ID); join(got) != join(wantOld) {
		t.Errorf("notes of the original %v, want %v", got, wantOld)
	}
	wantEvents := []string{fmt.Sprintf("issue 2 created by %d", rep.id), fmt.Sprintf("issue 1 closed by %d", rep.id)}
	if got := s.takeEvents(); join(got) != join(wantEvents) {
		t.Errorf("events %v, want %v", got, wantEvents)
	}

	// A closed issue moves too; its copy opens and the original stays as it was.
	second := s.create(rep.token, src, "Closed one")
	s.update(rep.token, src, second.IID, "state_event", "close")
	if got := s.issueCall(201, "POST", issuePath(src, second.IID, "/move"), rep.token, form("to_project_id", fmt.Sprint(dst))); got.State != "opened" || got.Milestone != nil || len(got.Labels) != 0 {
		t.Fatalf("moved closed issue: %s", got.Raw)
	}

	third := s.create(rep.token, src, "Stays")
	move := func(iid int64) string { return issuePath(src, iid, "/move") }
	to := func(id int64) any { return form("to_project_id", fmt.Sprint(id)) }
	const denied = `{"message":"Cannot move issue due to insufficient permissions!"}`
	s.ExpectBody(400, denied, "POST", move(old.IID), rep.token, to(dst)) // moved already
	s.ExpectBody(400, denied, "POST", move(third.IID), half.token, to(dst))
	s.ExpectBody(400, denied, "POST", move(third.IID), gst.token, to(dst))
	s.ExpectBody(400, `{"message":"Cannot move issue to project it originates from!"}`, "POST", move(third.IID), rep.token, to(src))
	s.ExpectBody(404, projectNotFound, "POST", move(third.IID), rep.token, to(hidden))
	s.ExpectBody(404, projectNotFound, "POST", move(third.IID), rep.token, to(999999))
	s.ExpectBody(400, `{"error":"to_project_id is missing"}`, "POST", move(third.IID), rep.token, form())
	s.ExpectBody(404, issueNotFound, "POST", move(999), rep.token, to(dst))
	s.ExpectBody(404, projectNotFound, "POST", move(third.IID), outsider.token, to(dst))
	s.ExpectBody(401, unauthorized, "POST", move(third.IID), "", to(dst))
	if got := s.get(rep.token, src, third.IID); got.State != "opened" {
		t.Fatalf("refused moves changed the issue: %s", got.Raw)
	}
}

// allNotes are an issue's notes as "author: body", oldest first, system
// notes marked.
func (s *server) allNotes(issueID int64) []string {
	s.t.Helper()
	list, _, err := s.notes.List(context.Background(), domain.TargetIssue, issueID, domain.Page{})
	if err != nil {
		s.t.Fatalf("notes of issue %d: %v", issueID, err)
	}
	out := []string{}
	for _, n := range list {
		sys := ""
		if n.System {
			sys = "[system] "
		}
		out = append(out, fmt.Sprintf("%d: %s%s", n.AuthorID, sys, n.Body))
	}
	return out
}

// TestConcurrentMoves: two moves of one issue at once make one copy; the
// other is refused as a move of a moved issue (the original is locked
// before its notes are read), on both storage drivers.
func TestConcurrentMoves(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		name string
		opts []apptest.Option
	}{{"sqlite", nil}, {"postgres", []apptest.Option{apptest.Postgres()}}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, v.opts...)
			src, dst := s.project("src", "private"), s.project("dst", "private")
			old := s.create(s.RootToken, src, "Twice")
			codes := make(chan int, 2)
			for range 2 {
				go func() {
					r := s.Send("POST", issuePath(src, old.IID, "/move"), s.RootToken, form("to_project_id", fmt.Sprint(dst)))
					codes <- r.Status
				}()
			}
			got := map[int]int{}
			for range 2 {
				got[<-codes]++
			}
			if got[201] != 1 || got[400] != 1 {
				t.Errorf("two concurrent moves answered %v, want one 201 and one 400", got)
			}
			var list []issueJSON
			s.JSON(t, "GET", fmt.Sprintf("/projects/%d/issues", dst), s.RootToken, nil, 200, &list)
			if len(list) != 1 {
				t.Errorf("target has %d issues after two concurrent moves, want 1", len(list))
			}
		})
	}
}
