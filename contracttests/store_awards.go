package contracttests

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// awardStoreCases are the subtests of the stores of award emoji (and the votes and note changes they bring).
func awardStoreCases() []storeCase {
	return []storeCase{
		{"AwardCreateList", storeAwardCreateList},
		{"AwardDelete", storeAwardDelete},
		{"AwardVotesOnMergeRequests", storeAwardVotesOnMergeRequests},
		{"ConcurrentSameAward", storeConcurrentSameAward},
		// Confidential events are the feed's side of confidential
		// issues and their notes.
		{"EventConfidentialViewer", storeEventConfidentialViewer},
	}
}

// storeAward gives name to an awardable as user, created at storeT0 +
// offset seconds.
func storeAward(t *testing.T, s Stores, user int64, typ string, id int64, name string, offset int) *domain.Award {
	t.Helper()
	at := storeT0.Add(time.Duration(offset) * time.Second)
	a := &domain.Award{Name: name, UserID: user, AwardableType: typ, AwardableID: id, CreatedAt: at, UpdatedAt: at}
	if err := s.Awards.Create(t.Context(), a); err != nil {
		t.Fatalf("award %s on %s %d: %v", name, typ, id, err)
	}
	return a
}

func storeAwardIDs(as []domain.Award) []int64 {
	return storeIDs(as, func(a domain.Award) int64 { return a.ID })
}

func storeAwardCreateList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	zone := time.FixedZone("X", -5*3600)
	a := &domain.Award{Name: "thumbsup", UserID: alice.ID, AwardableType: domain.TargetIssue, AwardableID: 7,
		CreatedAt: storeT0.In(zone)}
	if err := s.Awards.Create(ctx, a); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if a.ID <= 0 {
		t.Fatalf("Create set ID %d", a.ID)
	}
	want := domain.Award{ID: a.ID, Name: "thumbsup", UserID: alice.ID, AwardableType: domain.TargetIssue, AwardableID: 7,
		CreatedAt: storeT0, UpdatedAt: storeT0}
	if diff := cmp.Diff(want, *a); diff != "" {
		t.Errorf("Create (-want +got), UpdatedAt defaulting to CreatedAt, in UTC:\n%s", diff)
	}
	// Oldest first, the ID breaking ties; other awardables stay apart.
	later := storeAward(t, s, bob.ID, domain.TargetIssue, 7, "tada", 60)
	tie := storeAward(t, s, bob.ID, domain.TargetIssue, 7, "thumbsup", 0)
	storeAward(t, s, alice.ID, domain.TargetMergeRequest, 7, "thumbsup", 0)
	storeAward(t, s, alice.ID, domain.TargetIssue, 8, "thumbsup", 0)
	list, err := s.Awards.List(ctx, domain.TargetIssue, 7)
	storeWantList(t, "List", storeAwardIDs(list), len(list), err, []int64{a.ID, tie.ID, later.ID}, 3)
	if diff := cmp.Diff(want, list[0]); diff != "" {
		t.Errorf("List reads back (-want +got):\n%s", diff)
	}
	for _, got := range list {
		if got.CreatedAt.Location() != time.UTC || got.UpdatedAt.Location() != time.UTC {
			t.Errorf("award %d times not in UTC: %v %v", got.ID, got.CreatedAt, got.UpdatedAt)
		}
	}
	list, err = s.Awards.List(ctx, domain.TargetSnippet, 7)
	if err != nil || list == nil || len(list) != 0 {
		t.Errorf("List of an awardable without awards = %#v, %v; want an empty list", list, err)
	}

	// The same user, awardable and name twice is a conflict; another
	// name, user or awardable is not.
	err = s.Awards.Create(ctx, &domain.Award{Name: "thumbsup", UserID: alice.ID, AwardableType: domain.TargetIssue, AwardableID: 7})
	storeWantKind(t, err, core.ErrConflict, "Create the same award again")
	err = s.Awards.Create(ctx, &domain.Award{Name: "x", UserID: 99999, AwardableType: domain.TargetIssue, AwardableID: 7})
	storeWantKind(t, err, core.ErrNotFound, "Create by an unknown user")
	if list, err := s.Awards.List(ctx, domain.TargetIssue, 7); err != nil || len(list) != 3 {
		t.Errorf("after refused creates: %d awards, %v; want 3", len(list), err)
	}
	before := time.Now().Add(-time.Second)
	now := &domain.Award{Name: "thumbsdown", UserID: alice.ID, AwardableType: domain.TargetIssue, AwardableID: 7}
	if err := s.Awards.Create(ctx, now); err != nil {
		t.Fatalf("Create with zero times: %v", err)
	}
	if now.CreatedAt.Before(before) || !now.UpdatedAt.Equal(now.CreatedAt) {
		t.Errorf("zero times: created %v updated %v, want now twice", now.CreatedAt, now.UpdatedAt)
	}
}

func storeAwardDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	gone := storeAward(t, s, alice.ID, domain.TargetNote, 3, "thumbsup", 0)
	kept := storeAward(t, s, alice.ID, domain.TargetNote, 3, "thumbsdown", 1)
	if err := s.Awards.Delete(ctx, gone.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	storeWantKind(t, s.Awards.Delete(ctx, gone.ID), core.ErrNotFound, "Delete again")
	storeWantKind(t, s.Awards.Delete(ctx, 99999), core.ErrNotFound, "Delete unknown")
	list, err := s.Awards.List(ctx, domain.TargetNote, 3)
	storeWantList(t, "after Delete", storeAwardIDs(list), len(list), err, []int64{kept.ID}, 1)
	// The name is free again.
	storeAward(t, s, alice.ID, domain.TargetNote, 3, "thumbsup", 2)
}

// storeAwardVotesOnMergeRequests: every merge request read counts the
// thumbsup and thumbsdown awards on it as upvotes and downvotes; other
// names and other awardables with the same ID do not count, and writes
// never set the votes.
func storeAwardVotesOnMergeRequests(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob, carol := storeUser(t, s, "alice"), storeUser(t, s, "bob"), storeUser(t, s, "carol")
	p := storeRepoProject(t, s, "p")
	m := storeMR(t, s, p, alice.ID, "voted", func(m *domain.MergeRequest) { m.Upvotes, m.Downvotes = 5, 5 })
	quiet := storeMR(t, s, p, alice.ID, "quiet", nil)
	if m.Upvotes != 0 || m.Downvotes != 0 {
		t.Errorf("Create kept given votes %d/%d, want 0/0", m.Upvotes, m.Downvotes)
	}
	up := storeAward(t, s, alice.ID, domain.TargetMergeRequest, m.ID, "thumbsup", 0)
	storeAward(t, s, bob.ID, domain.TargetMergeRequest, m.ID, "thumbsup", 1)
	storeAward(t, s, carol.ID, domain.TargetMergeRequest, m.ID, "thumbsdown", 2)
	storeAward(t, s, carol.ID, domain.TargetMergeRequest, m.ID, "tada", 3)
	storeAward(t, s, carol.ID, domain.TargetIssue, m.ID, "thumbsup", 4)
	storeAward(t, s, carol.ID, domain.TargetMergeRequest, quiet.ID+1000, "thumbsup", 5)

	check := func(what string, got domain.MergeRequest, upvotes, downvotes int) {
		t.Helper()
		if got.Upvotes != upvotes || got.Downvotes != downvotes {
			t.Errorf("%s: votes %d/%d, want %d/%d", what, got.Upvotes, got.Downvotes, upvotes, downvotes)
		}
	}
	got, err := s.MergeRequests.Get(ctx, p.ID, m.IID)
	if err != nil {
		t.Fatal(err)
	}
	check("Get", *got, 2, 1)
	if got, err = s.MergeRequests.GetByID(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	check("GetByID", *got, 2, 1)
	many, err := s.MergeRequests.GetMany(ctx, []int64{m.ID, quiet.ID})
	if err != nil || len(many) != 2 {
		t.Fatalf("GetMany: %d, %v", len(many), err)
	}
	for _, x := range many {
		if x.ID == m.ID {
			check("GetMany", x, 2, 1)
		} else {
			check("GetMany (no awards)", x, 0, 0)
		}
	}
	list, _, err := s.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: p.ID})
	if err != nil || len(list) != 2 {
		t.Fatalf("List: %d, %v", len(list), err)
	}
	for _, x := range list {
		if x.ID == m.ID {
			check("List", x, 2, 1)
		}
	}
	open, err := s.MergeRequests.OpenOnBranch(ctx, p.ID, "voted")
	if err != nil || len(open) != 1 {
		t.Fatalf("OpenOnBranch: %d, %v", len(open), err)
	}
	check("OpenOnBranch", open[0], 2, 1)

	// Update neither sets votes nor loses them.
	got, err = s.MergeRequests.Update(ctx, p.ID, m.IID, func(x *domain.MergeRequest) error {
		if x.Upvotes != 2 || x.Downvotes != 1 {
			t.Errorf("Update fn sees votes %d/%d, want 2/1", x.Upvotes, x.Downvotes)
		}
		x.Upvotes, x.Downvotes, x.Title = 40, 40, "renamed"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("Update", *got, 2, 1)
	if err := s.Awards.Delete(ctx, up.ID); err != nil {
		t.Fatal(err)
	}
	if got, err = s.MergeRequests.Get(ctx, p.ID, m.IID); err != nil {
		t.Fatal(err)
	}
	check("Get after removing an upvote", *got, 1, 1)

	// Deleting the merge request takes its awards, not others'.
	if err := s.MergeRequests.Delete(ctx, p.ID, m.IID); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		typ  string
		id   int64
		want int
	}{{domain.TargetMergeRequest, m.ID, 0}, {domain.TargetIssue, m.ID, 1}, {domain.TargetMergeRequest, quiet.ID + 1000, 1}} {
		if list, err := s.Awards.List(ctx, c.typ, c.id); err != nil || len(list) != c.want {
			t.Errorf("awards of %s %d after the delete: %d, %v; want %d", c.typ, c.id, len(list), err, c.want)
		}
	}
}

