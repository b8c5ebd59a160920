package contracttests

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Notes, todos and subscriptions: what merge requests and issues hang off.

func storeNoteIDs(ns []domain.Note) []int64 {
	return storeIDs(ns, func(n domain.Note) int64 { return n.ID })
}

func storeNoteCreateGetList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	n := &domain.Note{ProjectID: &p.ID, NoteableType: domain.TargetMergeRequest, NoteableID: 5, AuthorID: alice.ID,
		Body: "Ünïcode\n\n```go\nx\n```", System: true, CreatedAt: storeT0.In(time.FixedZone("X", 3600)), UpdatedAt: storeT0.Add(time.Minute)}
	want := *n
	if err := s.Notes.Create(ctx, n); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if n.ID <= 0 {
		t.Fatalf("Create set ID %d", n.ID)
	}
	want.ID = n.ID
	if diff := cmp.Diff(&want, n); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	got, err := s.Notes.Get(ctx, n.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if got.CreatedAt.Location() != time.UTC || got.UpdatedAt.Location() != time.UTC {
		t.Errorf("times not in UTC: %v %v", got.CreatedAt, got.UpdatedAt)
	}
	// Without a project (snippets), with zero times.
	before := time.Now().Add(-time.Second)
	bare := &domain.Note{NoteableType: domain.TargetSnippet, NoteableID: 5, AuthorID: alice.ID, Body: "b"}
	if err := s.Notes.Create(ctx, bare); err != nil {
		t.Fatalf("Create without project: %v", err)
	}
	if bare.ProjectID != nil || bare.CreatedAt.Before(before) || !bare.UpdatedAt.Equal(bare.CreatedAt) {
		t.Errorf("bare note: %+v", bare)
	}
	_, err = s.Notes.Get(ctx, bare.ID+1000)
	storeWantMsg(t, err, core.ErrNotFound, "404 Note Not Found", "Get unknown")
	many, err := s.Notes.GetMany(ctx, []int64{bare.ID, n.ID, bare.ID + 1000, n.ID})
	if err != nil {
		t.Fatalf("GetMany: %v", err)
	}
	if ids := storeNoteIDs(many); len(ids) != 2 || !slices.Contains(ids, n.ID) || !slices.Contains(ids, bare.ID) {
		t.Errorf("GetMany: %v, want notes %d and %d once each", ids, n.ID, bare.ID)
	}
	err = s.Notes.Create(ctx, &domain.Note{ProjectID: storePtr(int64(99999)), NoteableType: domain.TargetIssue, NoteableID: 1, AuthorID: alice.ID, Body: "x"})
	storeWantKind(t, err, core.ErrNotFound, "Create in unknown project")

	// Lists are per noteable, oldest first, ID breaking ties.
	offsets := []int{2, 0, 1, 0}
	byTime := make([]int64, len(offsets))
	for i, off := range offsets {
		n := &domain.Note{ProjectID: &p.ID, NoteableType: domain.TargetIssue, NoteableID: 7, AuthorID: alice.ID,
			Body: fmt.Sprint("n", i), CreatedAt: storeT0.Add(time.Duration(off) * time.Minute)}
		if err := s.Notes.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
		byTime[i] = n.ID
	}
	order := []int64{byTime[1], byTime[3], byTime[2], byTime[0]}
	list, total, err := s.Notes.List(ctx, domain.TargetIssue, 7, domain.Page{})
	storeWantList(t, "unpaged", storeNoteIDs(list), total, err, order, 4)
	list, total, err = s.Notes.List(ctx, domain.TargetIssue, 7, domain.Page{Page: 2, PerPage: 3})
	storeWantList(t, "page 2", storeNoteIDs(list), total, err, order[3:], 4)
	desc := []int64{order[3], order[2], order[1], order[0]}
	list, total, err = s.Notes.Query(ctx, domain.NoteQuery{NoteableType: domain.TargetIssue, NoteableID: 7, Descending: true,
		Page: domain.Page{Page: 1, PerPage: 3}})
	storeWantList(t, "newest first, page 1", storeNoteIDs(list), total, err, desc[:3], 4)
	list, total, err = s.Notes.List(ctx, domain.TargetMergeRequest, 7, domain.Page{})
	storeWantList(t, "other noteable type", storeNoteIDs(list), total, err, nil, 0)
	if list == nil {
		t.Errorf("empty List is nil, want an empty list")
	}
}

func storeNoteUpdateDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	n := &domain.Note{NoteableType: domain.TargetIssue, NoteableID: 1, AuthorID: alice.ID, Body: "old", CreatedAt: storeT0}
	if err := s.Notes.Create(ctx, n); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	got, err := s.Notes.Update(ctx, n.ID, func(x *domain.Note) error {
		if x.Body != "old" {
			t.Errorf("fn sees body %q", x.Body)
		}
		x.Body = "new"
		x.System, x.AuthorID, x.NoteableID = true, 999, 2 // not saved
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := *n
	want.Body, want.UpdatedAt = "new", got.UpdatedAt
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if got.UpdatedAt.Before(before) || got.UpdatedAt.Location() != time.UTC {
		t.Errorf("UpdatedAt = %v, want now", got.UpdatedAt)
	}
	if read, _ := s.Notes.Get(ctx, n.ID); !cmp.Equal(got, read) {
		t.Errorf("Get after Update = %+v, want %+v", read, got)
	}
	got, err = s.Notes.Update(ctx, n.ID, func(x *domain.Note) error { x.UpdatedAt = storeT0.Add(time.Hour); return nil })
	if err != nil || !got.UpdatedAt.Equal(storeT0.Add(time.Hour)) {
		t.Errorf("Update keeping fn's UpdatedAt: %+v, %v", got, err)
	}
	boom := errors.New("boom")
	if _, err := s.Notes.Update(ctx, n.ID, func(x *domain.Note) error { x.Body = "lost"; return boom }); err != boom {
		t.Errorf("Update with failing fn = %v, want boom as is", err)
	}
	if read, _ := s.Notes.Get(ctx, n.ID); read.Body != "new" {
		t.Errorf("failed fn saved body %q", read.Body)
	}
	_, err = s.Notes.Update(ctx, n.ID+1000, func(*domain.Note) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update unknown")
	if err := s.Notes.Delete(ctx, n.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err = s.Notes.Get(ctx, n.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get deleted")
	storeWantKind(t, s.Notes.Delete(ctx, n.ID), core.ErrNotFound, "Delete again")
}

func storeNoteCountUserNotes(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	for _, n := range []domain.Note{
		{NoteableType: domain.TargetIssue, NoteableID: 1},
		{NoteableType: domain.TargetIssue, NoteableID: 1},
		{NoteableType: domain.TargetIssue, NoteableID: 1, System: true},
		{NoteableType: domain.TargetIssue, NoteableID: 2, System: true},
		{NoteableType: domain.TargetIssue, NoteableID: 3},
		{NoteableType: domain.TargetMergeRequest, NoteableID: 1},
		{NoteableType: domain.TargetIssue, NoteableID: 9},
	} {
		n.AuthorID, n.Body = alice.ID, "n"
		if err := s.Notes.Create(ctx, &n); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Notes.CountUserNotes(ctx, domain.TargetIssue, []int64{1, 2, 3, 4, 3})
	if err != nil {
		t.Fatalf("CountUserNotes: %v", err)
	}
	if diff := cmp.Diff(map[int64]int{1: 2, 3: 1}, got); diff != "" {
		t.Errorf("CountUserNotes (-want +got):\n%s", diff)
	}
	for _, ids := range [][]int64{nil, {}} {
		got, err := s.Notes.CountUserNotes(ctx, domain.TargetIssue, ids)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("CountUserNotes(%#v) = %#v, %v; want an empty, non-nil map", ids, got, err)
		}
	}
}

// storeTodo creates a pending todo of user about a merge request.
func storeTodo(t *testing.T, s Stores, user, author, project, target int64, action string, at time.Time) *domain.Todo {
	t.Helper()
	td, created, err := s.Todos.CreatePending(t.Context(), &domain.Todo{UserID: user, ProjectID: project, AuthorID: author,
		TargetType: domain.TargetMergeRequest, TargetID: target, Action: action, CreatedAt: at})
	if err != nil || !created {
		t.Fatalf("create todo: %v, created %v", err, created)
	}
	return td
}

func storeTodoIDs(ts []domain.Todo) []int64 {
	return storeIDs(ts, func(td domain.Todo) int64 { return td.ID })
}

func storeTodoCreatePending(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p := storeRepoProject(t, s, "p")
	in := &domain.Todo{UserID: alice.ID, ProjectID: p.ID, AuthorID: bob.ID, TargetType: domain.TargetMergeRequest,
		TargetID: 3, Action: domain.TodoAssigned, State: domain.TodoDone, Body: "Ünïcode body", CreatedAt: storeT0.In(time.FixedZone("X", 3600))}
	td, created, err := s.Todos.CreatePending(ctx, in)
	if err != nil || !created {
		t.Fatalf("CreatePending: %v, created %v", err, created)
	}
	want := domain.Todo{ID: td.ID, UserID: alice.ID, ProjectID: p.ID, AuthorID: bob.ID, TargetType: domain.TargetMergeRequest,
		TargetID: 3, Action: domain.TodoAssigned, State: domain.TodoPending, Body: "Ünïcode body", CreatedAt: storeT0, UpdatedAt: storeT0}
	if diff := cmp.Diff(&want, td); diff != "" {
		t.Errorf("CreatePending (-want +got):\n%s", diff)
	}
	got, err := s.Todos.Get(ctx, alice.ID, td.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt in %v", got.CreatedAt.Location())
	}
	_, err = s.Todos.Get(ctx, bob.ID, td.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get another user's todo")
	_, err = s.Todos.Get(ctx, alice.ID, td.ID+1000)
	storeWantKind(t, err, core.ErrNotFound, "Get unknown")

	// The same pending todo again returns the first.
	again, created, err := s.Todos.CreatePending(ctx, &domain.Todo{UserID: alice.ID, ProjectID: p.ID, AuthorID: alice.ID,
		TargetType: domain.TargetMergeRequest, TargetID: 3, Action: domain.TodoAssigned, Body: "other"})
	if err != nil || created || again == nil || again.ID != td.ID || again.Body != "Ünïcode body" {
		t.Errorf("second CreatePending = %+v, %v, %v; want the first and false", again, created, err)
	}
	// Another action, target, target type or user is another todo.
	for _, mod := range []func(x *domain.Todo){
		func(x *domain.Todo) { x.Action = domain.TodoMentioned },
		func(x *domain.Todo) { x.TargetID = 4 },
		func(x *domain.Todo) { x.TargetType = domain.TargetIssue },
		func(x *domain.Todo) { x.UserID = bob.ID },
	} {
		x := domain.Todo{UserID: alice.ID, ProjectID: p.ID, AuthorID: bob.ID, TargetType: domain.TargetMergeRequest, TargetID: 3, Action: domain.TodoAssigned}
		mod(&x)
		if o, created, err := s.Todos.CreatePending(ctx, &x); err != nil || !created || o.ID == td.ID {
			t.Errorf("CreatePending %+v = %+v, %v, %v; want a new one", x, o, created, err)
		}
	}
	// Once done, the same todo can be pending again.
	if _, err := s.Todos.MarkDone(ctx, alice.ID, td.ID); err != nil {
		t.Fatal(err)
	}
	renewed, created, err := s.Todos.CreatePending(ctx, &domain.Todo{UserID: alice.ID, ProjectID: p.ID, AuthorID: bob.ID,
		TargetType: domain.TargetMergeRequest, TargetID: 3, Action: domain.TodoAssigned})
	if err != nil || !created || renewed.ID == td.ID || renewed.State != domain.TodoPending {
		t.Errorf("CreatePending after done = %+v, %v, %v; want a new pending one", renewed, created, err)
	}
	_, _, err = s.Todos.CreatePending(ctx, &domain.Todo{UserID: 99999, ProjectID: p.ID, TargetType: domain.TargetMergeRequest, TargetID: 3, Action: domain.TodoAssigned})
	storeWantMsg(t, err, core.ErrNotFound, "404 User Not Found", "unknown user")
	_, _, err = s.Todos.CreatePending(ctx, &domain.Todo{UserID: alice.ID, ProjectID: 99999, TargetType: domain.TargetMergeRequest, TargetID: 77, Action: domain.TodoAssigned})
	storeWantMsg(t, err, core.ErrNotFound, "404 Project Not Found", "unknown project")
}

func storeTodoList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob, carol := storeUser(t, s, "alice"), storeUser(t, s, "bob"), storeUser(t, s, "carol")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	m := time.Minute
	t1 := storeTodo(t, s, alice.ID, bob.ID, p.ID, 1, domain.TodoAssigned, storeT0)
	t2 := storeTodo(t, s, alice.ID, carol.ID, q.ID, 2, domain.TodoMentioned, storeT0.Add(2*m))
	t3 := storeTodo(t, s, alice.ID, bob.ID, p.ID, 3, domain.TodoMentioned, storeT0.Add(m))
	t4, _, err := s.Todos.CreatePending(ctx, &domain.Todo{UserID: alice.ID, ProjectID: p.ID, AuthorID: bob.ID,
		TargetType: domain.TargetIssue, TargetID: 1, Action: domain.TodoAssigned, CreatedAt: storeT0.Add(m)})
	if err != nil {
		t.Fatal(err)
	}
	done := storeTodo(t, s, alice.ID, bob.ID, p.ID, 4, domain.TodoAssigned, storeT0.Add(5*m))
	if _, err := s.Todos.MarkDone(ctx, alice.ID, done.ID); err != nil {
		t.Fatal(err)
	}
	storeTodo(t, s, bob.ID, alice.ID, p.ID, 1, domain.TodoAssigned, storeT0) // someone else's
	// Newest first; t3 and t4 tie on time, the higher ID first.
	for _, c := range []struct {
		what string
		f    domain.TodoFilter
		want []int64
	}{
		{"pending by default", domain.TodoFilter{}, []int64{t2.ID, t4.ID, t3.ID, t1.ID}},
		{"pending", domain.TodoFilter{State: domain.TodoPending}, []int64{t2.ID, t4.ID, t3.ID, t1.ID}},
		{"done", domain.TodoFilter{State: domain.TodoDone}, []int64{done.ID}},
		{"action", domain.TodoFilter{Action: domain.TodoMentioned}, []int64{t2.ID, t3.ID}},
		{"author", domain.TodoFilter{AuthorID: bob.ID}, []int64{t4.ID, t3.ID, t1.ID}},
		{"project", domain.TodoFilter{ProjectID: q.ID}, []int64{t2.ID}},
		{"target type", domain.TodoFilter{TargetType: domain.TargetIssue}, []int64{t4.ID}},
		{"done in p by bob", domain.TodoFilter{State: domain.TodoDone, ProjectID: p.ID, AuthorID: bob.ID}, []int64{done.ID}},
	} {
		f := c.f
		f.UserID = alice.ID
		list, n, err := s.Todos.List(ctx, f)
		storeWantList(t, c.what, storeTodoIDs(list), n, err, c.want, len(c.want))
	}
	list, n, err := s.Todos.List(ctx, domain.TodoFilter{UserID: alice.ID, Page: domain.Page{Page: 2, PerPage: 3}})
	storeWantList(t, "page 2", storeTodoIDs(list), n, err, []int64{t1.ID}, 4)
	list, n, err = s.Todos.List(ctx, domain.TodoFilter{UserID: carol.ID})
	storeWantList(t, "no todos", storeTodoIDs(list), n, err, nil, 0)
}

func storeTodoMarkDone(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p := storeRepoProject(t, s, "p")
	a1 := storeTodo(t, s, alice.ID, bob.ID, p.ID, 1, domain.TodoAssigned, storeT0)
	a2 := storeTodo(t, s, alice.ID, bob.ID, p.ID, 2, domain.TodoAssigned, storeT0)
	a3 := storeTodo(t, s, alice.ID, bob.ID, p.ID, 1, domain.TodoMentioned, storeT0)
	b1 := storeTodo(t, s, bob.ID, alice.ID, p.ID, 1, domain.TodoAssigned, storeT0)
	b2 := storeTodo(t, s, bob.ID, alice.ID, p.ID, 2, domain.TodoAssigned, storeT0)
	before := time.Now().Add(-time.Second)
	got, err := s.Todos.MarkDone(ctx, alice.ID, a1.ID)
	if err != nil {
		t.Fatalf("MarkDone: %v", err)
	}
	if got.ID != a1.ID || got.State != domain.TodoDone || got.UpdatedAt.Before(before) || !got.CreatedAt.Equal(storeT0) {
		t.Errorf("MarkDone = %+v", got)
	}
	if again, err := s.Todos.MarkDone(ctx, alice.ID, a1.ID); err != nil || again.State != domain.TodoDone {
		t.Errorf("MarkDone again = %+v, %v", again, err)
	}
	_, err = s.Todos.MarkDone(ctx, bob.ID, a2.ID)
	storeWantKind(t, err, core.ErrNotFound, "MarkDone of another user's todo")
	if got, _ := s.Todos.Get(ctx, alice.ID, a2.ID); got.State != domain.TodoPending {
		t.Errorf("another user's MarkDone changed the todo: %s", got.State)
	}
	_, err = s.Todos.MarkDone(ctx, alice.ID, b2.ID+1000)
	storeWantKind(t, err, core.ErrNotFound, "MarkDone unknown")

	// On a target: only one user's, or everyone's.
	target := domain.Subject{Type: domain.TargetMergeRequest, ID: 1}
	if n, err := s.Todos.MarkTargetDone(ctx, alice.ID, target); err != nil || n != 1 { // a3 (a1 is done already)
		t.Errorf("MarkTargetDone(alice) = %d, %v; want 1", n, err)
	}
	if got, _ := s.Todos.Get(ctx, bob.ID, b1.ID); got.State != domain.TodoPending {
		t.Errorf("bob's todo on the target: %s, want pending", got.State)
	}
	if n, err := s.Todos.MarkTargetDone(ctx, 0, target); err != nil || n != 1 { // b1
		t.Errorf("MarkTargetDone(everyone) = %d, %v; want 1", n, err)
	}
	for _, c := range []struct {
		user, id int64
		state    string
	}{{alice.ID, a3.ID, domain.TodoDone}, {bob.ID, b1.ID, domain.TodoDone}, {alice.ID, a2.ID, domain.TodoPending}, {bob.ID, b2.ID, domain.TodoPending}} {
		if got, _ := s.Todos.Get(ctx, c.user, c.id); got.State != c.state {
			t.Errorf("todo %d: %s, want %s", c.id, got.State, c.state)
		}
	}
	if n, err := s.Todos.MarkAllDone(ctx, alice.ID); err != nil || n != 1 { // a2
		t.Errorf("MarkAllDone = %d, %v; want 1", n, err)
	}
	if n, err := s.Todos.MarkAllDone(ctx, alice.ID); err != nil || n != 0 {
		t.Errorf("MarkAllDone again = %d, %v; want 0", n, err)
	}
	if _, n, _ := s.Todos.List(ctx, domain.TodoFilter{UserID: bob.ID}); n != 1 {
		t.Errorf("bob has %d pending todos, want 1", n)
	}
	// DeleteTarget removes every state, every user.
	if err := s.Todos.DeleteTarget(ctx, domain.Subject{Type: domain.TargetMergeRequest, ID: 2}); err != nil {
		t.Fatalf("DeleteTarget: %v", err)
	}
	for _, c := range []struct{ user, id int64 }{{alice.ID, a2.ID}, {bob.ID, b2.ID}} {
		_, err := s.Todos.Get(ctx, c.user, c.id)
		storeWantKind(t, err, core.ErrNotFound, "todo on a deleted target")
	}
	if _, err := s.Todos.Get(ctx, alice.ID, a1.ID); err != nil {
		t.Errorf("todo on another target: %v", err)
	}
	// A user's todos go with the user, a project's with the project.
	if err := s.Users.Delete(ctx, bob.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Todos.Get(ctx, bob.ID, b1.ID)
	storeWantKind(t, err, core.ErrNotFound, "todo of a deleted user")
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Todos.Get(ctx, alice.ID, a1.ID)
	storeWantKind(t, err, core.ErrNotFound, "todo of a deleted project")
}

// storeConcurrentTodoCreatePending: racing creates of the same pending todo
// make exactly one, and every racer gets that one.
func storeConcurrentTodoCreatePending(t *testing.T, s Stores) {
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p := storeRepoProject(t, s, "p")
	ids := make([]int64, storeWorkers)
	createdBy := make([]bool, storeWorkers)
	errs := storeRace(func(i int) error {
		td, created, err := s.Todos.CreatePending(t.Context(), &domain.Todo{UserID: alice.ID, ProjectID: p.ID, AuthorID: bob.ID,
			TargetType: domain.TargetMergeRequest, TargetID: 1, Action: domain.TodoMarked, Body: fmt.Sprint("racer ", i)})
		if err == nil {
			ids[i], createdBy[i] = td.ID, created
		}
		return err
	})
	wins := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
		if createdBy[i] {
			wins++
		}
		if ids[i] != ids[0] {
			t.Errorf("worker %d got todo %d, worker 0 got %d", i, ids[i], ids[0])
		}
	}
	if wins != 1 {
		t.Errorf("%d racers created the todo, want exactly 1", wins)
	}
	if _, n, err := s.Todos.List(t.Context(), domain.TodoFilter{UserID: alice.ID}); err != nil || n != 1 {
		t.Errorf("pending todos = %d, %v; want 1", n, err)
	}
}

func storeSubscriptionSetGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	mr := domain.Subject{Type: domain.TargetMergeRequest, ID: 1}
	issue := domain.Subject{Type: domain.TargetIssue, ID: 1}
	get := func(target domain.Subject, user int64) *bool {
		t.Helper()
		v, err := s.Subscriptions.Get(ctx, target, user)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		return v
	}
	if v := get(mr, alice.ID); v != nil {
		t.Errorf("Get before any choice = %v, want nil", *v)
	}
	for _, want := range []bool{true, false, true} {
		if err := s.Subscriptions.Set(ctx, mr, alice.ID, want); err != nil {
			t.Fatalf("Set(%v): %v", want, err)
		}
		if v := get(mr, alice.ID); v == nil || *v != want {
			t.Errorf("Get after Set(%v) = %v", want, v)
		}
	}
	if err := s.Subscriptions.Set(ctx, domain.Subject{Type: domain.TargetMergeRequest, ID: 2}, alice.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscriptions.Set(ctx, issue, alice.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscriptions.Set(ctx, mr, bob.ID, false); err != nil {
		t.Fatal(err)
	}
	if v := get(issue, bob.ID); v != nil {
		t.Errorf("bob's choice on the issue = %v, want none", *v)
	}
	got, err := s.Subscriptions.OfUser(ctx, alice.ID, domain.TargetMergeRequest, []int64{1, 2, 3, 1})
	if err != nil {
		t.Fatalf("OfUser: %v", err)
	}
	if diff := cmp.Diff(map[int64]bool{1: true, 2: false}, got); diff != "" {
		t.Errorf("OfUser (-want +got):\n%s", diff)
	}
	if got, err := s.Subscriptions.OfUser(ctx, alice.ID, domain.TargetMergeRequest, nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("OfUser(nil) = %#v, %v; want an empty, non-nil map", got, err)
	}
	storeWantKind(t, s.Subscriptions.Set(ctx, mr, 99999, true), core.ErrNotFound, "Set for an unknown user")
	// DeleteTarget forgets every user's choice on that target only.
	if err := s.Subscriptions.DeleteTarget(ctx, mr); err != nil {
		t.Fatalf("DeleteTarget: %v", err)
	}
	if v := get(mr, alice.ID); v != nil {
		t.Errorf("alice's choice after DeleteTarget = %v", *v)
	}
	if v := get(mr, bob.ID); v != nil {
		t.Errorf("bob's choice after DeleteTarget = %v", *v)
	}
	if v := get(issue, alice.ID); v == nil || *v {
		t.Errorf("choice on another target = %v, want false kept", v)
	}
	// A user's choices go with the user.
	if err := s.Users.Delete(ctx, alice.ID); err != nil {
		t.Fatal(err)
	}
	if v := get(issue, alice.ID); v != nil {
		t.Errorf("choice of a deleted user = %v", *v)
	}
}
