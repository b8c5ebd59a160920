package contracttests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// issueStoreCases are the subtests of the stores of issues, milestones and labels.
func issueStoreCases() []storeCase {
	return []storeCase{
		{"ProjectDeleteLeavesNothing", storeProjectDeleteLeavesNothing},
		{"IssueCreateGet", storeIssueCreateGet},
		{"IssueIIDs", storeIssueIIDs},
		{"IssueUpdate", storeIssueUpdate},
		{"IssueDelete", storeIssueDelete},
		{"IssueGetManyByIIDs", storeIssueGetManyByIIDs},
		{"IssueListFilters", storeIssueListFilters},
		{"IssueListReadable", storeIssueListReadable},
		{"IssueListConfidential", storeIssueListConfidential},
		{"IssueListNamespaces", storeIssueListNamespaces},
		{"IssueListOrderPages", storeIssueListOrderPages},
		{"IssueNotesAndVotes", storeIssueNotesAndVotes},
		{"IssueCountOpen", storeIssueCountOpen},
		{"IssueTxRollback", storeIssueTxRollback},
		{"ConcurrentIssueIIDs", storeConcurrentIssueIIDs},
		{"ConcurrentIssueUpdates", storeConcurrentIssueUpdates},
		{"MilestoneCreateGet", storeMilestoneCreateGet},
		{"MilestoneUpdate", storeMilestoneUpdate},
		{"MilestoneDelete", storeMilestoneDelete},
		{"MilestoneList", storeMilestoneList},
		{"MilestoneGetManyIDsByTitle", storeMilestoneGetManyIDsByTitle},
		{"LabelCreateGetList", storeLabelCreateGetList},
		{"LabelEnsure", storeLabelEnsure},
		{"LabelUpdate", storeLabelUpdate},
		{"LabelDelete", storeLabelDelete},
		{"LabelCounts", storeLabelCounts},
	}
}

// storeIssue creates an open issue of p by author, created at storeT0;
// mod, when set, adjusts it first.
func storeIssue(t *testing.T, s Stores, p *domain.Project, author int64, title string, mod func(i *domain.Issue)) *domain.Issue {
	t.Helper()
	i := &domain.Issue{ProjectID: p.ID, Title: title, State: domain.IssueOpened, AuthorID: author, CreatedAt: storeT0, UpdatedAt: storeT0}
	if mod != nil {
		mod(i)
	}
	if err := s.Issues.Create(t.Context(), i); err != nil {
		t.Fatalf("create issue %s: %v", title, err)
	}
	return i
}

func storeIssueIIDList(is []domain.Issue) []int64 {
	return storeIDs(is, func(i domain.Issue) int64 { return i.IID })
}

func storeIssueIDList(is []domain.Issue) []int64 {
	return storeIDs(is, func(i domain.Issue) int64 { return i.ID })
}

// storeIssueIIDsOf lists the IIDs of issues.
func storeIssueIIDsOf(is ...*domain.Issue) []int64 {
	return storeIDs(is, func(i *domain.Issue) int64 { return i.IID })
}

// storeNoteOn adds a note to a noteable.
func storeNoteOn(t *testing.T, s Stores, p *domain.Project, typ string, id, author int64, system bool) *domain.Note {
	t.Helper()
	n := &domain.Note{ProjectID: &p.ID, NoteableType: typ, NoteableID: id, AuthorID: author, Body: "n", System: system}
	if err := s.Notes.Create(t.Context(), n); err != nil {
		t.Fatalf("create note on %s %d: %v", typ, id, err)
	}
	return n
}

// storeAwardOn gives an award emoji.
func storeAwardOn(t *testing.T, s Stores, user int64, typ string, id int64, name string) {
	t.Helper()
	if err := s.Awards.Create(t.Context(), &domain.Award{Name: name, UserID: user, AwardableType: typ, AwardableID: id}); err != nil {
		t.Fatalf("award %s to %s %d: %v", name, typ, id, err)
	}
}

// storeIssueWantUTC fails unless every time of i is in UTC.
func storeIssueWantUTC(t *testing.T, what string, i *domain.Issue) {
	t.Helper()
	for _, tm := range []*time.Time{&i.CreatedAt, &i.UpdatedAt, i.DueDate, i.ClosedAt} {
		if tm != nil && tm.Location() != time.UTC {
			t.Errorf("%s: time %v not in UTC", what, tm)
		}
	}
}

func storeIssueCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	zone := time.FixedZone("X", -5*3600)
	i := &domain.Issue{
		ProjectID: p.ID, Title: `Ünïcode "title"`, Description: "# Why\n\nbecause", State: domain.IssueReopened,
		AuthorID: alice.ID, AssigneeID: &bob.ID, MilestoneID: storePtr(int64(7)),
		Labels: []string{"bug", "Backend", "bug", "ä", "a b"}, Confidential: true, DueDate: storePtr(storeDay(2024, 5, 31)),
		UserNotesCount: 9, Upvotes: 3, Downvotes: 1,
		CreatedAt: storeT0.In(zone), UpdatedAt: storeT0.Add(time.Hour), ClosedAt: storePtr(storeT0.Add(2 * time.Hour).In(zone)),
	}
	want := *i
	if err := s.Issues.Create(ctx, i); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if i.ID <= 0 {
		t.Fatalf("Create set ID %d", i.ID)
	}
	// Counts are computed, never stored; labels sorted bytewise, unique.
	want.ID, want.IID, want.UserNotesCount, want.Upvotes, want.Downvotes = i.ID, 1, 0, 0, 0
	want.Labels = []string{"Backend", "a b", "bug", "ä"}
	if diff := cmp.Diff(&want, i); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	storeIssueWantUTC(t, "Create", i)
	got, err := s.Issues.Get(ctx, p.ID, 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	storeIssueWantUTC(t, "Get", got)

	// Defaults: opened, times now, no labels; a due date keeps its UTC day.
	before := time.Now().Add(-time.Second)
	bare := &domain.Issue{ProjectID: p.ID, Title: "bare", AuthorID: alice.ID, DueDate: storePtr(time.Date(2024, 6, 1, 23, 59, 0, 0, time.UTC))}
	if err := s.Issues.Create(ctx, bare); err != nil {
		t.Fatalf("Create bare: %v", err)
	}
	if bare.IID != 2 || bare.State != domain.IssueOpened || bare.Labels != nil || bare.AssigneeID != nil || bare.MilestoneID != nil || bare.Confidential {
		t.Errorf("defaults: %+v", bare)
	}
	if bare.DueDate == nil || !bare.DueDate.Equal(storeDay(2024, 6, 1)) {
		t.Errorf("DueDate = %v, want the day 2024-06-01", bare.DueDate)
	}
	if bare.CreatedAt.Before(before) || !bare.UpdatedAt.Equal(bare.CreatedAt) || bare.CreatedAt.Location() != time.UTC {
		t.Errorf("zero times: %v %v", bare.CreatedAt, bare.UpdatedAt)
	}
	got, err = s.Issues.Get(ctx, p.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(bare, got); diff != "" {
		t.Errorf("Get bare (-want +got):\n%s", diff)
	}

	_, err = s.Issues.Get(ctx, p.ID, 3)
	storeWantMsg(t, err, core.ErrNotFound, "404 Issue Not Found", "Get unknown IID")
	_, err = s.Issues.Get(ctx, other.ID, 1)
	storeWantKind(t, err, core.ErrNotFound, "Get IID of another project")
	err = s.Issues.Create(ctx, &domain.Issue{ProjectID: 99999, Title: "x", AuthorID: alice.ID})
	storeWantKind(t, err, core.ErrNotFound, "Create in unknown project")
	err = s.Issues.Create(ctx, &domain.Issue{ProjectID: p.ID, Title: "x", AuthorID: alice.ID, AssigneeID: storePtr(int64(99999))})
	storeWantKind(t, err, core.ErrNotFound, "Create with unknown assignee")
	// The failed create gave its IID back.
	if i := storeIssue(t, s, p, alice.ID, "next", nil); i.IID != 3 {
		t.Errorf("IID after a failed create = %d, want 3", i.IID)
	}
}

// storeIssueIIDs: IIDs count per project, apart from merge requests', and
// are never handed out again, not even after a delete.
func storeIssueIIDs(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	storeMR(t, s, p, alice.ID, "f", nil)
	for n, want := range []struct {
		p   *domain.Project
		iid int64
	}{{p, 1}, {p, 2}, {q, 1}, {p, 3}, {q, 2}} {
		if i := storeIssue(t, s, want.p, alice.ID, fmt.Sprint("i", n), nil); i.IID != want.iid {
			t.Errorf("issue %d in project %d: IID %d, want %d", n, want.p.ID, i.IID, want.iid)
		}
	}
	if err := s.Issues.Delete(ctx, p.ID, 3); err != nil {
		t.Fatal(err)
	}
	if i := storeIssue(t, s, p, alice.ID, "after-delete", nil); i.IID != 4 {
		t.Errorf("IID after deleting the last one = %d, want 4 (never reused)", i.IID)
	}
	if m := storeMR(t, s, p, alice.ID, "g", nil); m.IID != 2 {
		t.Errorf("merge request IID = %d, want 2 (its own counter)", m.IID)
	}
}

func storeIssueUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	i := storeIssue(t, s, p, alice.ID, "Old", func(i *domain.Issue) { i.Labels = []string{"a", "b"} })
	storeNoteOn(t, s, p, domain.TargetIssue, i.ID, bob.ID, false)
	storeAwardOn(t, s, bob.ID, domain.TargetIssue, i.ID, "thumbsup")
	before := time.Now().Add(-time.Second)
	got, err := s.Issues.Update(ctx, p.ID, i.IID, func(x *domain.Issue) error {
		if x.UserNotesCount != 1 || x.Upvotes != 1 || !slices.Equal(x.Labels, []string{"a", "b"}) {
			t.Errorf("fn sees %d notes, %d upvotes, labels %v", x.UserNotesCount, x.Upvotes, x.Labels)
		}
		x.Title, x.Description, x.AssigneeID, x.MilestoneID = "New", "desc", &bob.ID, storePtr(int64(3))
		x.Labels, x.Confidential, x.DueDate = []string{"c", "a", "c"}, true, storePtr(storeDay(2025, 1, 2))
		x.State, x.ClosedAt = domain.IssueClosed, storePtr(storeT0.Add(time.Hour))
		// Identity and the computed counts are not the caller's to change.
		x.ID, x.IID, x.ProjectID, x.UserNotesCount, x.Upvotes, x.Downvotes = 0, 99, other.ID, 42, 42, 42
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := *i
	want.Title, want.Description, want.AssigneeID, want.MilestoneID = "New", "desc", &bob.ID, storePtr(int64(3))
	want.Labels, want.Confidential, want.DueDate = []string{"a", "c"}, true, storePtr(storeDay(2025, 1, 2))
	want.State, want.ClosedAt, want.UserNotesCount, want.Upvotes = domain.IssueClosed, storePtr(storeT0.Add(time.Hour)), 1, 1
	want.UpdatedAt = got.UpdatedAt
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if got.UpdatedAt.Before(before) || got.UpdatedAt.Location() != time.UTC {
		t.Errorf("UpdatedAt = %v, want now in UTC", got.UpdatedAt)
	}
	read, err := s.Issues.Get(ctx, p.ID, i.IID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, read); diff != "" {
		t.Errorf("Get after Update (-want +got):\n%s", diff)
	}
	// An UpdatedAt set by fn is kept; labels, assignee and dates can be emptied.
	got, err = s.Issues.Update(ctx, p.ID, i.IID, func(x *domain.Issue) error {
		x.UpdatedAt, x.Labels, x.AssigneeID, x.DueDate, x.ClosedAt = storeT0.Add(5*time.Hour), nil, nil, nil, nil
		return nil
	})
	if err != nil || !got.UpdatedAt.Equal(storeT0.Add(5*time.Hour)) || got.Labels != nil || got.AssigneeID != nil || got.DueDate != nil {
		t.Errorf("Update with UpdatedAt: %+v, %v", got, err)
	}
	if read, _ := s.Issues.Get(ctx, p.ID, i.IID); read.Labels != nil || read.AssigneeID != nil || read.DueDate != nil || read.ClosedAt != nil {
		t.Errorf("after emptying: %+v", read)
	}
	// fn's error comes back as is and nothing is saved.
	boom := errors.New("boom")
	_, err = s.Issues.Update(ctx, p.ID, i.IID, func(x *domain.Issue) error {
		x.Title, x.Labels = "lost", []string{"lost"}
		return boom
	})
	if err != boom {
		t.Errorf("Update with failing fn = %v, want boom as is", err)
	}
	// An unknown assignee is not found and saves nothing either.
	_, err = s.Issues.Update(ctx, p.ID, i.IID, func(x *domain.Issue) error {
		x.Title, x.AssigneeID = "lost", storePtr(int64(99999))
		return nil
	})
	storeWantKind(t, err, core.ErrNotFound, "Update with unknown assignee")
	if read, _ := s.Issues.Get(ctx, p.ID, i.IID); read.Title != "New" || read.Labels != nil {
		t.Errorf("failed updates saved: %q %v", read.Title, read.Labels)
	}
	_, err = s.Issues.Update(ctx, p.ID, i.IID+1, func(*domain.Issue) error { return nil })
	storeWantMsg(t, err, core.ErrNotFound, "404 Issue Not Found", "Update unknown IID")
	_, err = s.Issues.Update(ctx, other.ID, i.IID, func(*domain.Issue) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update in another project")
}

// storeIssueDelete: an issue goes with its labels, notes, awards, todos
// and subscriptions; those of a merge request with the same ID stay.
func storeIssueDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p := storeRepoProject(t, s, "p")
	gone := storeIssue(t, s, p, alice.ID, "gone", func(i *domain.Issue) { i.Labels = []string{"x"} })
	kept := storeIssue(t, s, p, alice.ID, "kept", func(i *domain.Issue) { i.Labels = []string{"x"} })
	var goneNote int64
	for _, target := range []domain.Subject{{Type: domain.TargetIssue, ID: gone.ID}, {Type: domain.TargetIssue, ID: kept.ID}, {Type: domain.TargetMergeRequest, ID: gone.ID}} {
		n := storeNoteOn(t, s, p, target.Type, target.ID, alice.ID, false)
		if target.Type == domain.TargetIssue && target.ID == gone.ID {
			goneNote = n.ID
		}
		storeAwardOn(t, s, bob.ID, target.Type, target.ID, "thumbsup")
		if _, _, err := s.Todos.CreatePending(ctx, &domain.Todo{UserID: bob.ID, ProjectID: p.ID, AuthorID: alice.ID,
			TargetType: target.Type, TargetID: target.ID, Action: domain.TodoMarked}); err != nil {
			t.Fatal(err)
		}
		if err := s.Subscriptions.Set(ctx, target, bob.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	storeAwardOn(t, s, bob.ID, domain.TargetNote, goneNote, "smile")

	if err := s.Issues.Delete(ctx, p.ID, gone.IID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := s.Issues.Get(ctx, p.ID, gone.IID)
	storeWantKind(t, err, core.ErrNotFound, "Get deleted")
	storeWantMsg(t, s.Issues.Delete(ctx, p.ID, gone.IID), core.ErrNotFound, "404 Issue Not Found", "Delete again")
	storeWantKind(t, s.Issues.Delete(ctx, p.ID+1000, kept.IID), core.ErrNotFound, "Delete in another project")
	list, n, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: p.ID, Labels: []string{"x"}})
	storeWantList(t, "labelled after delete", storeIssueIIDList(list), n, err, []int64{kept.IID}, 1)

	left := func(target domain.Subject) (notes, awards, todos int, subscribed bool) {
		t.Helper()
		_, notes, err := s.Notes.List(ctx, target.Type, target.ID, domain.Page{})
		if err != nil {
			t.Fatal(err)
		}
		as, err := s.Awards.List(ctx, target.Type, target.ID)
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := s.Todos.List(ctx, domain.TodoFilter{UserID: bob.ID, TargetType: target.Type})
		if err != nil {
			t.Fatal(err)
		}
		for _, td := range ts {
			if td.TargetID == target.ID {
				todos++
			}
		}
		sub, err := s.Subscriptions.Get(ctx, target, bob.ID)
		if err != nil {
			t.Fatal(err)
		}
		return notes, len(as), todos, sub != nil && *sub
	}
	for _, c := range []struct {
		target domain.Subject
		left   bool
	}{
		{domain.Subject{Type: domain.TargetIssue, ID: gone.ID}, false},
		{domain.Subject{Type: domain.TargetIssue, ID: kept.ID}, true},
		{domain.Subject{Type: domain.TargetMergeRequest, ID: gone.ID}, true},
	} {
		notes, awards, todos, subscribed := left(c.target)
		if want := map[bool]int{true: 1, false: 0}[c.left]; notes != want || awards != want || todos != want || subscribed != c.left {
			t.Errorf("%s %d: %d notes, %d awards, %d todos, subscribed %v left; want %d each", c.target.Type, c.target.ID, notes, awards, todos, subscribed, want)
		}
	}
	if as, err := s.Awards.List(ctx, domain.TargetNote, goneNote); err != nil || len(as) != 0 {
		t.Errorf("awards of the deleted issue's note: %v, %v", as, err)
	}
	// A project takes its issues along.
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Issues.GetMany(ctx, []int64{kept.ID}); err != nil || len(got) != 0 {
		t.Errorf("issues of a deleted project: %v, %v", got, err)
	}
}

func storeIssueGetManyByIIDs(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	a := storeIssue(t, s, p, alice.ID, "a", func(i *domain.Issue) { i.Labels = []string{"z", "y"} })
	b := storeIssue(t, s, q, alice.ID, "b", nil)
	c := storeIssue(t, s, p, alice.ID, "c", nil)
	storeNoteOn(t, s, q, domain.TargetIssue, b.ID, alice.ID, false)
	got, err := s.Issues.GetMany(ctx, []int64{b.ID, a.ID, 99999, a.ID})
	if err != nil {
		t.Fatalf("GetMany: %v", err)
	}
	slices.SortFunc(got, func(x, y domain.Issue) int { return int(x.ID - y.ID) })
	wantB := *b
	wantB.UserNotesCount = 1
	if diff := cmp.Diff([]domain.Issue{*a, wantB}, got); diff != "" {
		t.Errorf("GetMany (-want +got):\n%s", diff)
	}
	for _, ids := range [][]int64{nil, {}, {99999}} {
		got, err := s.Issues.GetMany(ctx, ids)
		if err != nil || len(got) != 0 {
			t.Errorf("GetMany(%v) = %v, %v; want none", ids, got, err)
		}
	}
	// ByIIDs stays in its project: q's IID 1 is b, not a.
	got, err = s.Issues.ByIIDs(ctx, p.ID, []int64{c.IID, a.IID, 99, c.IID})
	if err != nil {
		t.Fatalf("ByIIDs: %v", err)
	}
	slices.SortFunc(got, func(x, y domain.Issue) int { return int(x.IID - y.IID) })
	if diff := cmp.Diff([]domain.Issue{*a, *c}, got); diff != "" {
		t.Errorf("ByIIDs (-want +got):\n%s", diff)
	}
	got, err = s.Issues.ByIIDs(ctx, q.ID, []int64{1, 2})
	storeWantIDs(t, "ByIIDs in q", storeIssueIDList(got), err, b.ID)
	got, err = s.Issues.ByIIDs(ctx, p.ID, nil)
	storeWantIDs(t, "ByIIDs of none", storeIssueIDList(got), err)
}

func storeIssueListFilters(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	h := time.Hour
	i1 := storeIssue(t, s, p, alice.ID, "Crash on start", func(i *domain.Issue) {
		i.Description, i.AssigneeID, i.MilestoneID, i.Labels = "it fails", &bob.ID, storePtr(int64(1)), []string{"ui", "bug"}
	})
	i2 := storeIssue(t, s, p, bob.ID, "50% slower", func(i *domain.Issue) {
		i.State, i.MilestoneID, i.Labels, i.CreatedAt = domain.IssueClosed, storePtr(int64(2)), []string{"bug"}, storeT0.Add(h)
	})
	i3 := storeIssue(t, s, p, alice.ID, "Under_score", func(i *domain.Issue) {
		i.Description, i.State, i.AssigneeID, i.CreatedAt = "Typo in the README", domain.IssueReopened, &alice.ID, storeT0.Add(2*h)
	})
	i4 := storeIssue(t, s, p, bob.ID, "Plain", func(i *domain.Issue) {
		i.Description, i.AssigneeID, i.MilestoneID, i.Labels, i.CreatedAt = "CRASH report", &bob.ID, storePtr(int64(1)), []string{"ui"}, storeT0.Add(3*h)
	})
	// The same everything in another project never shows.
	storeIssue(t, s, other, alice.ID, "Crash on start", func(i *domain.Issue) {
		i.AssigneeID, i.MilestoneID, i.Labels = &bob.ID, storePtr(int64(1)), []string{"ui", "bug"}
	})
	iids := storeIssueIIDsOf
	for _, c := range []struct {
		what string
		f    domain.IssueFilter
		want []int64
	}{
		{"all", domain.IssueFilter{}, iids(i1, i2, i3, i4)},
		{"opened includes reopened", domain.IssueFilter{States: []string{domain.IssueOpened}}, iids(i1, i3, i4)},
		{"opened and reopened", domain.IssueFilter{States: []string{domain.IssueOpened, domain.IssueReopened}}, iids(i1, i3, i4)},
		{"reopened", domain.IssueFilter{States: []string{domain.IssueReopened}}, iids(i3)},
		{"closed", domain.IssueFilter{States: []string{domain.IssueClosed}}, iids(i2)},
		{"iids", domain.IssueFilter{IIDs: []int64{i4.IID, i2.IID, 999}}, iids(i2, i4)},
		{"author", domain.IssueFilter{AuthorID: alice.ID}, iids(i1, i3)},
		{"assignee", domain.IssueFilter{AssigneeID: bob.ID}, iids(i1, i4)},
		{"milestone", domain.IssueFilter{MilestoneIDs: []int64{1}}, iids(i1, i4)},
		{"milestones", domain.IssueFilter{MilestoneIDs: []int64{1, 2}}, iids(i1, i2, i4)},
		{"no milestone", domain.IssueFilter{NoMilestone: true}, iids(i3)},
		{"one label", domain.IssueFilter{Labels: []string{"bug"}}, iids(i1, i2)},
		{"every label", domain.IssueFilter{Labels: []string{"bug", "ui"}}, iids(i1)},
		{"repeated label", domain.IssueFilter{Labels: []string{"ui", "ui"}}, iids(i1, i4)},
		{"unknown label", domain.IssueFilter{Labels: []string{"bug", "nope"}}, iids()},
		{"no labels", domain.IssueFilter{NoLabels: true}, iids(i3)},
		{"search title or description, any case", domain.IssueFilter{Search: "cRaSh"}, iids(i1, i4)},
		{"search in description", domain.IssueFilter{Search: "readme"}, iids(i3)},
		{"search % literally", domain.IssueFilter{Search: "0%"}, iids(i2)},
		{"search _ literally", domain.IssueFilter{Search: "r_s"}, iids(i3)},
		{"search _ alone", domain.IssueFilter{Search: "_"}, iids(i3)},
		{"search nothing", domain.IssueFilter{Search: "zzz"}, iids()},
		{"created after (inclusive)", domain.IssueFilter{CreatedAfter: storePtr(storeT0.Add(h))}, iids(i2, i3, i4)},
		{"created before (inclusive)", domain.IssueFilter{CreatedBefore: storePtr(storeT0.Add(2 * h))}, iids(i1, i2, i3)},
		{"created between", domain.IssueFilter{CreatedAfter: storePtr(storeT0.Add(h / 2)), CreatedBefore: storePtr(storeT0.Add(2 * h).In(time.FixedZone("Y", 7200)))}, iids(i2, i3)},
		{"combined", domain.IssueFilter{States: []string{domain.IssueOpened}, AuthorID: bob.ID, Labels: []string{"ui"}, Search: "crash"}, iids(i4)},
	} {
		f := c.f
		f.ProjectID, f.Ascending = p.ID, true
		list, n, err := s.Issues.List(ctx, f)
		storeWantList(t, c.what, storeIssueIIDList(list), n, err, c.want, len(c.want))
	}
	// Every item of a page carries its own labels.
	list, _, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: p.ID, Ascending: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][]string{}
	for _, i := range list {
		got[i.IID] = i.Labels
	}
	want := map[int64][]string{i1.IID: {"bug", "ui"}, i2.IID: {"bug"}, i3.IID: nil, i4.IID: {"ui"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels in the list (-want +got):\n%s", diff)
	}
}

func storeIssueListReadable(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	g := storeGroup(t, s, "g", nil, domain.Public)
	g2 := storeGroup(t, s, "g2", nil, domain.Private)
	pub := storeProject(t, s, g, "pub", func(p *domain.Project) { p.Visibility = domain.Public })
	intl := storeProject(t, s, g, "intl", func(p *domain.Project) { p.Visibility = domain.Internal })
	priv := storeProject(t, s, g, "priv", nil)
	priv2 := storeProject(t, s, g2, "priv2", nil)
	off := storeProject(t, s, g, "off", func(p *domain.Project) { p.Visibility, p.IssuesEnabled = domain.Public, false })
	ids := map[*domain.Project]int64{}
	for _, p := range []*domain.Project{pub, intl, priv, priv2, off} {
		ids[p] = storeIssue(t, s, p, alice.ID, "i", nil).ID
	}
	for _, c := range []struct {
		what string
		r    domain.ReadScope
		want []int64
	}{
		{"anonymous", domain.ReadScope{}, []int64{ids[pub]}},
		{"internal", domain.ReadScope{Internal: true}, []int64{ids[pub], ids[intl]}},
		{"member of a project", domain.ReadScope{ProjectIDs: []int64{priv.ID, priv.ID, off.ID}}, []int64{ids[pub], ids[priv]}},
		{"member of a group", domain.ReadScope{NamespaceIDs: []int64{g2.ID}}, []int64{ids[pub], ids[priv2]}},
		{"admin (issues disabled still hidden)", domain.ReadScope{All: true}, []int64{ids[pub], ids[intl], ids[priv], ids[priv2]}},
	} {
		list, n, err := s.Issues.List(ctx, domain.IssueFilter{Readable: c.r})
		storeWantIDs(t, c.what, storeIssueIDList(list), err, c.want...)
		if n != len(c.want) {
			t.Errorf("%s: total %d, want %d", c.what, n, len(c.want))
		}
	}
	// With a project the caller has checked access already.
	list, n, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: priv2.ID})
	storeWantList(t, "project without scope", storeIssueIDList(list), n, err, []int64{ids[priv2]}, 1)
	// Filters and pages apply across projects too.
	list, n, err = s.Issues.List(ctx, domain.IssueFilter{Readable: domain.ReadScope{All: true}, Ascending: true, Page: domain.Page{Page: 2, PerPage: 3}})
	storeWantList(t, "second page across projects", storeIssueIDList(list), n, err, []int64{ids[priv2]}, 4)
}

// storeIssueListNamespaces: NamespaceIDs keeps the issues of projects
// directly in the namespaces given (a group's tree), after the read scope,
// issues_enabled and the viewer; MilestoneTitle matches each project's
// milestone of that title. Totals count the same rows.
func storeIssueListNamespaces(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	g := storeGroup(t, s, "g", nil, domain.Public)
	sub := storeGroup(t, s, "sub", g, domain.Public)
	other := storeGroup(t, s, "other", nil, domain.Public)
	public := func(p *domain.Project) { p.Visibility = domain.Public }
	pub, subPub := storeProject(t, s, g, "pub", public), storeProject(t, s, sub, "subpub", public)
	priv := storeProject(t, s, sub, "priv", nil)
	off := storeProject(t, s, g, "off", func(p *domain.Project) { p.Visibility, p.IssuesEnabled = domain.Public, false })
	elsewhere := storeProject(t, s, other, "elsewhere", public)
	v1, subV1 := storeMilestone(t, s, pub, "v1", nil), storeMilestone(t, s, subPub, "v1", nil)
	v2 := storeMilestone(t, s, pub, "v2", nil)
	a := storeIssue(t, s, pub, alice.ID, "a", func(i *domain.Issue) { i.MilestoneID = &v1.ID })
	b := storeIssue(t, s, pub, alice.ID, "b", func(i *domain.Issue) { i.MilestoneID = &v2.ID })
	c := storeIssue(t, s, subPub, alice.ID, "c", func(i *domain.Issue) { i.MilestoneID = &subV1.ID })
	d := storeIssue(t, s, priv, alice.ID, "d", nil)
	secret := storeIssue(t, s, subPub, alice.ID, "secret", func(i *domain.Issue) { i.Confidential = true })
	storeIssue(t, s, off, alice.ID, "off", nil)
	e := storeIssue(t, s, elsewhere, alice.ID, "e", func(i *domain.Issue) { i.MilestoneID = &storeMilestone(t, s, elsewhere, "v1", nil).ID })
	tree := []int64{g.ID, sub.ID}
	for _, c := range []struct {
		what string
		f    domain.IssueFilter
		want []int64
	}{
		{"tree, anonymous", domain.IssueFilter{NamespaceIDs: tree}, []int64{a.ID, b.ID, c.ID}},
		{"tree, member of priv", domain.IssueFilter{NamespaceIDs: tree, Readable: domain.ReadScope{ProjectIDs: []int64{priv.ID}}}, []int64{a.ID, b.ID, c.ID, d.ID}},
		{"tree, admin", domain.IssueFilter{NamespaceIDs: tree, Readable: domain.ReadScope{All: true}, Viewer: domain.IssueViewer{All: true}},
			[]int64{a.ID, b.ID, c.ID, d.ID, secret.ID}},
		{"subgroup only", domain.IssueFilter{NamespaceIDs: []int64{sub.ID}, Readable: domain.ReadScope{All: true}}, []int64{c.ID, d.ID}},
		{"milestone title in the tree", domain.IssueFilter{NamespaceIDs: tree, MilestoneTitle: "v1"}, []int64{a.ID, c.ID}},
		{"milestone title anywhere", domain.IssueFilter{MilestoneTitle: "v1"}, []int64{a.ID, c.ID, e.ID}},
		{"milestone title in a project", domain.IssueFilter{ProjectID: pub.ID, MilestoneTitle: "v2"}, []int64{b.ID}},
		{"no such milestone", domain.IssueFilter{NamespaceIDs: tree, MilestoneTitle: "v9"}, nil},
	} {
		list, n, err := s.Issues.List(ctx, c.f)
		storeWantIDs(t, c.what, storeIssueIDList(list), err, c.want...)
		if n != len(c.want) {
			t.Errorf("%s: total %d, want %d", c.what, n, len(c.want))
		}
	}
	list, n, err := s.Issues.List(ctx, domain.IssueFilter{NamespaceIDs: tree, Ascending: true, Page: domain.Page{Page: 2, PerPage: 2}})
	storeWantList(t, "second page of the tree", storeIssueIDList(list), n, err, []int64{c.ID}, 3)
}

// storeIssueListConfidential: a confidential issue shows to its author,
// its assignee, reporters of its project (directly or through a group)
// and admins; a zero viewer sees none.
func storeIssueListConfidential(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob, carol, dave := storeUser(t, s, "alice"), storeUser(t, s, "bob"), storeUser(t, s, "carol"), storeUser(t, s, "dave")
	g, g2 := storeGroup(t, s, "g", nil, domain.Public), storeGroup(t, s, "g2", nil, domain.Public)
	public := func(p *domain.Project) { p.Visibility = domain.Public }
	p, q := storeProject(t, s, g, "p", public), storeProject(t, s, g2, "q", public)
	secret := func(i *domain.Issue) { i.Confidential = true }
	open := storeIssue(t, s, p, alice.ID, "open", nil)
	secretA := storeIssue(t, s, p, alice.ID, "secret a", secret)
	secretB := storeIssue(t, s, p, carol.ID, "secret b", func(i *domain.Issue) { i.Confidential, i.AssigneeID = true, &bob.ID })
	secretQ := storeIssue(t, s, q, carol.ID, "secret q", secret)
	openQ := storeIssue(t, s, q, bob.ID, "open q", nil)
	everyone := []int64{open.ID, openQ.ID}
	for _, c := range []struct {
		what string
		v    domain.IssueViewer
		want []int64
	}{
		{"nobody", domain.IssueViewer{}, everyone},
		{"author", domain.IssueViewer{UserID: alice.ID}, append([]int64{secretA.ID}, everyone...)},
		{"assignee", domain.IssueViewer{UserID: bob.ID}, append([]int64{secretB.ID}, everyone...)},
		{"author twice", domain.IssueViewer{UserID: carol.ID}, append([]int64{secretB.ID, secretQ.ID}, everyone...)},
		{"stranger", domain.IssueViewer{UserID: dave.ID}, everyone},
		{"reporter of p", domain.IssueViewer{UserID: dave.ID, ProjectIDs: []int64{p.ID}}, append([]int64{secretA.ID, secretB.ID}, everyone...)},
		{"reporter in g2", domain.IssueViewer{UserID: dave.ID, NamespaceIDs: []int64{g2.ID}}, append([]int64{secretQ.ID}, everyone...)},
		{"admin", domain.IssueViewer{All: true}, append([]int64{secretA.ID, secretB.ID, secretQ.ID}, everyone...)},
	} {
		list, n, err := s.Issues.List(ctx, domain.IssueFilter{Readable: domain.ReadScope{All: true}, Viewer: c.v})
		storeWantIDs(t, c.what, storeIssueIDList(list), err, c.want...)
		if n != len(c.want) {
			t.Errorf("%s: total %d, want %d", c.what, n, len(c.want))
		}
	}
	// The same rule holds inside one project.
	list, n, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: p.ID, Viewer: domain.IssueViewer{UserID: bob.ID}, Ascending: true})
	storeWantList(t, "assignee in p", storeIssueIDList(list), n, err, []int64{open.ID, secretB.ID}, 2)
	list, n, err = s.Issues.List(ctx, domain.IssueFilter{ProjectID: q.ID, Viewer: domain.IssueViewer{UserID: dave.ID, NamespaceIDs: []int64{g2.ID}}, Ascending: true})
	storeWantList(t, "group reporter in q", storeIssueIDList(list), n, err, []int64{secretQ.ID, openQ.ID}, 2)
}