func storeConcurrentSameAward(t *testing.T, s Stores) {
	alice := storeUser(t, s, "alice")
	errs := storeRace(func(int) error {
		return s.Awards.Create(t.Context(), &domain.Award{Name: "thumbsup", UserID: alice.ID,
			AwardableType: domain.TargetMergeRequest, AwardableID: 1})
	})
	storeOneWins(t, errs, "name")
	if list, err := s.Awards.List(t.Context(), domain.TargetMergeRequest, 1); err != nil || len(list) != 1 {
		t.Errorf("after the race: %d awards, %v; want 1", len(list), err)
	}
}

// storeEventConfidentialViewer: confidential events show to viewers who
// see everything, to reporters of their project (directly or through its
// namespace) and to their author; others see only the rest.
func storeEventConfidentialViewer(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	g := storeGroup(t, s, "g", nil, domain.Public)
	h := storeGroup(t, s, "h", nil, domain.Public)
	p := storeProject(t, s, g, "p", func(p *domain.Project) { p.Visibility = domain.Public })
	q := storeProject(t, s, h, "q", func(p *domain.Project) { p.Visibility = domain.Public })
	at := func(i int) time.Time { return storeT0.Add(time.Duration(i) * time.Second) }
	plain := storeEvent(t, s, domain.Event{ProjectID: &p.ID, AuthorID: alice.ID, CreatedAt: at(1)})
	secretP := storeEvent(t, s, domain.Event{ProjectID: &p.ID, AuthorID: alice.ID, Action: domain.ActionCommented,
		TargetType: domain.TargetNote, Confidential: true, CreatedAt: at(2)})
	secretQ := storeEvent(t, s, domain.Event{ProjectID: &q.ID, AuthorID: alice.ID, Confidential: true, CreatedAt: at(3)})
	bobsQ := storeEvent(t, s, domain.Event{ProjectID: &q.ID, AuthorID: bob.ID, Confidential: true, CreatedAt: at(4)})

	read := domain.ReadScope{All: true}
	got, _, err := s.Events.List(ctx, domain.EventFilter{Readable: read, Viewer: domain.IssueViewer{All: true}})
	if err != nil || len(got) != 4 || !got[2].Confidential || got[3].Confidential {
		t.Fatalf("List for All = %+v, %v; want 4 events, Confidential read back", got, err)
	}
	for _, c := range []struct {
		name string
		v    domain.IssueViewer
		want []int64
	}{
		{"nobody", domain.IssueViewer{}, []int64{plain}},
		{"all", domain.IssueViewer{All: true}, []int64{bobsQ, secretQ, secretP, plain}},
		{"the author", domain.IssueViewer{UserID: bob.ID}, []int64{bobsQ, plain}},
		{"reporter of p", domain.IssueViewer{UserID: bob.ID, ProjectIDs: []int64{p.ID}}, []int64{bobsQ, secretP, plain}},
		{"reporter in h", domain.IssueViewer{UserID: 99999, NamespaceIDs: []int64{h.ID}}, []int64{bobsQ, secretQ, plain}},
	} {
		got, n, err := s.Events.List(ctx, domain.EventFilter{Readable: read, Viewer: c.v})
		storeWantList(t, c.name, storeEventIDs(got), n, err, c.want, len(c.want))
	}
	// The viewer combines with the other filters.
	got, n, err := s.Events.List(ctx, domain.EventFilter{Readable: read, ProjectID: q.ID, Viewer: domain.IssueViewer{UserID: bob.ID}})
	storeWantList(t, "project q for bob", storeEventIDs(got), n, err, []int64{bobsQ}, 1)

	// An issue made confidential after its events were recorded hides
	// them, and the events of the notes on it, from then on.
	issue := func(title string) *domain.Issue {
		is := &domain.Issue{ProjectID: p.ID, Title: title, State: domain.IssueOpened, AuthorID: alice.ID}
		if err := s.Issues.Create(ctx, is); err != nil {
			t.Fatalf("create issue: %v", err)
		}
		return is
	}
	later, open := issue("later"), issue("open")
	note := &domain.Note{ProjectID: &p.ID, NoteableType: domain.TargetIssue, NoteableID: later.ID, AuthorID: alice.ID, Body: "x"}
	if err := s.Notes.Create(ctx, note); err != nil {
		t.Fatal(err)
	}
	opened := storeEvent(t, s, domain.Event{ProjectID: &p.ID, AuthorID: alice.ID, TargetType: domain.TargetIssue, TargetID: &later.ID, CreatedAt: at(5)})
	commented := storeEvent(t, s, domain.Event{ProjectID: &p.ID, AuthorID: alice.ID, Action: domain.ActionCommented,
		TargetType: domain.TargetNote, TargetID: &note.ID, NoteID: &note.ID, CreatedAt: at(6)})
	// Another noteable type and a milestone with the issue's ID stay shown.
	sameID := storeEvent(t, s, domain.Event{ProjectID: &p.ID, AuthorID: alice.ID, TargetType: domain.TargetMilestone, TargetID: &later.ID, CreatedAt: at(7)})
	openEv := storeEvent(t, s, domain.Event{ProjectID: &p.ID, AuthorID: alice.ID, TargetType: domain.TargetIssue, TargetID: &open.ID, CreatedAt: at(8)})
	f := domain.EventFilter{Readable: read, ProjectID: p.ID, Viewer: domain.IssueViewer{UserID: bob.ID}}
	got, n, err = s.Events.List(ctx, f)
	storeWantList(t, "before the issue is confidential", storeEventIDs(got), n, err, []int64{openEv, sameID, commented, opened, plain}, 5)
	if _, err := s.Issues.Update(ctx, p.ID, later.IID, func(is *domain.Issue) error { is.Confidential = true; return nil }); err != nil {
		t.Fatalf("make the issue confidential: %v", err)
	}
	got, n, err = s.Events.List(ctx, f)
	storeWantList(t, "after", storeEventIDs(got), n, err, []int64{openEv, sameID, plain}, 3)
	f.Viewer = domain.IssueViewer{UserID: alice.ID}
	got, n, err = s.Events.List(ctx, f)
	storeWantList(t, "after, for their author", storeEventIDs(got), n, err, []int64{openEv, sameID, commented, opened, secretP, plain}, 6)
}
