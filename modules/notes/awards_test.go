package notes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestAwardNotesOnMergeRequest: a note of one emoji awards it instead of
// commenting; votes show as upvotes and downvotes, repeats answer the
// award already given, and other ":words:" stay comments.
func TestAwardNotesOnMergeRequest(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("votes", "public")
	mrID, iid := s.mr(pid, "feature", "Vote on me")
	alice, bob := s.person("alice"), s.person("bob")
	path := notesPath(pid, "merge_requests", iid)

	var up awardJSON
	s.Expect(201, "POST", path, alice.token, apptest.Form("body", ":+1:")).Decode(t, &up)
	if up.ID == 0 || up.Name != "thumbsup" || up.AwardableType != "MergeRequest" || up.AwardableID != mrID ||
		up.User == nil || up.User.Username != "alice" || up.CreatedAt == "" || up.UpdatedAt != up.CreatedAt {
		t.Errorf("award = %+v", up)
	}
	data := s.Expect(201, "POST", path, alice.token, apptest.Form("body", ":thumbsup:")).Body
	wantKeys := []string{"awardable_id", "awardable_type", "created_at", "id", "name", "updated_at", "user"}
	if got := keys(t, data); fmt.Sprint(got) != fmt.Sprint(wantKeys) {
		t.Errorf("award keys = %v, want %v", got, wantKeys)
	}
	var again awardJSON
	if err := json.Unmarshal(data, &again); err != nil {
		t.Fatal(err)
	}
	if again.ID != up.ID || again.Name != "thumbsup" {
		t.Errorf("repeated award = %+v, want the first one %+v", again, up)
	}
	s.Expect(201, "POST", path, bob.token, apptest.Form("body", ":-1: "))
	s.Expect(201, "POST", path, bob.token, apptest.Form("body", ":thumbsup:"))
	var tada awardJSON
	s.Expect(201, "POST", path, bob.token, apptest.Form("body", ":tada:")).Decode(t, &tada)
	if tada.Name != "tada" {
		t.Errorf("tada award = %+v", tada)
	}
	m := s.mrRead(alice.token, pid, iid)
	if m.Upvotes != 2 || m.Downvotes != 1 || m.UserNotesCount != 0 {
		t.Errorf("merge request = %+v, want 2 up, 1 down, no user notes", m)
	}
	var list []struct {
		Upvotes, Downvotes int
	}
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d/merge_requests", pid), alice.token, nil).Decode(t, &list)
	if len(list) != 1 || list[0].Upvotes != 2 || list[0].Downvotes != 1 {
		t.Errorf("merge request list votes = %+v", list)
	}

	// Not an award: unknown names, emoji among words.
	for _, body := range []string{":notanemoji:", ":+1: agreed", "agreed :+1:"} {
		n := s.post(alice.token, path, body)
		if n.Body != body || n.NoteableType != "MergeRequest" {
			t.Errorf("POST %q = %+v, want a comment", body, n)
		}
	}
	notes, _ := s.list(alice.token, path)
	if len(notes) != 3 {
		t.Errorf("notes = %d, want the 3 comments only", len(notes))
	}
	if got := s.mrRead(alice.token, pid, iid); got.UserNotesCount != 3 || got.Upvotes != 2 {
		t.Errorf("after comments: %+v", got)
	}
	// Anonymous awards are refused like notes.
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", path, "", apptest.Form("body", ":+1:"))
}

// TestAwardMarksTodosDone: awarding an emoji on a merge request marks the
// caller's pending todos on it done, as GitLab does.
func TestAwardMarksTodosDone(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("todos", "public")
	_, iid := s.mr(pid, "feature", "Todo")
	alice := s.person("alice")
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/merge_requests/%d/todo", pid, iid), alice.token, nil)
	pending := func() int {
		t.Helper()
		_, n, err := s.todos.List(context.Background(), domain.TodoFilter{UserID: alice.id, State: domain.TodoPending,
			Page: domain.Page{Page: 1, PerPage: 10}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if pending() != 1 {
		t.Fatalf("pending todos = %d, want 1", pending())
	}
	s.post(alice.token, notesPath(pid, "merge_requests", iid), "a comment keeps it")
	if pending() != 1 {
		t.Errorf("a comment marked the todo done")
	}
	s.Expect(201, "POST", notesPath(pid, "merge_requests", iid), alice.token, apptest.Form("body", ":thumbsup:"))
	if n := pending(); n != 0 {
		t.Errorf("pending todos after the award = %d, want 0", n)
	}
}

// TestDeletedNoteTakesItsAwards: the awards given to a note go with it.
func TestDeletedNoteTakesItsAwards(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("awarded", "public")
	_, iid := s.mr(pid, "feature", "Awarded")
	alice := s.person("alice")
	n := s.post(alice.token, notesPath(pid, "merge_requests", iid), "award me")
	kept := s.post(alice.token, notesPath(pid, "merge_requests", iid), "keep me")
	for _, id := range []int64{n.ID, kept.ID} {
		if err := s.awards.Create(context.Background(), &domain.Award{Name: "tada", UserID: alice.id,
			AwardableType: domain.TargetNote, AwardableID: id}); err != nil {
			t.Fatal(err)
		}
	}
	s.Expect(204, "DELETE", notePath(pid, "merge_requests", iid, n.ID), alice.token, nil)
	if list, err := s.awardsOf(domain.TargetNote, n.ID); err != nil || len(list) != 0 {
		t.Errorf("awards of the deleted note: %d, %v", len(list), err)
	}
	if list, err := s.awardsOf(domain.TargetNote, kept.ID); err != nil || len(list) != 1 {
		t.Errorf("awards of the other note: %d, %v", len(list), err)
	}
}