func storeIssueListOrderPages(t *testing.T, s Stores) {
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	storeCheckListOrderPages(t, func(n int, created, updated time.Time) int64 {
		return storeIssue(t, s, p, alice.ID, fmt.Sprint("i", n), func(i *domain.Issue) { i.CreatedAt, i.UpdatedAt = created, updated }).IID
	}, func(q storeListQuery) ([]int64, int, error) {
		got, n, err := s.Issues.List(t.Context(), domain.IssueFilter{ProjectID: p.ID, OrderBy: q.OrderBy, Ascending: q.Ascending,
			Page: q.Page, CreatedBefore: q.CreatedBefore})
		return storeIssueIIDList(got), n, err
	})
}

// storeIssueNotesAndVotes: every read counts the user notes and the
// thumbsup / thumbsdown awards of the issue, and nothing else.
func storeIssueNotesAndVotes(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob, carol := storeUser(t, s, "alice"), storeUser(t, s, "bob"), storeUser(t, s, "carol")
	p := storeRepoProject(t, s, "p")
	a := storeIssue(t, s, p, alice.ID, "a", nil)
	b := storeIssue(t, s, p, alice.ID, "b", nil)
	storeNoteOn(t, s, p, domain.TargetIssue, a.ID, alice.ID, false)
	storeNoteOn(t, s, p, domain.TargetIssue, a.ID, bob.ID, false)
	storeNoteOn(t, s, p, domain.TargetIssue, a.ID, alice.ID, true)
	storeNoteOn(t, s, p, domain.TargetIssue, b.ID, alice.ID, true)
	bNote := storeNoteOn(t, s, p, domain.TargetIssue, b.ID, alice.ID, false)
	for _, u := range []int64{alice.ID, bob.ID, carol.ID} {
		storeAwardOn(t, s, u, domain.TargetIssue, a.ID, "thumbsup")
	}
	storeAwardOn(t, s, bob.ID, domain.TargetIssue, a.ID, "thumbsdown")
	storeAwardOn(t, s, bob.ID, domain.TargetIssue, b.ID, "thumbsdown")
	storeAwardOn(t, s, alice.ID, domain.TargetIssue, b.ID, "smile")
	// Notes and awards of other things with the same IDs do not count.
	for _, id := range []int64{a.ID, b.ID} {
		storeNoteOn(t, s, p, domain.TargetMergeRequest, id, alice.ID, false)
		storeAwardOn(t, s, alice.ID, domain.TargetMergeRequest, id, "thumbsup")
		storeAwardOn(t, s, alice.ID, domain.TargetMergeRequest, id, "thumbsdown")
	}
	storeAwardOn(t, s, alice.ID, domain.TargetNote, bNote.ID, "thumbsup")
	type counts struct{ Notes, Up, Down int }
	want := map[int64]counts{a.ID: {2, 3, 1}, b.ID: {1, 0, 1}}
	check := func(what string, is ...domain.Issue) {
		t.Helper()
		got := map[int64]counts{}
		for _, i := range is {
			got[i.ID] = counts{i.UserNotesCount, i.Upvotes, i.Downvotes}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: counts (-want +got):\n%s", what, diff)
		}
	}
	ga, err := s.Issues.Get(ctx, p.ID, a.IID)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := s.Issues.Get(ctx, p.ID, b.IID)
	if err != nil {
		t.Fatal(err)
	}
	check("Get", *ga, *gb)
	many, err := s.Issues.GetMany(ctx, []int64{a.ID, b.ID})
	if err != nil {
		t.Fatal(err)
	}
	check("GetMany", many...)
	byIIDs, err := s.Issues.ByIIDs(ctx, p.ID, []int64{a.IID, b.IID})
	if err != nil {
		t.Fatal(err)
	}
	check("ByIIDs", byIIDs...)
	list, _, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	check("List", list...)
	list, _, err = s.Issues.List(ctx, domain.IssueFilter{Readable: domain.ReadScope{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	check("List across projects", list...)
	ua, err := s.Issues.Update(ctx, p.ID, a.IID, func(i *domain.Issue) error { i.Title = "A"; return nil })
	if err != nil {
		t.Fatal(err)
	}
	ub, err := s.Issues.Update(ctx, p.ID, b.IID, func(i *domain.Issue) error { i.Title = "B"; return nil })
	if err != nil {
		t.Fatal(err)
	}
	check("Update", *ua, *ub)
}

func storeIssueCountOpen(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, carol := storeUser(t, s, "alice"), storeUser(t, s, "carol")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	none, closed := storeRepoProject(t, s, "none"), storeRepoProject(t, s, "closed")
	storeIssue(t, s, p, alice.ID, "opened", nil)
	storeIssue(t, s, p, alice.ID, "reopened", func(i *domain.Issue) { i.State = domain.IssueReopened })
	storeIssue(t, s, p, alice.ID, "closed", func(i *domain.Issue) { i.State = domain.IssueClosed })
	storeIssue(t, s, p, carol.ID, "secret", func(i *domain.Issue) { i.Confidential = true })
	storeIssue(t, s, p, carol.ID, "closed secret", func(i *domain.Issue) { i.Confidential, i.State = true, domain.IssueClosed })
	storeIssue(t, s, q, alice.ID, "q1", nil)
	storeIssue(t, s, q, alice.ID, "q2", nil)
	storeIssue(t, s, closed, alice.ID, "done", func(i *domain.Issue) { i.State = domain.IssueClosed })
	all := []int64{p.ID, q.ID, none.ID, closed.ID}
	for _, c := range []struct {
		what string
		ids  []int64
		v    domain.IssueViewer
		want map[int64]int
	}{
		{"nobody", all, domain.IssueViewer{}, map[int64]int{p.ID: 2, q.ID: 2}},
		{"stranger", all, domain.IssueViewer{UserID: alice.ID}, map[int64]int{p.ID: 2, q.ID: 2}},
		{"author", all, domain.IssueViewer{UserID: carol.ID}, map[int64]int{p.ID: 3, q.ID: 2}},
		{"reporter", all, domain.IssueViewer{UserID: alice.ID, ProjectIDs: []int64{p.ID}}, map[int64]int{p.ID: 3, q.ID: 2}},
		{"group reporter", all, domain.IssueViewer{UserID: alice.ID, NamespaceIDs: []int64{p.NamespaceID}}, map[int64]int{p.ID: 3, q.ID: 2}},
		{"admin", all, domain.IssueViewer{All: true}, map[int64]int{p.ID: 3, q.ID: 2}},
		{"some projects", []int64{q.ID, none.ID, q.ID}, domain.IssueViewer{All: true}, map[int64]int{q.ID: 2}},
		{"no projects", nil, domain.IssueViewer{All: true}, map[int64]int{}},
	} {
		got, err := s.Issues.CountOpen(ctx, c.ids, c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}

	// The counts follow every change at once: closing, reopening, making
	// confidential, deleting; a rolled back change leaves them as they were.
	count := func(what string, v domain.IssueViewer, want map[int64]int) {
		t.Helper()
		got, err := s.Issues.CountOpen(ctx, all, v)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	update := func(ctx context.Context, project *domain.Project, title string, fn func(i *domain.Issue)) error {
		list, _, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: project.ID, Viewer: domain.IssueViewer{All: true}, Search: title, Page: domain.Page{Page: 1, PerPage: 20}})
		if err != nil {
			t.Fatalf("find %q: %v", title, err)
		}
		for _, i := range list {
			if i.Title == title {
				_, err = s.Issues.Update(ctx, project.ID, i.IID, func(i *domain.Issue) error { fn(i); return nil })
				return err
			}
		}
		t.Fatalf("no issue %q", title)
		return nil
	}
	if err := update(ctx, p, "opened", func(i *domain.Issue) { i.State = domain.IssueClosed }); err != nil {
		t.Fatal(err)
	}
	if err := update(ctx, q, "q1", func(i *domain.Issue) { i.Confidential = true }); err != nil {
		t.Fatal(err)
	}
	if err := update(ctx, closed, "done", func(i *domain.Issue) { i.State = domain.IssueReopened }); err != nil {
		t.Fatal(err)
	}
	count("after changes, nobody", domain.IssueViewer{}, map[int64]int{p.ID: 1, q.ID: 1, closed.ID: 1})
	count("after changes, admin", domain.IssueViewer{All: true}, map[int64]int{p.ID: 2, q.ID: 2, closed.ID: 1})
	count("after changes, author of q1", domain.IssueViewer{UserID: alice.ID}, map[int64]int{p.ID: 1, q.ID: 2, closed.ID: 1})
	boom := errors.New("boom")
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := update(ctx, q, "q2", func(i *domain.Issue) { i.State = domain.IssueClosed }); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("rolled back close: %v", err)
	}
	list, _, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: q.ID, Viewer: domain.IssueViewer{All: true}, Search: "q1", Page: domain.Page{Page: 1, PerPage: 20}})
	if err != nil || len(list) != 1 {
		t.Fatalf("find q1: %v", err)
	}
	if err := s.Issues.Delete(ctx, q.ID, list[0].IID); err != nil {
		t.Fatal(err)
	}
	count("after a rollback and a delete, nobody", domain.IssueViewer{}, map[int64]int{p.ID: 1, q.ID: 1, closed.ID: 1})
	count("after a rollback and a delete, admin", domain.IssueViewer{All: true}, map[int64]int{p.ID: 2, q.ID: 1, closed.ID: 1})

	// A list's total (X-Total) is the number of issues it selects, whether
	// it comes from the kept counts (a state filter at most) or is counted.
	viewers := map[string]domain.IssueViewer{
		"nobody": {}, "alice": {UserID: alice.ID}, "carol": {UserID: carol.ID},
		"reporter": {UserID: alice.ID, ProjectIDs: []int64{p.ID}}, "admin": {All: true},
	}
	for vname, v := range viewers {
		for _, project := range []*domain.Project{p, q, none, closed} {
			for _, states := range [][]string{nil, {domain.IssueOpened}, {domain.IssueClosed}} {
				for _, page := range []domain.Page{{Page: 1, PerPage: 100}, {Page: 2, PerPage: 1}} {
					list, total, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: project.ID, Viewer: v, States: states, Page: page})
					if err != nil {
						t.Fatal(err)
					}
					// A filter every issue passes takes the counted path.
					epoch := time.Unix(0, 0)
					all, counted, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: project.ID, Viewer: v, States: states, CreatedAfter: &epoch, Page: domain.Page{Page: 1, PerPage: 100}})
					if err != nil {
						t.Fatal(err)
					}
					if page.PerPage == 100 && total != len(list) {
						t.Errorf("%s, project %s, states %v: total %d, %d listed", vname, project.Path, states, total, len(list))
					}
					if total != len(all) || counted != len(all) {
						t.Errorf("%s, project %s, states %v, page %v: total %d, counted %d, want %d", vname, project.Path, states, page, total, counted, len(all))
					}
				}
			}
		}
	}
}

