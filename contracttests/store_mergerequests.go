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

const storeSHA3 = "3333333333333333333333333333333333333333"

// storeMR creates an open merge request of source into main in p by
// author, created at storeT0; mod, when set, adjusts it first.
func storeMR(t *testing.T, s Stores, p *domain.Project, author int64, source string, mod func(m *domain.MergeRequest)) *domain.MergeRequest {
	t.Helper()
	m := &domain.MergeRequest{
		ProjectID: p.ID, SourceProjectID: p.ID, TargetProjectID: p.ID,
		Title: "MR " + source, State: domain.MROpened, SourceBranch: source, TargetBranch: "main",
		AuthorID: author, MergeStatus: domain.MergeUnchecked, CreatedAt: storeT0, UpdatedAt: storeT0,
	}
	if mod != nil {
		mod(m)
	}
	if err := s.MergeRequests.Create(t.Context(), m); err != nil {
		t.Fatalf("create merge request %s: %v", source, err)
	}
	return m
}

func storeMRIIDs(ms []domain.MergeRequest) []int64 {
	return storeIDs(ms, func(m domain.MergeRequest) int64 { return m.IID })
}

func storeMRIDs(ms []domain.MergeRequest) []int64 {
	return storeIDs(ms, func(m domain.MergeRequest) int64 { return m.ID })
}

// storeMRIIDsOf lists the IIDs of merge requests.
func storeMRIIDsOf(ms ...*domain.MergeRequest) []int64 {
	return storeIDs(ms, func(m *domain.MergeRequest) int64 { return m.IID })
}

// storeWantUTC fails unless every time of m is in UTC.
func storeWantUTC(t *testing.T, what string, m *domain.MergeRequest) {
	t.Helper()
	for _, tm := range []*time.Time{&m.CreatedAt, &m.UpdatedAt, m.LockedAt, m.MergedAt, m.ClosedAt} {
		if tm != nil && tm.Location() != time.UTC {
			t.Errorf("%s: time %v not in UTC", what, tm)
		}
	}
}

func storeMergeRequestCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p := storeRepoProject(t, s, "p")
	fork := storeRepoProject(t, s, "fork")
	zone := time.FixedZone("X", -5*3600)
	m := &domain.MergeRequest{
		ProjectID: p.ID, SourceProjectID: fork.ID, TargetProjectID: p.ID,
		Title: `WIP: Ünïcode "title"`, Description: "# Why\n\nbecause", State: domain.MRReopened,
		SourceBranch: "feature/x", TargetBranch: "main", AuthorID: alice.ID, AssigneeID: &bob.ID,
		MilestoneID: storePtr(int64(7)), Labels: []string{"bug", "Backend", "bug", "ä", "a b"},
		MergeStatus: domain.MergeCanBeMerged, SourceSHA: storeSHA1, TargetSHA: storeSHA2, BaseSHA: storeSHA3,
		MergeWhenPipelineSucceeds: true, MergeUserID: &bob.ID, MergeCommitMessage: "Merge it",
		ShouldRemoveSourceBranch: true, ForceRemoveSourceBranch: true, PipelineSucceededSHA: storeSHA1,
		MergeCommitSHA: storePtr(storeSHA2), InFlightSHA: storeSHA3, LockedAt: storePtr(storeT0.Add(time.Minute).In(zone)),
		Upvotes: 3, Downvotes: 1, UserNotesCount: 9,
		CreatedAt: storeT0.In(zone), UpdatedAt: storeT0.Add(time.Hour), MergedAt: storePtr(storeT0.Add(2 * time.Hour)),
		ClosedAt: storePtr(storeT0.Add(3 * time.Hour).In(zone)),
	}
	want := *m
	if err := s.MergeRequests.Create(ctx, m); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if m.ID <= 0 {
		t.Fatalf("Create set ID %d", m.ID)
	}
	// Counts are derived (notes, awards), never stored from the input.
	want.ID, want.IID, want.UserNotesCount, want.Upvotes, want.Downvotes = m.ID, 1, 0, 0, 0
	want.Labels = []string{"Backend", "a b", "bug", "ä"} // sorted bytewise, unique
	if diff := cmp.Diff(&want, m); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	storeWantUTC(t, "Create", m)
	got, err := s.MergeRequests.Get(ctx, p.ID, 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	storeWantUTC(t, "Get", got)
	byID, err := s.MergeRequests.GetByID(ctx, m.ID)
	if err != nil {
		t.Fatalf("GetByID: %v", err)
	}
	if diff := cmp.Diff(&want, byID); diff != "" {
		t.Errorf("GetByID (-want +got):\n%s", diff)
	}

	// Defaults: opened, unchecked, the project on every side, times now,
	// no labels.
	before := time.Now().Add(-time.Second)
	bare := &domain.MergeRequest{ProjectID: p.ID, Title: "bare", SourceBranch: "b", TargetBranch: "main", AuthorID: alice.ID}
	if err := s.MergeRequests.Create(ctx, bare); err != nil {
		t.Fatalf("Create bare: %v", err)
	}
	if bare.IID != 2 || bare.State != domain.MROpened || bare.MergeStatus != domain.MergeUnchecked ||
		bare.SourceProjectID != p.ID || bare.TargetProjectID != p.ID || bare.Labels != nil {
		t.Errorf("defaults: %+v", bare)
	}
	if bare.CreatedAt.Before(before) || !bare.UpdatedAt.Equal(bare.CreatedAt) || bare.CreatedAt.Location() != time.UTC {
		t.Errorf("zero times: %v %v", bare.CreatedAt, bare.UpdatedAt)
	}
	got, err = s.MergeRequests.Get(ctx, p.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(bare, got); diff != "" {
		t.Errorf("Get bare (-want +got):\n%s", diff)
	}

	_, err = s.MergeRequests.Get(ctx, p.ID, 3)
	storeWantMsg(t, err, core.ErrNotFound, "404 Merge Request Not Found", "Get unknown IID")
	_, err = s.MergeRequests.Get(ctx, fork.ID, 1)
	storeWantKind(t, err, core.ErrNotFound, "Get IID of another project")
	_, err = s.MergeRequests.GetByID(ctx, m.ID+1000)
	storeWantKind(t, err, core.ErrNotFound, "GetByID unknown")
	err = s.MergeRequests.Create(ctx, &domain.MergeRequest{ProjectID: 99999, Title: "x", SourceBranch: "a", TargetBranch: "b", AuthorID: alice.ID})
	storeWantKind(t, err, core.ErrNotFound, "Create in unknown project")
}

// storeMergeRequestIIDs: IIDs count per project and are never handed out
// again, not even after a delete; a failed create gives its IID back.
func storeMergeRequestIIDs(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	for i, want := range []struct {
		p   *domain.Project
		iid int64
	}{{p, 1}, {p, 2}, {q, 1}, {p, 3}, {q, 2}} {
		m := storeMR(t, s, want.p, alice.ID, fmt.Sprint("b", i), nil)
		if m.IID != want.iid {
			t.Errorf("merge request %d in project %d: IID %d, want %d", i, want.p.ID, m.IID, want.iid)
		}
	}
	if err := s.MergeRequests.Delete(ctx, p.ID, 3); err != nil {
		t.Fatal(err)
	}
	if m := storeMR(t, s, p, alice.ID, "after-delete", nil); m.IID != 4 {
		t.Errorf("IID after deleting the last one = %d, want 4 (never reused)", m.IID)
	}
	dup := &domain.MergeRequest{ProjectID: p.ID, Title: "dup", SourceBranch: "after-delete", TargetBranch: "main", AuthorID: alice.ID}
	storeWantKind(t, s.MergeRequests.Create(ctx, dup), core.ErrConflict, "duplicate open merge request")
	if m := storeMR(t, s, p, alice.ID, "after-conflict", nil); m.IID != 5 {
		t.Errorf("IID after a failed create = %d, want 5", m.IID)
	}
}

func storeMergeRequestOpenConflict(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	fork := storeRepoProject(t, s, "fork")
	first := storeMR(t, s, p, alice.ID, "feature", func(m *domain.MergeRequest) { m.Title = `First "one"` })
	create := func(mod func(m *domain.MergeRequest)) error {
		m := &domain.MergeRequest{ProjectID: p.ID, SourceProjectID: p.ID, TargetProjectID: p.ID, Title: "Second",
			State: domain.MROpened, SourceBranch: "feature", TargetBranch: "main", AuthorID: alice.ID}
		if mod != nil {
			mod(m)
		}
		return s.MergeRequests.Create(ctx, m)
	}
	msg := `Cannot Create: This merge request already exists: ["First \"one\""]`
	storeWantMsg(t, create(nil), core.ErrConflict, msg, "second open merge request")
	storeWantMsg(t, create(func(m *domain.MergeRequest) { m.State = domain.MRReopened }), core.ErrConflict, msg, "second one reopened")
	// Another target branch, another source project, or a closed one is
	// fine (IIDs 2 to 6: the failures gave theirs back).
	for _, c := range []struct {
		what string
		mod  func(m *domain.MergeRequest)
	}{
		{"other target", func(m *domain.MergeRequest) { m.TargetBranch = "dev" }},
		{"other source", func(m *domain.MergeRequest) { m.SourceProjectID = fork.ID }},
		{"closed one", func(m *domain.MergeRequest) { m.State = domain.MRClosed }},
		{"merged one", func(m *domain.MergeRequest) { m.State = domain.MRMerged }},
		{"another closed one", func(m *domain.MergeRequest) { m.State = domain.MRClosed }},
	} {
		if err := create(c.mod); err != nil {
			t.Errorf("%s: %v", c.what, err)
		}
	}
	if _, n, err := s.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: p.ID}); err != nil || n != 6 {
		t.Errorf("List = %d, %v; want 6", n, err)
	}
	// Reopening a closed one into the open pair is a conflict; nothing is saved.
	_, err := s.MergeRequests.Update(ctx, p.ID, 4, func(m *domain.MergeRequest) error {
		m.State, m.Title = domain.MRReopened, "changed"
		return nil
	})
	storeWantKind(t, err, core.ErrConflict, "reopen into an open pair")
	if got, _ := s.MergeRequests.Get(ctx, p.ID, 4); got.State != domain.MRClosed || got.Title != "Second" {
		t.Errorf("after the failed reopen: %s %q", got.State, got.Title)
	}
	// So is retargeting an open one onto the pair.
	_, err = s.MergeRequests.Update(ctx, p.ID, 2, func(m *domain.MergeRequest) error { m.TargetBranch = "main"; return nil })
	storeWantKind(t, err, core.ErrConflict, "retarget onto an open pair")
	// Once the first is closed, the other can reopen.
	if _, err := s.MergeRequests.Update(ctx, p.ID, first.IID, func(m *domain.MergeRequest) error { m.State = domain.MRClosed; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MergeRequests.Update(ctx, p.ID, 4, func(m *domain.MergeRequest) error { m.State = domain.MRReopened; return nil }); err != nil {
		t.Errorf("reopen after the first closed: %v", err)
	}
	// Inside a transaction the conflict leaves it usable.
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.MergeRequests.Create(ctx, &domain.MergeRequest{ProjectID: p.ID, Title: "x", SourceBranch: "feature", TargetBranch: "main", AuthorID: alice.ID}); !errors.Is(err, core.ErrConflict) {
			return fmt.Errorf("conflict in tx: %v", err)
		}
		return s.MergeRequests.Create(ctx, &domain.MergeRequest{ProjectID: p.ID, Title: "y", SourceBranch: "other", TargetBranch: "main", AuthorID: alice.ID})
	})
	if err != nil {
		t.Fatalf("tx after conflict: %v", err)
	}
}

func storeMergeRequestUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p := storeRepoProject(t, s, "p")
	other := storeRepoProject(t, s, "other")
	m := storeMR(t, s, p, alice.ID, "feature", func(m *domain.MergeRequest) { m.Labels = []string{"a", "b"} })
	if err := s.Notes.Create(ctx, &domain.Note{ProjectID: &p.ID, NoteableType: domain.TargetMergeRequest, NoteableID: m.ID, AuthorID: bob.ID, Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	got, err := s.MergeRequests.Update(ctx, p.ID, m.IID, func(x *domain.MergeRequest) error {
		if x.UserNotesCount != 1 || !slices.Equal(x.Labels, []string{"a", "b"}) {
			t.Errorf("fn sees %d notes and labels %v", x.UserNotesCount, x.Labels)
		}
		x.Title, x.AssigneeID, x.Labels = "New title", &bob.ID, []string{"c", "a", "c"}
		x.State, x.MergeCommitSHA, x.MergedAt = domain.MRMerged, storePtr(storeSHA1), storePtr(storeT0.Add(time.Hour))
		x.LockedAt, x.InFlightSHA = storePtr(storeT0), storeSHA2
		// Identity and the notes count are not the caller's to change.
		x.ID, x.IID, x.ProjectID, x.TargetProjectID, x.UserNotesCount = 0, 99, other.ID, other.ID, 42
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := *m
	want.Title, want.AssigneeID, want.Labels = "New title", &bob.ID, []string{"a", "c"}
	want.State, want.MergeCommitSHA, want.MergedAt = domain.MRMerged, storePtr(storeSHA1), storePtr(storeT0.Add(time.Hour))
	want.LockedAt, want.InFlightSHA, want.UserNotesCount = storePtr(storeT0), storeSHA2, 1
	want.UpdatedAt = got.UpdatedAt
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if got.UpdatedAt.Before(before) || got.UpdatedAt.Location() != time.UTC {
		t.Errorf("UpdatedAt = %v, want now in UTC", got.UpdatedAt)
	}
	read, err := s.MergeRequests.Get(ctx, p.ID, m.IID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, read); diff != "" {
		t.Errorf("Get after Update (-want +got):\n%s", diff)
	}
	// An UpdatedAt set by fn is kept; labels can be emptied.
	got, err = s.MergeRequests.Update(ctx, p.ID, m.IID, func(x *domain.MergeRequest) error {
		x.UpdatedAt, x.Labels = storeT0.Add(5*time.Hour), nil
		return nil
	})
	if err != nil || !got.UpdatedAt.Equal(storeT0.Add(5*time.Hour)) || got.Labels != nil {
		t.Errorf("Update with UpdatedAt: %+v, %v", got, err)
	}
	if read, _ := s.MergeRequests.Get(ctx, p.ID, m.IID); read.Labels != nil {
		t.Errorf("labels after emptying: %v", read.Labels)
	}
	// fn's error comes back as is and nothing is saved.
	boom := errors.New("boom")
	_, err = s.MergeRequests.Update(ctx, p.ID, m.IID, func(x *domain.MergeRequest) error {
		x.Title, x.Labels = "lost", []string{"lost"}
		return boom
	})
	if err != boom {
		t.Errorf("Update with failing fn = %v, want boom as is", err)
	}
	if read, _ := s.MergeRequests.Get(ctx, p.ID, m.IID); read.Title != "New title" || read.Labels != nil {
		t.Errorf("failed fn saved: %q %v", read.Title, read.Labels)
	}
	_, err = s.MergeRequests.Update(ctx, p.ID, m.IID+1, func(*domain.MergeRequest) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update unknown IID")
	_, err = s.MergeRequests.Update(ctx, other.ID, m.IID, func(*domain.MergeRequest) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update in another project")
}

func storeMergeRequestDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	gone := storeMR(t, s, p, alice.ID, "gone", func(m *domain.MergeRequest) { m.Labels = []string{"x"} })
	kept := storeMR(t, s, p, alice.ID, "kept", func(m *domain.MergeRequest) { m.Labels = []string{"x"} })
	for _, id := range []int64{gone.ID, kept.ID} {
		if err := s.Notes.Create(ctx, &domain.Note{ProjectID: &p.ID, NoteableType: domain.TargetMergeRequest, NoteableID: id, AuthorID: alice.ID, Body: "n"}); err != nil {
			t.Fatal(err)
		}
		target := domain.Subject{Type: domain.TargetMergeRequest, ID: id}
		if _, _, err := s.Todos.CreatePending(ctx, &domain.Todo{UserID: alice.ID, ProjectID: p.ID, AuthorID: alice.ID,
			TargetType: target.Type, TargetID: id, Action: domain.TodoMarked}); err != nil {
			t.Fatal(err)
		}
		if err := s.Subscriptions.Set(ctx, target, alice.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.MergeRequests.Delete(ctx, p.ID, gone.IID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	for _, c := range []struct {
		id   int64
		want int
	}{{gone.ID, 0}, {kept.ID, 1}} {
		todos, _, err := s.Todos.List(ctx, domain.TodoFilter{UserID: alice.ID, TargetType: domain.TargetMergeRequest})
		n := 0
		for _, td := range todos {
			if td.TargetID == c.id {
				n++
			}
		}
		sub, serr := s.Subscriptions.Get(ctx, domain.Subject{Type: domain.TargetMergeRequest, ID: c.id}, alice.ID)
		if err != nil || serr != nil || n != c.want || (sub != nil) != (c.want == 1) {
			t.Errorf("merge request %d after deleting %d: %d todos, subscription %v (%v %v); want %d", c.id, gone.ID, n, sub, err, serr, c.want)
		}
	}
	_, err := s.MergeRequests.Get(ctx, p.ID, gone.IID)
	storeWantKind(t, err, core.ErrNotFound, "Get deleted")
	storeWantKind(t, s.MergeRequests.Delete(ctx, p.ID, gone.IID), core.ErrNotFound, "Delete again")
	storeWantKind(t, s.MergeRequests.Delete(ctx, p.ID+1000, kept.IID), core.ErrNotFound, "Delete in another project")
	list, n, err := s.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: p.ID, Labels: []string{"x"}})
	storeWantList(t, "labelled after delete", storeMRIIDs(list), n, err, []int64{kept.IID}, 1)
	if _, n, err := s.Notes.List(ctx, domain.TargetMergeRequest, gone.ID, domain.Page{}); err != nil || n != 0 {
		t.Errorf("notes of the deleted merge request: %d, %v", n, err)
	}
	if _, n, err := s.Notes.List(ctx, domain.TargetMergeRequest, kept.ID, domain.Page{}); err != nil || n != 1 {
		t.Errorf("notes of the kept merge request: %d, %v", n, err)
	}
	// A project takes its merge requests and their notes along.
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.MergeRequests.GetByID(ctx, kept.ID)
	storeWantKind(t, err, core.ErrNotFound, "merge request of a deleted project")
	if _, n, err := s.Notes.List(ctx, domain.TargetMergeRequest, kept.ID, domain.Page{}); err != nil || n != 0 {
		t.Errorf("notes of a deleted project: %d, %v", n, err)
	}
}

func storeMergeRequestGetMany(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	a := storeMR(t, s, p, alice.ID, "a", func(m *domain.MergeRequest) { m.Labels = []string{"z", "y"} })
	b := storeMR(t, s, q, alice.ID, "b", nil)
	storeMR(t, s, p, alice.ID, "c", nil)
	if err := s.Notes.Create(ctx, &domain.Note{NoteableType: domain.TargetMergeRequest, NoteableID: b.ID, AuthorID: alice.ID, Body: "n"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.MergeRequests.GetMany(ctx, []int64{b.ID, a.ID, 99999, a.ID})
	if err != nil {
		t.Fatalf("GetMany: %v", err)
	}
	slices.SortFunc(got, func(x, y domain.MergeRequest) int { return int(x.ID - y.ID) })
	wantB := *b
	wantB.UserNotesCount = 1
	if diff := cmp.Diff([]domain.MergeRequest{*a, wantB}, got); diff != "" {
		t.Errorf("GetMany (-want +got):\n%s", diff)
	}
	for _, ids := range [][]int64{nil, {}, {99999}} {
		got, err := s.MergeRequests.GetMany(ctx, ids)
		if err != nil || len(got) != 0 {
			t.Errorf("GetMany(%v) = %v, %v; want none", ids, got, err)
		}
	}
}

func storeMergeRequestListFilters(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p := storeRepoProject(t, s, "p")
	other := storeRepoProject(t, s, "other")
	h := time.Hour
	m1 := storeMR(t, s, p, alice.ID, "f1", func(m *domain.MergeRequest) {
		m.AssigneeID, m.MilestoneID, m.Labels = &bob.ID, storePtr(int64(1)), []string{"ui", "bug"}
	})
	m2 := storeMR(t, s, p, bob.ID, "f2", func(m *domain.MergeRequest) {
		m.State, m.TargetBranch, m.MilestoneID, m.Labels, m.CreatedAt = domain.MRClosed, "dev", storePtr(int64(2)), []string{"bug"}, storeT0.Add(h)
	})
	m3 := storeMR(t, s, p, alice.ID, "f3", func(m *domain.MergeRequest) {
		m.State, m.AssigneeID, m.CreatedAt = domain.MRMerged, &alice.ID, storeT0.Add(2*h)
	})
	m4 := storeMR(t, s, p, bob.ID, "f4", func(m *domain.MergeRequest) {
		m.State, m.TargetBranch, m.AssigneeID, m.MilestoneID, m.Labels, m.CreatedAt = domain.MRReopened, "dev", &bob.ID, storePtr(int64(1)), []string{"ui"}, storeT0.Add(3*h)
	})
	// The same everything in another project never shows.
	storeMR(t, s, other, alice.ID, "f1", func(m *domain.MergeRequest) {
		m.AssigneeID, m.MilestoneID, m.Labels = &bob.ID, storePtr(int64(1)), []string{"ui", "bug"}
	})
	iids := storeMRIIDsOf
	for _, c := range []struct {
		what string
		f    domain.MergeRequestFilter
		want []int64
	}{
		{"all", domain.MergeRequestFilter{}, iids(m1, m2, m3, m4)},
		{"open states", domain.MergeRequestFilter{States: []domain.MergeRequestState{domain.MROpened, domain.MRReopened}}, iids(m1, m4)},
		{"merged", domain.MergeRequestFilter{States: []domain.MergeRequestState{domain.MRMerged}}, iids(m3)},
		{"iids", domain.MergeRequestFilter{IIDs: []int64{m4.IID, m2.IID, 999}}, iids(m2, m4)},
		{"author", domain.MergeRequestFilter{AuthorID: alice.ID}, iids(m1, m3)},
		{"assignee", domain.MergeRequestFilter{AssigneeID: bob.ID}, iids(m1, m4)},
		{"milestone", domain.MergeRequestFilter{MilestoneIDs: []int64{1}}, iids(m1, m4)},
		{"milestones", domain.MergeRequestFilter{MilestoneIDs: []int64{1, 2}}, iids(m1, m2, m4)},
		{"no milestone", domain.MergeRequestFilter{NoMilestone: true}, iids(m3)},
		{"one label", domain.MergeRequestFilter{Labels: []string{"bug"}}, iids(m1, m2)},
		{"every label", domain.MergeRequestFilter{Labels: []string{"bug", "ui"}}, iids(m1)},
		{"repeated label", domain.MergeRequestFilter{Labels: []string{"ui", "ui"}}, iids(m1, m4)},
		{"unknown label", domain.MergeRequestFilter{Labels: []string{"bug", "nope"}}, iids()},
		{"no labels", domain.MergeRequestFilter{NoLabels: true}, iids(m3)},
		{"source branch", domain.MergeRequestFilter{SourceBranch: "f2"}, iids(m2)},
		{"target branch", domain.MergeRequestFilter{TargetBranch: "dev"}, iids(m2, m4)},
		{"created after (inclusive)", domain.MergeRequestFilter{CreatedAfter: storePtr(storeT0.Add(h))}, iids(m2, m3, m4)},
		{"created before (inclusive)", domain.MergeRequestFilter{CreatedBefore: storePtr(storeT0.Add(2 * h))}, iids(m1, m2, m3)},
		{"created between", domain.MergeRequestFilter{CreatedAfter: storePtr(storeT0.Add(h / 2)), CreatedBefore: storePtr(storeT0.Add(2 * h).In(time.FixedZone("Y", 7200)))}, iids(m2, m3)},
		{"combined", domain.MergeRequestFilter{TargetBranch: "main", AuthorID: alice.ID, Labels: []string{"bug"}}, iids(m1)},
	} {
		f := c.f
		f.ProjectID, f.Ascending = p.ID, true
		list, n, err := s.MergeRequests.List(ctx, f)
		storeWantList(t, c.what, storeMRIIDs(list), n, err, c.want, len(c.want))
	}
	// Every item of a page carries its own labels.
	list, _, err := s.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: p.ID, Ascending: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][]string{}
	for _, m := range list {
		got[m.IID] = m.Labels
	}
	want := map[int64][]string{m1.IID: {"bug", "ui"}, m2.IID: {"bug"}, m3.IID: nil, m4.IID: {"ui"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels in the list (-want +got):\n%s", diff)
	}
}

func storeMergeRequestListReadable(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	g := storeGroup(t, s, "g", nil, domain.Public)
	g2 := storeGroup(t, s, "g2", nil, domain.Private)
	pub := storeProject(t, s, g, "pub", func(p *domain.Project) { p.Visibility = domain.Public })
	intl := storeProject(t, s, g, "intl", func(p *domain.Project) { p.Visibility = domain.Internal })
	priv := storeProject(t, s, g, "priv", nil)
	priv2 := storeProject(t, s, g2, "priv2", nil)
	ids := map[*domain.Project]int64{}
	for _, p := range []*domain.Project{pub, intl, priv, priv2} {
		ids[p] = storeMR(t, s, p, alice.ID, "f", nil).ID
	}
	for _, c := range []struct {
		what string
		r    domain.ReadScope
		want []int64
	}{
		{"anonymous", domain.ReadScope{}, []int64{ids[pub]}},
		{"internal", domain.ReadScope{Internal: true}, []int64{ids[pub], ids[intl]}},
		{"member of a project", domain.ReadScope{ProjectIDs: []int64{priv.ID, priv.ID}}, []int64{ids[pub], ids[priv]}},
		{"member of a group", domain.ReadScope{NamespaceIDs: []int64{g2.ID}}, []int64{ids[pub], ids[priv2]}},
		{"admin", domain.ReadScope{All: true}, []int64{ids[pub], ids[intl], ids[priv], ids[priv2]}},
	} {
		list, n, err := s.MergeRequests.List(ctx, domain.MergeRequestFilter{Readable: c.r})
		storeWantIDs(t, c.what, storeMRIDs(list), err, c.want...)
		if n != len(c.want) {
			t.Errorf("%s: total %d, want %d", c.what, n, len(c.want))
		}
	}
	// With a project the caller has checked access already.
	list, n, err := s.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: priv2.ID})
	storeWantList(t, "project without scope", storeMRIDs(list), n, err, []int64{ids[priv2]}, 1)

	// A project whose merge requests are turned off keeps them, and only
	// EnabledOnly (the API's lists) leaves them out, for administrators too.
	off := storeProject(t, s, g, "off", func(p *domain.Project) {
		p.Visibility = domain.Public
		p.MergeRequestsEnabled = false
	})
	offMR := storeMR(t, s, off, alice.ID, "f", nil).ID
	for _, c := range []struct {
		what string
		f    domain.MergeRequestFilter
		want []int64
	}{
		{"admin, every project", domain.MergeRequestFilter{Readable: domain.ReadScope{All: true}}, []int64{ids[pub], ids[intl], ids[priv], ids[priv2], offMR}},
		{"admin, enabled only", domain.MergeRequestFilter{Readable: domain.ReadScope{All: true}, EnabledOnly: true}, []int64{ids[pub], ids[intl], ids[priv], ids[priv2]}},
		{"anonymous, enabled only", domain.MergeRequestFilter{EnabledOnly: true}, []int64{ids[pub]}},
	} {
		list, n, err := s.MergeRequests.List(ctx, c.f)
		storeWantIDs(t, c.what, storeMRIDs(list), err, c.want...)
		if n != len(c.want) {
			t.Errorf("%s: total %d, want %d", c.what, n, len(c.want))
		}
	}
}

func storeMergeRequestListOrderPages(t *testing.T, s Stores) {
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	storeCheckListOrderPages(t, func(n int, created, updated time.Time) int64 {
		return storeMR(t, s, p, alice.ID, fmt.Sprint("b", n), func(m *domain.MergeRequest) { m.CreatedAt, m.UpdatedAt = created, updated }).IID
	}, func(q storeListQuery) ([]int64, int, error) {
		got, n, err := s.MergeRequests.List(t.Context(), domain.MergeRequestFilter{ProjectID: p.ID, OrderBy: q.OrderBy,
			Ascending: q.Ascending, Page: q.Page, CreatedBefore: q.CreatedBefore})
		return storeMRIIDs(got), n, err
	})
}

func storeMergeRequestUserNotesCount(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	a := storeMR(t, s, p, alice.ID, "a", nil)
	b := storeMR(t, s, p, alice.ID, "b", nil)
	note := func(typ string, id int64, system bool) {
		t.Helper()
		if err := s.Notes.Create(ctx, &domain.Note{ProjectID: &p.ID, NoteableType: typ, NoteableID: id, AuthorID: alice.ID, Body: "n", System: system}); err != nil {
			t.Fatal(err)
		}
	}
	note(domain.TargetMergeRequest, a.ID, false)
	note(domain.TargetMergeRequest, a.ID, false)
	note(domain.TargetMergeRequest, a.ID, true)
	note(domain.TargetMergeRequest, b.ID, true)
	// Notes of other noteables with the same IDs do not count.
	note(domain.TargetIssue, a.ID, false)
	note(domain.TargetIssue, b.ID, false)
	want := map[int64]int{a.ID: 2, b.ID: 0}
	check := func(what string, ms ...domain.MergeRequest) {
		t.Helper()
		got := map[int64]int{}
		for _, m := range ms {
			got[m.ID] = m.UserNotesCount
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: notes counts (-want +got):\n%s", what, diff)
		}
	}
	ga, err := s.MergeRequests.Get(ctx, p.ID, a.IID)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := s.MergeRequests.GetByID(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("Get, GetByID", *ga, *gb)
	many, err := s.MergeRequests.GetMany(ctx, []int64{a.ID, b.ID})
	if err != nil {
		t.Fatal(err)
	}
	check("GetMany", many...)
	list, _, err := s.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	check("List", list...)
	open, err := s.MergeRequests.OpenOnBranch(ctx, p.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	check("OpenOnBranch", open...)
	counts, err := s.Notes.CountUserNotes(ctx, domain.TargetMergeRequest, []int64{a.ID, b.ID})
	if err != nil || !cmp.Equal(counts, map[int64]int{a.ID: 2}) {
		t.Errorf("CountUserNotes = %v, %v; want only a with 2", counts, err)
	}
}

func storeMergeRequestOpenOnBranch(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	fork := storeRepoProject(t, s, "fork")
	other := storeRepoProject(t, s, "other")
	src := storeMR(t, s, p, alice.ID, "topic", nil)
	tgt := storeMR(t, s, p, alice.ID, "x", func(m *domain.MergeRequest) { m.TargetBranch = "topic"; m.State = domain.MRReopened })
	storeMR(t, s, p, alice.ID, "topic", func(m *domain.MergeRequest) { m.TargetBranch = "dev"; m.State = domain.MRClosed })
	storeMR(t, s, p, alice.ID, "topic", func(m *domain.MergeRequest) { m.TargetBranch = "rel"; m.State = domain.MRMerged })
	storeMR(t, s, p, alice.ID, "unrelated", nil)
	// From the fork into p: a push to the fork's topic moves it, a push to
	// p's topic does not.
	fromFork := storeMR(t, s, p, alice.ID, "topic", func(m *domain.MergeRequest) { m.SourceProjectID = fork.ID; m.TargetBranch = "dev" })
	storeMR(t, s, other, alice.ID, "topic", nil)
	got, err := s.MergeRequests.OpenOnBranch(ctx, p.ID, "topic")
	storeWantIDs(t, "p topic", storeMRIDs(got), err, src.ID, tgt.ID)
	got, err = s.MergeRequests.OpenOnBranch(ctx, fork.ID, "topic")
	storeWantIDs(t, "fork topic", storeMRIDs(got), err, fromFork.ID)
	got, err = s.MergeRequests.OpenOnBranch(ctx, p.ID, "dev")
	storeWantIDs(t, "p dev", storeMRIDs(got), err, fromFork.ID)
	got, err = s.MergeRequests.OpenOnBranch(ctx, p.ID, "nope")
	storeWantIDs(t, "no such branch", storeMRIDs(got), err)
}

func storeMergeRequestLocked(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	early := storeMR(t, s, p, alice.ID, "early", func(m *domain.MergeRequest) { m.LockedAt = storePtr(storeT0) })
	late := storeMR(t, s, q, alice.ID, "late", func(m *domain.MergeRequest) { m.LockedAt = storePtr(storeT0.Add(time.Hour)) })
	storeMR(t, s, p, alice.ID, "unlocked", nil)
	got, err := s.MergeRequests.Locked(ctx, storeT0)
	storeWantIDs(t, "before the first lock (exclusive)", storeMRIDs(got), err)
	got, err = s.MergeRequests.Locked(ctx, storeT0.Add(time.Minute).In(time.FixedZone("Z", 3600)))
	storeWantIDs(t, "after the first", storeMRIDs(got), err, early.ID)
	got, err = s.MergeRequests.Locked(ctx, storeT0.Add(2*time.Hour))
	storeWantIDs(t, "after both", storeMRIDs(got), err, early.ID, late.ID)
	if len(got) == 2 && (got[0].LockedAt == nil || got[0].LockedAt.Location() != time.UTC) {
		t.Errorf("LockedAt = %v, want UTC", got[0].LockedAt)
	}
	// Releasing the lock takes it off the list.
	if _, err := s.MergeRequests.Update(ctx, p.ID, early.IID, func(m *domain.MergeRequest) error { m.LockedAt, m.InFlightSHA = nil, ""; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err = s.MergeRequests.Locked(ctx, storeT0.Add(2*time.Hour))
	storeWantIDs(t, "after the release", storeMRIDs(got), err, late.ID)
}

func storeMergeRequestTxRollback(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	m := storeMR(t, s, p, alice.ID, "kept", nil)
	boom := errors.New("boom")
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.MergeRequests.Create(ctx, &domain.MergeRequest{ProjectID: p.ID, Title: "x", SourceBranch: "rolled", TargetBranch: "main", AuthorID: alice.ID}); err != nil {
			return err
		}
		if _, err := s.MergeRequests.Update(ctx, p.ID, m.IID, func(m *domain.MergeRequest) error { m.Title = "rolled"; return nil }); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithinTx = %v, want boom", err)
	}
	if _, n, _ := s.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: p.ID}); n != 1 {
		t.Errorf("%d merge requests after the rollback, want 1", n)
	}
	if got, _ := s.MergeRequests.Get(ctx, p.ID, m.IID); got.Title != m.Title {
		t.Errorf("Title = %q after the rollback", got.Title)
	}
	if next := storeMR(t, s, p, alice.ID, "next", nil); next.IID != 2 {
		t.Errorf("IID after the rollback = %d, want 2", next.IID)
	}
}

// storeConcurrentMergeRequestIIDs: parallel creates in one project get the
// IIDs 1..n, each once.
func storeConcurrentMergeRequestIIDs(t *testing.T, s Stores) {
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	iids := make([]int64, storeWorkers)
	errs := storeRace(func(i int) error {
		m := &domain.MergeRequest{ProjectID: p.ID, Title: fmt.Sprint("mr ", i), SourceBranch: fmt.Sprint("b", i), TargetBranch: "main", AuthorID: alice.ID}
		err := s.MergeRequests.Create(t.Context(), m)
		iids[i] = m.IID
		return err
	})
	storeNoErrors(t, errs)
	want := make([]int64, storeWorkers)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if diff := cmp.Diff(want, storeSorted(iids)); diff != "" {
		t.Errorf("IIDs (-want +got):\n%s", diff)
	}
	list, n, err := s.MergeRequests.List(t.Context(), domain.MergeRequestFilter{ProjectID: p.ID, Ascending: true})
	storeWantList(t, "stored", storeSorted(storeMRIIDs(list)), n, err, want, storeWorkers)
}

func storeConcurrentMergeRequestUpdates(t *testing.T, s Stores) {
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	m := storeMR(t, s, p, alice.ID, "f", nil)
	storeCheckConcurrentUpdates(t, func(edit func(labels *[]string, description *string)) error {
		_, err := s.MergeRequests.Update(t.Context(), p.ID, m.IID, func(m *domain.MergeRequest) error { edit(&m.Labels, &m.Description); return nil })
		return err
	}, func() ([]string, string, error) {
		got, err := s.MergeRequests.Get(t.Context(), p.ID, m.IID)
		if err != nil {
			return nil, "", err
		}
		return got.Labels, got.Description, nil
	})
}
