package contracttests

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core/domain"
)

func storeEventIDs(es []domain.Event) []int64 {
	return storeIDs(es, func(e domain.Event) int64 { return e.ID })
}

func storeEvent(t *testing.T, s Stores, e domain.Event) int64 {
	t.Helper()
	if e.Action == "" {
		e.Action = domain.ActionCreated
	}
	if err := s.Events.Create(t.Context(), &e); err != nil {
		t.Fatalf("create event: %v", err)
	}
	return e.ID
}

func storeEventCreateList(t *testing.T, s Stores) {
	ctx := t.Context()
	push := &domain.Event{
		ProjectID: storePtr(int64(7)), AuthorID: 1, Action: domain.ActionPushed,
		Title: "pushed", Data: []byte(`{"ref":"refs/heads/main","commit_count":2}`), CreatedAt: storeT0,
	}
	note := &domain.Event{
		ProjectID: storePtr(int64(7)), AuthorID: 2, Action: domain.ActionCommented,
		TargetID: storePtr(int64(42)), TargetType: domain.TargetNote, TargetTitle: "Fix it",
		NoteID: storePtr(int64(42)), CreatedAt: storeT0.Add(time.Second),
	}
	joined := &domain.Event{AuthorID: 3, Action: domain.ActionJoined, TargetType: domain.TargetUser, CreatedAt: storeT0.Add(2 * time.Second)}
	for _, e := range []*domain.Event{push, note, joined} {
		if err := s.Events.Create(ctx, e); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if e.ID <= 0 {
			t.Fatalf("Create set ID %d", e.ID)
		}
	}
	got, n, err := s.Events.List(ctx, domain.EventFilter{Readable: domain.ReadScope{All: true}, Ascending: true})
	if err != nil || n != 3 {
		t.Fatalf("List = %d events, %v", n, err)
	}
	if diff := cmp.Diff([]domain.Event{*push, *note, *joined}, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if got[1].Data != nil || got[2].ProjectID != nil {
		t.Errorf("unset Data or ProjectID read back set: %+v", got)
	}
	zero := &domain.Event{AuthorID: 1, Action: domain.ActionCreated}
	before := time.Now().Add(-time.Second)
	if err := s.Events.Create(ctx, zero); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if zero.CreatedAt.Before(before) {
		t.Errorf("zero CreatedAt not set to now: %v", zero.CreatedAt)
	}
}

func storeEventFilters(t *testing.T, s Stores) {
	ctx := t.Context()
	at := func(h int) time.Time { return storeT0.Add(time.Duration(h) * time.Hour) }
	p1, p2 := storePtr(int64(1)), storePtr(int64(2))
	e1 := storeEvent(t, s, domain.Event{ProjectID: p1, AuthorID: 10, Action: domain.ActionCreated, TargetType: domain.TargetIssue, CreatedAt: at(1)})
	e2 := storeEvent(t, s, domain.Event{ProjectID: p1, AuthorID: 11, Action: domain.ActionMerged, TargetType: domain.TargetMergeRequest, CreatedAt: at(2)})
	e3 := storeEvent(t, s, domain.Event{ProjectID: p2, AuthorID: 10, Action: domain.ActionPushed, CreatedAt: at(3)})
	e4 := storeEvent(t, s, domain.Event{AuthorID: 10, Action: domain.ActionJoined, CreatedAt: at(4)})
	e5 := storeEvent(t, s, domain.Event{ProjectID: p2, AuthorID: 11, Action: domain.ActionClosed, TargetType: domain.TargetMergeRequest, CreatedAt: at(5)})
	all := domain.ReadScope{All: true}
	cases := []struct {
		name string
		f    domain.EventFilter
		want []int64 // newest first
	}{
		{"none", domain.EventFilter{Readable: all}, []int64{e5, e4, e3, e2, e1}},
		{"author", domain.EventFilter{Readable: all, AuthorID: 10}, []int64{e4, e3, e1}},
		{"project", domain.EventFilter{Readable: all, ProjectID: 2}, []int64{e5, e3}},
		{"action", domain.EventFilter{Readable: all, Action: domain.ActionMerged}, []int64{e2}},
		{"target type", domain.EventFilter{Readable: all, TargetType: domain.TargetMergeRequest}, []int64{e5, e2}},
		{"before (exclusive)", domain.EventFilter{Readable: all, Before: storePtr(at(3))}, []int64{e2, e1}},
		{"after (exclusive)", domain.EventFilter{Readable: all, After: storePtr(at(3))}, []int64{e5, e4}},
		{"between", domain.EventFilter{Readable: all, After: storePtr(at(1)), Before: storePtr(at(5))}, []int64{e4, e3, e2}},
		{"author and project", domain.EventFilter{Readable: all, AuthorID: 11, ProjectID: 1}, []int64{e2}},
		{"nothing matches", domain.EventFilter{Readable: all, AuthorID: 12}, nil},
	}
	for _, c := range cases {
		got, n, err := s.Events.List(ctx, c.f)
		storeWantList(t, c.name, storeEventIDs(got), n, err, c.want, len(c.want))
	}
}

func storeEventOrderAndPages(t *testing.T, s Stores) {
	ctx := t.Context()
	// Two events share a timestamp: the ID breaks the tie.
	a := storeEvent(t, s, domain.Event{AuthorID: 1, CreatedAt: storeT0.Add(time.Hour)})
	b := storeEvent(t, s, domain.Event{AuthorID: 1, CreatedAt: storeT0})
	c := storeEvent(t, s, domain.Event{AuthorID: 1, CreatedAt: storeT0})
	d := storeEvent(t, s, domain.Event{AuthorID: 1, CreatedAt: storeT0.Add(time.Microsecond)})
	all := domain.ReadScope{All: true}
	got, n, err := s.Events.List(ctx, domain.EventFilter{Readable: all})
	storeWantList(t, "descending", storeEventIDs(got), n, err, []int64{a, d, c, b}, 4)
	got, n, err = s.Events.List(ctx, domain.EventFilter{Readable: all, Ascending: true})
	storeWantList(t, "ascending", storeEventIDs(got), n, err, []int64{b, c, d, a}, 4)
	got, n, err = s.Events.List(ctx, domain.EventFilter{Readable: all, Page: domain.Page{Page: 2, PerPage: 3}})
	storeWantList(t, "page 2", storeEventIDs(got), n, err, []int64{b}, 4)
	got, n, err = s.Events.List(ctx, domain.EventFilter{Readable: all, Ascending: true, Page: domain.Page{Page: 1, PerPage: 2}})
	storeWantList(t, "ascending page 1", storeEventIDs(got), n, err, []int64{b, c}, 4)
}

func storeEventReadable(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	home := storePersonal(t, s, alice)
	g := storeGroup(t, s, "g", nil, domain.Public)
	pub := storeProject(t, s, g, "pub", func(p *domain.Project) { p.Visibility = domain.Public })
	intl := storeProject(t, s, g, "intl", func(p *domain.Project) { p.Visibility = domain.Internal })
	priv := storeProject(t, s, g, "priv", nil)
	mine := storeProject(t, s, home, "mine", nil)
	gone := storeProject(t, s, g, "gone", func(p *domain.Project) { p.Visibility = domain.Public })
	at := func(i int) time.Time { return storeT0.Add(time.Duration(i) * time.Second) }
	ePub := storeEvent(t, s, domain.Event{ProjectID: &pub.ID, AuthorID: alice.ID, CreatedAt: at(1)})
	eInt := storeEvent(t, s, domain.Event{ProjectID: &intl.ID, AuthorID: alice.ID, CreatedAt: at(2)})
	eNone := storeEvent(t, s, domain.Event{AuthorID: alice.ID, CreatedAt: at(3)})
	ePriv := storeEvent(t, s, domain.Event{ProjectID: &priv.ID, AuthorID: alice.ID, CreatedAt: at(4)})
	eMine := storeEvent(t, s, domain.Event{ProjectID: &mine.ID, AuthorID: alice.ID, CreatedAt: at(5)})
	eGone := storeEvent(t, s, domain.Event{ProjectID: &gone.ID, AuthorID: alice.ID, CreatedAt: at(6)})
	eUnknown := storeEvent(t, s, domain.Event{ProjectID: storePtr(int64(99999)), AuthorID: alice.ID, CreatedAt: at(7)})
	if err := s.Projects.Delete(ctx, gone.ID); err != nil {
		t.Fatalf("Delete project: %v", err)
	}
	cases := []struct {
		name  string
		scope domain.ReadScope
		want  []int64
	}{
		{"all (events of deleted projects too)", domain.ReadScope{All: true}, []int64{eUnknown, eGone, eMine, ePriv, eNone, eInt, ePub}},
		{"anonymous: public projects and no project", domain.ReadScope{}, []int64{eNone, ePub}},
		{"internal", domain.ReadScope{Internal: true}, []int64{eNone, eInt, ePub}},
		{"member of a project", domain.ReadScope{ProjectIDs: []int64{priv.ID}}, []int64{ePriv, eNone, ePub}},
		{"member through a namespace", domain.ReadScope{NamespaceIDs: []int64{home.ID}}, []int64{eMine, eNone, ePub}},
		{"everything but All", domain.ReadScope{Internal: true, ProjectIDs: []int64{priv.ID, gone.ID, 99999}, NamespaceIDs: []int64{home.ID}},
			[]int64{eMine, ePriv, eNone, eInt, ePub}},
		{"all wins over IDs", domain.ReadScope{All: true, ProjectIDs: []int64{pub.ID}}, []int64{eUnknown, eGone, eMine, ePriv, eNone, eInt, ePub}},
	}
	for _, c := range cases {
		got, n, err := s.Events.List(ctx, domain.EventFilter{Readable: c.scope})
		storeWantList(t, c.name, storeEventIDs(got), n, err, c.want, len(c.want))
	}
	got, n, err := s.Events.List(ctx, domain.EventFilter{Readable: domain.ReadScope{ProjectIDs: []int64{priv.ID}}, ProjectID: mine.ID})
	storeWantList(t, "unreadable project filter", storeEventIDs(got), n, err, nil, 0)
	got, n, err = s.Events.List(ctx, domain.EventFilter{Readable: domain.ReadScope{Internal: true}, Page: domain.Page{Page: 2, PerPage: 2}})
	storeWantList(t, "readable page 2", storeEventIDs(got), n, err, []int64{ePub}, 3)
}