func storeIssueTxRollback(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	i := storeIssue(t, s, p, alice.ID, "kept", func(i *domain.Issue) { i.Labels = []string{"a"} })
	boom := errors.New("boom")
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		// A failed create inside the transaction leaves it usable.
		if err := s.Issues.Create(ctx, &domain.Issue{ProjectID: p.ID, Title: "x", AuthorID: alice.ID, AssigneeID: storePtr(int64(99999))}); !errors.Is(err, core.ErrNotFound) {
			return fmt.Errorf("unknown assignee in tx: %v", err)
		}
		if err := s.Issues.Create(ctx, &domain.Issue{ProjectID: p.ID, Title: "rolled too", AuthorID: alice.ID}); err != nil {
			return err
		}
		if _, err := s.Issues.Update(ctx, p.ID, i.IID, func(i *domain.Issue) error { i.Title, i.Labels = "rolled", nil; return nil }); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithinTx = %v, want boom", err)
	}
	if _, n, _ := s.Issues.List(ctx, domain.IssueFilter{ProjectID: p.ID}); n != 1 {
		t.Errorf("%d issues after the rollback, want 1", n)
	}
	if got, _ := s.Issues.Get(ctx, p.ID, i.IID); got.Title != "kept" || !slices.Equal(got.Labels, []string{"a"}) {
		t.Errorf("after the rollback: %q %v", got.Title, got.Labels)
	}
	if next := storeIssue(t, s, p, alice.ID, "next", nil); next.IID != 2 {
		t.Errorf("IID after the rollback = %d, want 2", next.IID)
	}
}

// storeConcurrentIssueIIDs: 20 goroutines creating 200 issues in one
// project get the IIDs 1..200, each once.
func storeConcurrentIssueIIDs(t *testing.T, s Stores) {
	const each = 10
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	iids := make([][]int64, storeWorkers)
	errs := storeRace(func(w int) error {
		for n := range each {
			i := &domain.Issue{ProjectID: p.ID, Title: fmt.Sprint("issue ", w, " ", n), AuthorID: alice.ID, Labels: []string{"l"}}
			if err := s.Issues.Create(t.Context(), i); err != nil {
				return err
			}
			iids[w] = append(iids[w], i.IID)
		}
		return nil
	})
	storeNoErrors(t, errs)
	want := make([]int64, storeWorkers*each)
	for n := range want {
		want[n] = int64(n + 1)
	}
	if diff := cmp.Diff(want, storeSorted(slices.Concat(iids...))); diff != "" {
		t.Errorf("IIDs (-want +got):\n%s", diff)
	}
	list, n, err := s.Issues.List(t.Context(), domain.IssueFilter{ProjectID: p.ID, Labels: []string{"l"}})
	storeWantList(t, "stored", storeSorted(storeIssueIIDList(list)), n, err, want, len(want))
}

func storeConcurrentIssueUpdates(t *testing.T, s Stores) {
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	i := storeIssue(t, s, p, alice.ID, "i", nil)
	storeCheckConcurrentUpdates(t, func(edit func(labels *[]string, description *string)) error {
		_, err := s.Issues.Update(t.Context(), p.ID, i.IID, func(i *domain.Issue) error { edit(&i.Labels, &i.Description); return nil })
		return err
	}, func() ([]string, string, error) {
		got, err := s.Issues.Get(t.Context(), p.ID, i.IID)
		if err != nil {
			return nil, "", err
		}
		return got.Labels, got.Description, nil
	})
}

// storeMilestone creates an active milestone of p titled title; mod, when
// set, adjusts it first.
func storeMilestone(t *testing.T, s Stores, p *domain.Project, title string, mod func(m *domain.Milestone)) *domain.Milestone {
	t.Helper()
	m := &domain.Milestone{ProjectID: p.ID, Title: title, State: domain.MilestoneActive, CreatedAt: storeT0, UpdatedAt: storeT0}
	if mod != nil {
		mod(m)
	}
	if err := s.Milestones.Create(t.Context(), m); err != nil {
		t.Fatalf("create milestone %s: %v", title, err)
	}
	return m
}

func storeMilestoneIDList(ms []domain.Milestone) []int64 {
	return storeIDs(ms, func(m domain.Milestone) int64 { return m.ID })
}

// storeMilestoneIDsOf lists the IDs of milestones.
func storeMilestoneIDsOf(ms ...*domain.Milestone) []int64 {
	return storeIDs(ms, func(m *domain.Milestone) int64 { return m.ID })
}

func storeMilestoneCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	zone := time.FixedZone("X", 9*3600)
	m := &domain.Milestone{
		ProjectID: p.ID, Title: "v1.0", Description: "first", State: domain.MilestoneClosed,
		DueDate: storePtr(storeDay(2024, 6, 30)), StartDate: storePtr(time.Date(2024, 6, 1, 15, 0, 0, 0, time.UTC)),
		CreatedAt: storeT0.In(zone), UpdatedAt: storeT0.Add(time.Hour),
	}
	want := *m
	if err := s.Milestones.Create(ctx, m); err != nil {
		t.Fatalf("Create: %v", err)
	}
	want.ID, want.IID, want.StartDate = m.ID, 1, storePtr(storeDay(2024, 6, 1))
	if m.ID <= 0 {
		t.Fatalf("Create set ID %d", m.ID)
	}
	if diff := cmp.Diff(&want, m); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	got, err := s.Milestones.Get(ctx, p.ID, m.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	for _, tm := range []*time.Time{&got.CreatedAt, &got.UpdatedAt, got.DueDate, got.StartDate} {
		if tm.Location() != time.UTC {
			t.Errorf("time %v not in UTC", tm)
		}
	}
	// Defaults: active, times now, no dates.
	before := time.Now().Add(-time.Second)
	bare := &domain.Milestone{ProjectID: p.ID, Title: "bare"}
	if err := s.Milestones.Create(ctx, bare); err != nil {
		t.Fatal(err)
	}
	if bare.IID != 2 || bare.State != domain.MilestoneActive || bare.DueDate != nil || bare.StartDate != nil ||
		bare.CreatedAt.Before(before) || !bare.UpdatedAt.Equal(bare.CreatedAt) {
		t.Errorf("defaults: %+v", bare)
	}
	// Titles are unique per project; the failure gives its IID back.
	err = s.Milestones.Create(ctx, &domain.Milestone{ProjectID: p.ID, Title: "v1.0"})
	storeWantMsg(t, err, core.ErrConflict, "Milestone already exists", "title taken")
	if o := storeMilestone(t, s, other, "v1.0", nil); o.IID != 1 {
		t.Errorf("IID in another project = %d, want 1", o.IID)
	}
	if next := storeMilestone(t, s, p, "v2.0", nil); next.IID != 3 {
		t.Errorf("IID after a conflict = %d, want 3", next.IID)
	}
	// Inside a transaction the conflict leaves it usable.
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.Milestones.Create(ctx, &domain.Milestone{ProjectID: p.ID, Title: "v2.0"}); !errors.Is(err, core.ErrConflict) {
			return fmt.Errorf("conflict in tx: %v", err)
		}
		return s.Milestones.Create(ctx, &domain.Milestone{ProjectID: p.ID, Title: "v3.0"})
	})
	if err != nil {
		t.Fatalf("tx after conflict: %v", err)
	}
	_, err = s.Milestones.Get(ctx, other.ID, m.ID)
	storeWantMsg(t, err, core.ErrNotFound, "404 Milestone Not Found", "Get in another project")
	_, err = s.Milestones.Get(ctx, p.ID, 99999)
	storeWantKind(t, err, core.ErrNotFound, "Get unknown")
	storeWantKind(t, s.Milestones.Create(ctx, &domain.Milestone{ProjectID: 99999, Title: "x"}), core.ErrNotFound, "Create in unknown project")
}

func storeMilestoneUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	m := storeMilestone(t, s, p, "v1", nil)
	storeMilestone(t, s, p, "v2", nil)
	before := time.Now().Add(-time.Second)
	got, err := s.Milestones.Update(ctx, p.ID, m.ID, func(x *domain.Milestone) error {
		x.Title, x.Description, x.State = "v1.1", "desc", domain.MilestoneClosed
		x.DueDate, x.StartDate = storePtr(storeDay(2024, 7, 1)), storePtr(storeDay(2024, 6, 1))
		x.ID, x.IID, x.ProjectID, x.CreatedAt = 0, 99, other.ID, storeT0.Add(time.Hour)
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := *m
	want.Title, want.Description, want.State = "v1.1", "desc", domain.MilestoneClosed
	want.DueDate, want.StartDate, want.UpdatedAt = storePtr(storeDay(2024, 7, 1)), storePtr(storeDay(2024, 6, 1)), got.UpdatedAt
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if got.UpdatedAt.Before(before) {
		t.Errorf("UpdatedAt = %v, want now", got.UpdatedAt)
	}
	if read, err := s.Milestones.Get(ctx, p.ID, m.ID); err != nil || !cmp.Equal(got, read) {
		t.Errorf("Get after Update = %+v, %v", read, err)
	}
	got, err = s.Milestones.Update(ctx, p.ID, m.ID, func(x *domain.Milestone) error {
		x.UpdatedAt, x.DueDate = storeT0.Add(3*time.Hour), nil
		return nil
	})
	if err != nil || !got.UpdatedAt.Equal(storeT0.Add(3*time.Hour)) || got.DueDate != nil {
		t.Errorf("Update with UpdatedAt: %+v, %v", got, err)
	}
	_, err = s.Milestones.Update(ctx, p.ID, m.ID, func(x *domain.Milestone) error { x.Title = "v2"; return nil })
	storeWantMsg(t, err, core.ErrConflict, "Milestone already exists", "rename onto a taken title")
	boom := errors.New("boom")
	_, err = s.Milestones.Update(ctx, p.ID, m.ID, func(x *domain.Milestone) error { x.Title = "lost"; return boom })
	if err != boom {
		t.Errorf("Update with failing fn = %v, want boom as is", err)
	}
	if read, _ := s.Milestones.Get(ctx, p.ID, m.ID); read.Title != "v1.1" {
		t.Errorf("failed updates saved: %q", read.Title)
	}
	_, err = s.Milestones.Update(ctx, other.ID, m.ID, func(*domain.Milestone) error { return nil })
	storeWantMsg(t, err, core.ErrNotFound, "404 Milestone Not Found", "Update in another project")
}

// storeMilestoneDelete: issues and merge requests lose a deleted milestone.
func storeMilestoneDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	gone, kept := storeMilestone(t, s, p, "gone", nil), storeMilestone(t, s, p, "kept", nil)
	i1 := storeIssue(t, s, p, alice.ID, "i1", func(i *domain.Issue) { i.MilestoneID = &gone.ID })
	i2 := storeIssue(t, s, p, alice.ID, "i2", func(i *domain.Issue) { i.MilestoneID = &kept.ID })
	m1 := storeMR(t, s, p, alice.ID, "m1", func(m *domain.MergeRequest) { m.MilestoneID = &gone.ID })
	m2 := storeMR(t, s, p, alice.ID, "m2", func(m *domain.MergeRequest) { m.MilestoneID = &kept.ID })
	storeWantKind(t, s.Milestones.Delete(ctx, p.ID+1000, gone.ID), core.ErrNotFound, "Delete in another project")
	if err := s.Milestones.Delete(ctx, p.ID, gone.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := s.Milestones.Get(ctx, p.ID, gone.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get deleted")
	storeWantMsg(t, s.Milestones.Delete(ctx, p.ID, gone.ID), core.ErrNotFound, "404 Milestone Not Found", "Delete again")
	for _, c := range []struct {
		iid  int64
		want *int64
	}{{i1.IID, nil}, {i2.IID, &kept.ID}} {
		got, err := s.Issues.Get(ctx, p.ID, c.iid)
		if err != nil || !cmp.Equal(got.MilestoneID, c.want) {
			t.Errorf("issue #%d milestone = %v, %v; want %v", c.iid, got.MilestoneID, err, c.want)
		}
	}
	for _, c := range []struct {
		iid  int64
		want *int64
	}{{m1.IID, nil}, {m2.IID, &kept.ID}} {
		got, err := s.MergeRequests.Get(ctx, p.ID, c.iid)
		if err != nil || !cmp.Equal(got.MilestoneID, c.want) {
			t.Errorf("merge request !%d milestone = %v, %v; want %v", c.iid, got.MilestoneID, err, c.want)
		}
	}
	// The title is free again.
	storeMilestone(t, s, p, "gone", nil)
}

func storeMilestoneList(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	due := func(d *time.Time) func(m *domain.Milestone) { return func(m *domain.Milestone) { m.DueDate = d } }
	m1 := storeMilestone(t, s, p, "Release 1", due(storePtr(storeDay(2024, 5, 1))))
	m2 := storeMilestone(t, s, p, "Someday", func(m *domain.Milestone) { m.Description = "no RELEASE planned" })
	m3 := storeMilestone(t, s, p, "Beta", due(storePtr(storeDay(2024, 4, 1))))
	m4 := storeMilestone(t, s, p, "100% done", func(m *domain.Milestone) { m.DueDate, m.State = storePtr(storeDay(2024, 5, 1)), domain.MilestoneClosed })
	m5 := storeMilestone(t, s, p, "Later_on", func(m *domain.Milestone) { m.State = domain.MilestoneClosed })
	storeMilestone(t, s, other, "Release 1", nil)
	ids := storeMilestoneIDsOf
	for _, c := range []struct {
		what  string
		f     domain.MilestoneFilter
		want  []int64
		total int
	}{
		{"all, by due date then ID, undated last", domain.MilestoneFilter{}, ids(m3, m1, m4, m2, m5), 5},
		{"iids", domain.MilestoneFilter{IIDs: []int64{m5.IID, m1.IID, 99}}, ids(m1, m5), 2},
		{"active", domain.MilestoneFilter{State: domain.MilestoneActive}, ids(m3, m1, m2), 3},
		{"closed", domain.MilestoneFilter{State: domain.MilestoneClosed}, ids(m4, m5), 2},
		{"title exact", domain.MilestoneFilter{Title: "Release 1"}, ids(m1), 1},
		{"title is not a search", domain.MilestoneFilter{Title: "release 1"}, ids(), 0},
		{"search title or description, any case", domain.MilestoneFilter{Search: "release"}, ids(m1, m2), 2},
		{"search % literally", domain.MilestoneFilter{Search: "0%"}, ids(m4), 1},
		{"search _ literally", domain.MilestoneFilter{Search: "r_o"}, ids(m5), 1},
		{"page 2", domain.MilestoneFilter{Page: domain.Page{Page: 2, PerPage: 2}}, ids(m4, m2), 5},
		{"past the end", domain.MilestoneFilter{Page: domain.Page{Page: 4, PerPage: 2}}, ids(), 5},
	} {
		f := c.f
		f.ProjectID = p.ID
		list, n, err := s.Milestones.List(ctx, f)
		storeWantList(t, c.what, storeMilestoneIDList(list), n, err, c.want, c.total)
	}
}

func storeMilestoneGetManyIDsByTitle(t *testing.T, s Stores) {
	ctx := t.Context()
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	a := storeMilestone(t, s, p, "v1", nil)
	b := storeMilestone(t, s, q, "v1", nil)
	storeMilestone(t, s, p, "v2", nil)
	got, err := s.Milestones.GetMany(ctx, []int64{b.ID, a.ID, a.ID, 99999})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(x, y domain.Milestone) int { return int(x.ID - y.ID) })
	if diff := cmp.Diff([]domain.Milestone{*a, *b}, got); diff != "" {
		t.Errorf("GetMany (-want +got):\n%s", diff)
	}
	if got, err := s.Milestones.GetMany(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("GetMany(nil) = %v, %v", got, err)
	}
	ids, err := s.Milestones.IDsByTitle(ctx, q.ID, "v1")
	storeWantIDs(t, "IDsByTitle in q", ids, err, b.ID)
	ids, err = s.Milestones.IDsByTitle(ctx, p.ID, "V1")
	storeWantIDs(t, "IDsByTitle is exact", ids, err)
}

func storeLabelNames(ls []domain.Label) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

func storeLabelCreateGetList(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	l := &domain.Label{ProjectID: p.ID, Name: "bug", Color: "#FF0000", Description: "broken", CreatedAt: storeT0.In(time.FixedZone("X", 3600))}
	if err := s.Labels.Create(ctx, l); err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := domain.Label{ID: l.ID, ProjectID: p.ID, Name: "bug", Color: "#FF0000", Description: "broken", CreatedAt: storeT0, UpdatedAt: storeT0}
	if l.ID <= 0 || !cmp.Equal(&want, l) {
		t.Errorf("Create = %+v, want %+v", l, want)
	}
	got, err := s.Labels.GetByName(ctx, p.ID, "bug")
	if err != nil || !cmp.Equal(&want, got) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("GetByName = %+v, %v; want %+v", got, err, want)
	}
	storeWantMsg(t, s.Labels.Create(ctx, &domain.Label{ProjectID: p.ID, Name: "bug", Color: "#000000"}), core.ErrConflict, "Label already exists", "name taken")
	for _, n := range []string{"ui", "Zeta", "a b", "ä"} {
		if err := s.Labels.Create(ctx, &domain.Label{ProjectID: p.ID, Name: n, Color: "#00FF00"}); err != nil {
			t.Fatalf("Create %s: %v", n, err)
		}
	}
	if err := s.Labels.Create(ctx, &domain.Label{ProjectID: other.ID, Name: "bug", Color: "#000000"}); err != nil {
		t.Errorf("the same name in another project: %v", err)
	}
	list, err := s.Labels.List(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Zeta", "a b", "bug", "ui", "ä"}, storeLabelNames(list)); diff != "" {
		t.Errorf("List, sorted bytewise (-want +got):\n%s", diff)
	}
	if list, err := s.Labels.List(ctx, 99999); err != nil || len(list) != 0 {
		t.Errorf("List of an unknown project = %v, %v", list, err)
	}
	_, err = s.Labels.GetByName(ctx, p.ID, "nope")
	storeWantMsg(t, err, core.ErrNotFound, "404 Label Not Found", "GetByName unknown")
	_, err = s.Labels.GetByName(ctx, p.ID, "BUG")
	storeWantKind(t, err, core.ErrNotFound, "GetByName is exact")
	storeWantKind(t, s.Labels.Create(ctx, &domain.Label{ProjectID: 99999, Name: "x", Color: "#000000"}), core.ErrNotFound, "Create in unknown project")
}

func storeLabelEnsure(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	if err := s.Labels.Create(ctx, &domain.Label{ProjectID: p.ID, Name: "bug", Color: "#FF0000"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Labels.Ensure(ctx, p.ID, []string{"ui", "bug", "ui", "", "docs"}, "#428BCA"); err != nil {
		t.Fatalf("Ensure: %v", err)
	}
	list, err := s.Labels.List(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	colors := map[string]string{}
	for _, l := range list {
		colors[l.Name] = l.Color
	}
	if diff := cmp.Diff(map[string]string{"bug": "#FF0000", "docs": "#428BCA", "ui": "#428BCA"}, colors); diff != "" {
		t.Errorf("after Ensure (-want +got):\n%s", diff)
	}
	if err := s.Labels.Ensure(ctx, p.ID, nil, "#428BCA"); err != nil {
		t.Errorf("Ensure of none: %v", err)
	}
	storeWantKind(t, s.Labels.Ensure(ctx, 99999, []string{"x"}, "#428BCA"), core.ErrNotFound, "Ensure in unknown project")
	// Racing calls for the same names all succeed and make each label once.
	names := []string{"r1", "r2", "r3", "bug"}
	errs := storeRace(func(w int) error {
		return s.Labels.Ensure(t.Context(), p.ID, []string{names[w%4], names[(w+1)%4], names[(w+2)%4]}, "#428BCA")
	})
	storeNoErrors(t, errs)
	list, err = s.Labels.List(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"bug", "docs", "r1", "r2", "r3", "ui"}, storeLabelNames(list)); diff != "" {
		t.Errorf("after racing Ensure (-want +got):\n%s", diff)
	}
}

// storeLabelUpdate: a new name follows the label onto the project's issues
// and merge requests, and nowhere else.
func storeLabelUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	if err := s.Labels.Ensure(ctx, p.ID, []string{"bug", "ui"}, "#428BCA"); err != nil {
		t.Fatal(err)
	}
	if err := s.Labels.Ensure(ctx, other.ID, []string{"bug"}, "#428BCA"); err != nil {
		t.Fatal(err)
	}
	orig, err := s.Labels.GetByName(ctx, p.ID, "bug")
	if err != nil {
		t.Fatal(err)
	}
	i1 := storeIssue(t, s, p, alice.ID, "i1", func(i *domain.Issue) { i.Labels = []string{"bug", "ui"} })
	// i2 carries "fix" already (names need no label row): it keeps one.
	i2 := storeIssue(t, s, p, alice.ID, "i2", func(i *domain.Issue) { i.Labels = []string{"bug", "fix"} })
	m := storeMR(t, s, p, alice.ID, "f", func(m *domain.MergeRequest) { m.Labels = []string{"bug"} })
	oi := storeIssue(t, s, other, alice.ID, "oi", func(i *domain.Issue) { i.Labels = []string{"bug"} })
	om := storeMR(t, s, other, alice.ID, "f", func(m *domain.MergeRequest) { m.Labels = []string{"bug"} })
	labels := func() map[string][]string {
		t.Helper()
		out := map[string][]string{}
		for name, pi := range map[string]struct{ p, iid int64 }{"i1": {p.ID, i1.IID}, "i2": {p.ID, i2.IID}, "oi": {other.ID, oi.IID}} {
			i, err := s.Issues.Get(ctx, pi.p, pi.iid)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = i.Labels
		}
		for name, pm := range map[string]struct{ p, iid int64 }{"m": {p.ID, m.IID}, "om": {other.ID, om.IID}} {
			mr, err := s.MergeRequests.Get(ctx, pm.p, pm.iid)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = mr.Labels
		}
		return out
	}
	before := labels()
	// A taken name, a failing fn and an unknown label change nothing.
	_, err = s.Labels.Update(ctx, p.ID, "bug", func(l *domain.Label) error { l.Name = "ui"; return nil })
	storeWantMsg(t, err, core.ErrConflict, "Label already exists", "rename onto a taken name")
	boom := errors.New("boom")
	if _, err := s.Labels.Update(ctx, p.ID, "bug", func(l *domain.Label) error { l.Name = "lost"; return boom }); err != boom {
		t.Errorf("Update with failing fn = %v, want boom as is", err)
	}
	_, err = s.Labels.Update(ctx, p.ID, "nope", func(l *domain.Label) error { return nil })
	storeWantMsg(t, err, core.ErrNotFound, "404 Label Not Found", "Update unknown")
	if diff := cmp.Diff(before, labels()); diff != "" {
		t.Errorf("failed updates changed labels (-want +got):\n%s", diff)
	}
	// Color and description alone leave the carriers be.
	got, err := s.Labels.Update(ctx, p.ID, "bug", func(l *domain.Label) error {
		l.Color, l.Description, l.ID, l.ProjectID = "#000000", "d", 0, other.ID
		return nil
	})
	if err != nil || got.ID != orig.ID || got.ProjectID != p.ID || got.Color != "#000000" || got.Description != "d" || !got.UpdatedAt.After(orig.UpdatedAt.Add(-time.Nanosecond)) {
		t.Errorf("Update color = %+v, %v", got, err)
	}
	if diff := cmp.Diff(before, labels()); diff != "" {
		t.Errorf("color change changed labels (-want +got):\n%s", diff)
	}
	got, err = s.Labels.Update(ctx, p.ID, "bug", func(l *domain.Label) error { l.Name = "fix"; return nil })
	if err != nil || got.Name != "fix" || got.ID != orig.ID {
		t.Fatalf("rename = %+v, %v", got, err)
	}
	want := map[string][]string{"i1": {"fix", "ui"}, "i2": {"fix"}, "m": {"fix"}, "oi": {"bug"}, "om": {"bug"}}
	if diff := cmp.Diff(want, labels()); diff != "" {
		t.Errorf("after rename (-want +got):\n%s", diff)
	}
	if _, err := s.Labels.GetByName(ctx, p.ID, "bug"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("old name after rename: %v", err)
	}
	if l, err := s.Labels.GetByName(ctx, p.ID, "fix"); err != nil || l.Color != "#000000" {
		t.Errorf("new name after rename: %+v, %v", l, err)
	}
	list, n, err := s.Issues.List(ctx, domain.IssueFilter{ProjectID: p.ID, Labels: []string{"fix"}, Ascending: true})
	storeWantList(t, "issues with the new name", storeIssueIIDList(list), n, err, []int64{i1.IID, i2.IID}, 2)
}

func storeLabelDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	for _, pr := range []*domain.Project{p, other} {
		if err := s.Labels.Ensure(ctx, pr.ID, []string{"bug", "ui"}, "#428BCA"); err != nil {
			t.Fatal(err)
		}
	}
	i := storeIssue(t, s, p, alice.ID, "i", func(i *domain.Issue) { i.Labels = []string{"bug", "ui"} })
	m := storeMR(t, s, p, alice.ID, "f", func(m *domain.MergeRequest) { m.Labels = []string{"bug", "ui"} })
	oi := storeIssue(t, s, other, alice.ID, "oi", func(i *domain.Issue) { i.Labels = []string{"bug"} })
	om := storeMR(t, s, other, alice.ID, "f", func(m *domain.MergeRequest) { m.Labels = []string{"bug"} })
	if err := s.Labels.Delete(ctx, p.ID, "bug"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	storeWantMsg(t, s.Labels.Delete(ctx, p.ID, "bug"), core.ErrNotFound, "404 Label Not Found", "Delete again")
	if list, err := s.Labels.List(ctx, p.ID); err != nil || !slices.Equal(storeLabelNames(list), []string{"ui"}) {
		t.Errorf("labels left = %v, %v", storeLabelNames(list), err)
	}
	for _, c := range []struct {
		what string
		got  func() ([]string, error)
		want []string
	}{
		{"issue", func() ([]string, error) { x, err := s.Issues.Get(ctx, p.ID, i.IID); return x.Labels, err }, []string{"ui"}},
		{"merge request", func() ([]string, error) { x, err := s.MergeRequests.Get(ctx, p.ID, m.IID); return x.Labels, err }, []string{"ui"}},
		{"other issue", func() ([]string, error) { x, err := s.Issues.Get(ctx, other.ID, oi.IID); return x.Labels, err }, []string{"bug"}},
		{"other merge request", func() ([]string, error) { x, err := s.MergeRequests.Get(ctx, other.ID, om.IID); return x.Labels, err }, []string{"bug"}},
	} {
		got, err := c.got()
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s labels = %v, %v; want %v", c.what, got, err, c.want)
		}
	}
}

func storeLabelCounts(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, carol := storeUser(t, s, "alice"), storeUser(t, s, "carol")
	p, other := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "other")
	issue := func(pr *domain.Project, author int64, state string, confidential bool, labels ...string) {
		storeIssue(t, s, pr, author, "i", func(i *domain.Issue) { i.State, i.Confidential, i.Labels = state, confidential, labels })
	}
	issue(p, alice.ID, domain.IssueOpened, false, "bug", "ui")
	issue(p, alice.ID, domain.IssueReopened, false, "bug")
	issue(p, alice.ID, domain.IssueClosed, false, "bug")
	issue(p, carol.ID, domain.IssueOpened, true, "bug")
	issue(p, carol.ID, domain.IssueClosed, true, "docs")
	issue(p, alice.ID, domain.IssueOpened, false)
	issue(other, alice.ID, domain.IssueOpened, false, "bug", "ui")
	mr := func(pr *domain.Project, source string, state domain.MergeRequestState, labels ...string) {
		storeMR(t, s, pr, alice.ID, source, func(m *domain.MergeRequest) { m.State, m.Labels = state, labels })
	}
	mr(p, "a", domain.MROpened, "bug", "ui")
	mr(p, "b", domain.MRReopened, "ui")
	mr(p, "c", domain.MRMerged, "bug")
	mr(p, "d", domain.MRClosed, "bug")
	mr(p, "e", domain.MROpened, "mr-only")
	mr(other, "a", domain.MROpened, "bug")
	hidden := map[string]domain.LabelCounts{
		"bug":     {OpenIssues: 2, ClosedIssues: 1, OpenMergeRequests: 1},
		"ui":      {OpenIssues: 1, OpenMergeRequests: 2},
		"mr-only": {OpenMergeRequests: 1},
	}
	shown := map[string]domain.LabelCounts{
		"bug":     {OpenIssues: 3, ClosedIssues: 1, OpenMergeRequests: 1},
		"ui":      {OpenIssues: 1, OpenMergeRequests: 2},
		"docs":    {ClosedIssues: 1},
		"mr-only": {OpenMergeRequests: 1},
	}
	for _, c := range []struct {
		what string
		v    domain.IssueViewer
		want map[string]domain.LabelCounts
	}{
		{"nobody", domain.IssueViewer{}, hidden},
		{"stranger", domain.IssueViewer{UserID: alice.ID}, hidden},
		{"author", domain.IssueViewer{UserID: carol.ID}, shown},
		{"reporter", domain.IssueViewer{UserID: alice.ID, ProjectIDs: []int64{p.ID}}, shown},
		{"admin", domain.IssueViewer{All: true}, shown},
	} {
		got, err := s.Labels.Counts(ctx, p.ID, c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}
}

// storeProjectDeleteLeavesNothing: deleting a project removes the awards
// and subscriptions on its issues, merge requests, snippets and notes,
// which reach them without foreign keys, and leaves another project's.
func storeProjectDeleteLeavesNothing(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	type seeded struct {
		targets []domain.Subject
	}
	seed := func(path string) (*domain.Project, seeded) {
		p := storeRepoProject(t, s, path)
		is := &domain.Issue{ProjectID: p.ID, Title: "i", State: domain.IssueOpened, AuthorID: alice.ID}
		if err := s.Issues.Create(ctx, is); err != nil {
			t.Fatal(err)
		}
		mr := storeMR(t, s, p, alice.ID, "f", nil)
		sn := &domain.Snippet{ProjectID: p.ID, Title: "s", FileName: "f", Content: "c", Visibility: domain.Public, AuthorID: alice.ID}
		if err := s.Snippets.Create(ctx, sn); err != nil {
			t.Fatal(err)
		}
		n := &domain.Note{ProjectID: &p.ID, NoteableType: domain.TargetIssue, NoteableID: is.ID, AuthorID: alice.ID, Body: "n"}
		if err := s.Notes.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
		var out seeded
		for _, target := range []domain.Subject{{Type: domain.TargetIssue, ID: is.ID}, {Type: domain.TargetMergeRequest, ID: mr.ID},
			{Type: domain.TargetSnippet, ID: sn.ID}, {Type: domain.TargetNote, ID: n.ID}} {
			if err := s.Awards.Create(ctx, &domain.Award{Name: "thumbsup", UserID: alice.ID, AwardableType: target.Type, AwardableID: target.ID}); err != nil {
				t.Fatalf("award %v: %v", target, err)
			}
			if target.Type == domain.TargetIssue || target.Type == domain.TargetMergeRequest {
				if err := s.Subscriptions.Set(ctx, target, alice.ID, true); err != nil {
					t.Fatal(err)
				}
			}
			out.targets = append(out.targets, target)
		}
		return p, out
	}
	gone, goneTargets := seed("gone")
	_, keptTargets := seed("kept")
	if err := s.Projects.Delete(ctx, gone.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	count := func(targets []domain.Subject) (awards, subs int) {
		for _, target := range targets {
			as, err := s.Awards.List(ctx, target.Type, target.ID)
			if err != nil {
				t.Fatal(err)
			}
			awards += len(as)
			if sub, err := s.Subscriptions.Get(ctx, target, alice.ID); err != nil {
				t.Fatal(err)
			} else if sub != nil {
				subs++
			}
		}
		return awards, subs
	}
	if a, sub := count(goneTargets.targets); a != 0 || sub != 0 {
		t.Errorf("deleted project left %d awards and %d subscriptions", a, sub)
	}
	if a, sub := count(keptTargets.targets); a != 4 || sub != 2 {
		t.Errorf("the other project has %d awards and %d subscriptions, want 4 and 2", a, sub)
	}
}
