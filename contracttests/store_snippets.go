package contracttests

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// snippetStoreCases are the subtests of the snippet store: project
// snippets, and personal ones (project 0).
func snippetStoreCases() []storeCase {
	return []storeCase{
		{"SnippetCreateGet", storeSnippetCreateGet},
		{"SnippetNotFound", storeSnippetNotFound},
		{"SnippetUpdate", storeSnippetUpdate},
		{"SnippetListFilter", storeSnippetListFilter},
		{"SnippetListPages", storeSnippetListPages},
		{"SnippetDelete", storeSnippetDelete},
		{"SnippetDeleteProjectCascades", storeSnippetDeleteProjectCascades},
		{"SnippetPersonal", storeSnippetPersonal},
		{"SnippetPersonalList", storeSnippetPersonalList},
	}
}

// storeSnippet creates a snippet of p by author with visibility v, created
// at storeT0 + offset minutes.
func storeSnippet(t *testing.T, s Stores, p *domain.Project, author int64, v domain.Visibility, offset int) *domain.Snippet {
	t.Helper()
	at := storeT0.Add(time.Duration(offset) * time.Minute)
	sn := &domain.Snippet{ProjectID: p.ID, AuthorID: author, Title: fmt.Sprint("snippet ", offset), FileName: "a.rb",
		Content: "puts 1", Visibility: v, CreatedAt: at, UpdatedAt: at}
	if err := s.Snippets.Create(t.Context(), sn); err != nil {
		t.Fatalf("create snippet %d: %v", offset, err)
	}
	return sn
}

func storeSnippetIDs(list []domain.Snippet) []int64 {
	return storeIDs(list, func(sn domain.Snippet) int64 { return sn.ID })
}

func storeSnippetCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	zone := time.FixedZone("X", -5*3600)
	sn := &domain.Snippet{
		ProjectID: p.ID, AuthorID: alice.ID, Title: `Ünïcode "title"`, FileName: "dir/hello world.rb",
		Description: "# Why\n\nbecause", Content: "puts 'hi'\n\ttabs and ünïcode\n", Visibility: domain.Internal,
		ExpiresAt: storePtr(storeT0.Add(48 * time.Hour).In(zone)), UserAgent: "python-gitlab/1.0 (X11)",
		IPAddress: "2001:db8::1", AkismetSubmitted: true,
		CreatedAt: storeT0.In(zone), UpdatedAt: storeT0.Add(time.Hour),
	}
	want := *sn
	want.ExpiresAt = storePtr(storeT0.Add(48 * time.Hour))
	want.CreatedAt = storeT0
	if err := s.Snippets.Create(ctx, sn); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if sn.ID <= 0 {
		t.Fatalf("Create set ID %d", sn.ID)
	}
	want.ID = sn.ID
	if diff := cmp.Diff(&want, sn); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	got, err := s.Snippets.Get(ctx, p.ID, sn.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	for _, tm := range []*time.Time{&got.CreatedAt, &got.UpdatedAt, got.ExpiresAt} {
		if tm.Location() != time.UTC {
			t.Errorf("time %v not in UTC", tm)
		}
	}

	// A second snippet gets another ID and keeps a nil expiry.
	other := storeSnippet(t, s, p, alice.ID, domain.Public, 1)
	if other.ID == sn.ID || other.ExpiresAt != nil {
		t.Errorf("second snippet: %+v", other)
	}
	err = s.Snippets.Create(ctx, &domain.Snippet{ProjectID: 99999, AuthorID: alice.ID, Title: "x", FileName: "x",
		Visibility: domain.Public, CreatedAt: storeT0, UpdatedAt: storeT0})
	storeWantKind(t, err, core.ErrNotFound, "Create in unknown project")
}

func storeSnippetNotFound(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	sn := storeSnippet(t, s, p, alice.ID, domain.Public, 0)
	_, err := s.Snippets.Get(ctx, p.ID, sn.ID+1000)
	storeWantMsg(t, err, core.ErrNotFound, "404 Snippet Not Found", "Get unknown ID")
	_, err = s.Snippets.Get(ctx, q.ID, sn.ID)
	storeWantMsg(t, err, core.ErrNotFound, "404 Snippet Not Found", "Get snippet of another project")
	_, err = s.Snippets.Update(ctx, q.ID, sn.ID, func(x *domain.Snippet) error { x.Title = "stolen"; return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update snippet of another project")
	_, err = s.Snippets.Update(ctx, p.ID, sn.ID+1000, func(x *domain.Snippet) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update unknown ID")
	if got, err := s.Snippets.Get(ctx, p.ID, sn.ID); err != nil || got.Title != sn.Title {
		t.Errorf("after refused updates: %+v, %v", got, err)
	}
}

func storeSnippetUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	sn := storeSnippet(t, s, p, alice.ID, domain.Private, 0)

	before := time.Now().Add(-time.Second)
	got, err := s.Snippets.Update(ctx, p.ID, sn.ID, func(x *domain.Snippet) error {
		x.Title, x.FileName, x.Description, x.Content = "new", "b.go", "desc", "package main"
		x.Visibility = domain.Public
		x.AkismetSubmitted = true
		// Neither the identity, the project nor the creation time move.
		x.ID, x.ProjectID, x.CreatedAt = 4242, q.ID, storeT0.Add(time.Hour)
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := *sn
	want.Title, want.FileName, want.Description, want.Content = "new", "b.go", "desc", "package main"
	want.Visibility, want.AkismetSubmitted = domain.Public, true
	want.UpdatedAt = got.UpdatedAt
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if got.UpdatedAt.Before(before) || got.UpdatedAt.Location() != time.UTC {
		t.Errorf("UpdatedAt = %v, want now in UTC", got.UpdatedAt)
	}
	read, err := s.Snippets.Get(ctx, p.ID, sn.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, read); diff != "" {
		t.Errorf("Get after Update (-want +got):\n%s", diff)
	}

	// An UpdatedAt set by fn is kept; so is the author fn gives.
	later := storeT0.Add(3 * time.Hour)
	got, err = s.Snippets.Update(ctx, p.ID, sn.ID, func(x *domain.Snippet) error {
		x.UpdatedAt, x.AuthorID = later, bob.ID
		return nil
	})
	if err != nil || !got.UpdatedAt.Equal(later) || got.AuthorID != bob.ID {
		t.Errorf("Update with UpdatedAt: %+v, %v", got, err)
	}

	// fn's error is returned as is and nothing is saved.
	boom := errors.New("boom")
	_, err = s.Snippets.Update(ctx, p.ID, sn.ID, func(x *domain.Snippet) error { x.Title = "lost"; return boom })
	if !errors.Is(err, boom) {
		t.Errorf("Update fn error: got %v, want %v", err, boom)
	}
	if read, err := s.Snippets.Get(ctx, p.ID, sn.ID); err != nil || read.Title != "new" {
		t.Errorf("after failed Update: %+v, %v", read, err)
	}
}

// storeSnippetListFilter: a reader sees the snippets of one of the
// visibilities plus their own, of one project only, newest first.
func storeSnippetListFilter(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	pubA := storeSnippet(t, s, p, alice.ID, domain.Public, 1)
	intA := storeSnippet(t, s, p, alice.ID, domain.Internal, 2)
	privA := storeSnippet(t, s, p, alice.ID, domain.Private, 3)
	privB := storeSnippet(t, s, p, bob.ID, domain.Private, 4)
	intB := storeSnippet(t, s, p, bob.ID, domain.Internal, 5)
	storeSnippet(t, s, q, bob.ID, domain.Public, 6)
	// Same creation time as privB: the higher ID comes first.
	tie := storeSnippet(t, s, p, alice.ID, domain.Public, 4)

	all := []domain.Visibility{domain.Public, domain.Internal, domain.Private}
	for _, tc := range []struct {
		name string
		f    domain.SnippetFilter
		want []*domain.Snippet
	}{
		{"public", domain.SnippetFilter{Visibilities: []domain.Visibility{domain.Public}}, []*domain.Snippet{tie, pubA}},
		{"public and internal", domain.SnippetFilter{Visibilities: []domain.Visibility{domain.Public, domain.Internal}},
			[]*domain.Snippet{intB, tie, intA, pubA}},
		{"all", domain.SnippetFilter{Visibilities: all}, []*domain.Snippet{intB, tie, privB, privA, intA, pubA}},
		{"public or bob's", domain.SnippetFilter{Visibilities: []domain.Visibility{domain.Public}, AuthorID: bob.ID},
			[]*domain.Snippet{intB, tie, privB, pubA}},
		{"internal or alice's", domain.SnippetFilter{Visibilities: []domain.Visibility{domain.Internal}, AuthorID: alice.ID},
			[]*domain.Snippet{intB, tie, privA, intA, pubA}},
		{"bob's only", domain.SnippetFilter{AuthorID: bob.ID}, []*domain.Snippet{intB, privB}},
		{"nothing asked", domain.SnippetFilter{}, nil},
	} {
		f := tc.f
		f.ProjectID = p.ID
		list, total, err := s.Snippets.List(ctx, f)
		var want []int64
		for _, sn := range tc.want {
			want = append(want, sn.ID)
		}
		storeWantList(t, tc.name, storeSnippetIDs(list), total, err, want, len(want))
	}
	list, _, err := s.Snippets.List(ctx, domain.SnippetFilter{ProjectID: p.ID, Visibilities: []domain.Visibility{domain.Private}})
	if err != nil || len(list) != 2 || list[1].Content != "puts 1" || list[1].AuthorID != alice.ID {
		t.Errorf("List returns whole snippets: %+v, %v", list, err)
	}
}

func storeSnippetListPages(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	var ids []int64
	for i := 0; i < 5; i++ {
		ids = append([]int64{storeSnippet(t, s, p, alice.ID, domain.Public, i).ID}, ids...)
	}
	f := domain.SnippetFilter{ProjectID: p.ID, Visibilities: []domain.Visibility{domain.Public}}
	for _, tc := range []struct {
		page int
		want []int64
	}{{1, ids[0:2]}, {2, ids[2:4]}, {3, ids[4:5]}, {4, nil}} {
		f.Page = domain.Page{Page: tc.page, PerPage: 2}
		list, total, err := s.Snippets.List(ctx, f)
		storeWantList(t, fmt.Sprint("page ", tc.page), storeSnippetIDs(list), total, err, tc.want, 5)
	}
}

// storeSnippetDelete: the snippet goes with its notes and the awards on
// it; deleting again, or through another project, is no error and
// touches nothing else.
func storeSnippetDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	sn := storeSnippet(t, s, p, alice.ID, domain.Public, 0)
	keep := storeSnippet(t, s, p, alice.ID, domain.Public, 1)
	note := func(typ string, id int64) *domain.Note {
		t.Helper()
		n := &domain.Note{ProjectID: &p.ID, NoteableType: typ, NoteableID: id, AuthorID: bob.ID, Body: "nice", CreatedAt: storeT0}
		if err := s.Notes.Create(ctx, n); err != nil {
			t.Fatalf("note on %s %d: %v", typ, id, err)
		}
		return n
	}
	award := func(typ string, id int64) {
		t.Helper()
		if err := s.Awards.Create(ctx, &domain.Award{Name: "thumbsup", UserID: bob.ID, AwardableType: typ,
			AwardableID: id, CreatedAt: storeT0, UpdatedAt: storeT0}); err != nil {
			t.Fatalf("award on %s %d: %v", typ, id, err)
		}
	}
	gone := note(domain.TargetSnippet, sn.ID)
	note(domain.TargetSnippet, sn.ID)
	kept := note(domain.TargetSnippet, keep.ID)
	sameID := note(domain.TargetIssue, sn.ID) // another noteable type with the same ID
	award(domain.TargetSnippet, sn.ID)
	award(domain.TargetNote, gone.ID)
	award(domain.TargetSnippet, keep.ID)
	award(domain.TargetIssue, sn.ID)

	// Through another project: nothing happens.
	if err := s.Snippets.Delete(ctx, q.ID, sn.ID); err != nil {
		t.Fatalf("Delete through another project: %v", err)
	}
	if _, err := s.Snippets.Get(ctx, p.ID, sn.ID); err != nil {
		t.Fatalf("snippet deleted through another project: %v", err)
	}
	if _, n, err := s.Notes.List(ctx, domain.TargetSnippet, sn.ID, domain.Page{}); err != nil || n != 2 {
		t.Fatalf("notes after Delete through another project: %d, %v", n, err)
	}

	if err := s.Snippets.Delete(ctx, p.ID, sn.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := s.Snippets.Get(ctx, p.ID, sn.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get deleted")
	if err := s.Snippets.Delete(ctx, p.ID, sn.ID); err != nil {
		t.Errorf("Delete again: %v", err)
	}
	if _, n, err := s.Notes.List(ctx, domain.TargetSnippet, sn.ID, domain.Page{}); err != nil || n != 0 {
		t.Errorf("notes of the deleted snippet: %d, %v", n, err)
	}
	for _, tc := range []struct {
		typ  string
		id   int64
		want int
	}{{domain.TargetSnippet, sn.ID, 0}, {domain.TargetNote, gone.ID, 0}, {domain.TargetSnippet, keep.ID, 1}, {domain.TargetIssue, sn.ID, 1}} {
		list, err := s.Awards.List(ctx, tc.typ, tc.id)
		if err != nil || len(list) != tc.want {
			t.Errorf("awards on %s %d: %d, %v; want %d", tc.typ, tc.id, len(list), err, tc.want)
		}
	}
	for _, id := range []int64{kept.ID, sameID.ID} {
		if _, err := s.Notes.Get(ctx, id); err != nil {
			t.Errorf("note %d of another noteable: %v", id, err)
		}
	}
	if _, err := s.Snippets.Get(ctx, p.ID, keep.ID); err != nil {
		t.Errorf("other snippet: %v", err)
	}
}

func storeSnippetDeleteProjectCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p, q := storeRepoProject(t, s, "p"), storeRepoProject(t, s, "q")
	sn := storeSnippet(t, s, p, alice.ID, domain.Public, 0)
	other := storeSnippet(t, s, q, alice.ID, domain.Public, 0)
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatalf("delete project: %v", err)
	}
	_, err := s.Snippets.Get(ctx, p.ID, sn.ID)
	storeWantKind(t, err, core.ErrNotFound, "snippet of a deleted project")
	if _, err := s.Snippets.Get(ctx, q.ID, other.ID); err != nil {
		t.Errorf("snippet of another project: %v", err)
	}
}

// storePersonalSnippet creates a personal snippet by author with visibility v,
// created at storeT0 + offset minutes.
func storePersonalSnippet(t *testing.T, s Stores, author int64, v domain.Visibility, offset int) *domain.Snippet {
	t.Helper()
	at := storeT0.Add(time.Duration(offset) * time.Minute)
	sn := &domain.Snippet{AuthorID: author, Title: fmt.Sprint("personal ", offset), FileName: "a.rb",
		Content: "puts 1", Visibility: v, CreatedAt: at, UpdatedAt: at}
	if err := s.Snippets.Create(t.Context(), sn); err != nil {
		t.Fatalf("create personal snippet %d: %v", offset, err)
	}
	return sn
}

// storeSnippetPersonal: a personal snippet (ProjectID 0) is created, read,
// updated and deleted through project 0 only; project snippets are never
// reached through project 0, nor personal ones through a project.
func storeSnippetPersonal(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	sn := &domain.Snippet{AuthorID: alice.ID, Title: "mine", FileName: "m.txt", Description: "d", Content: "text",
		Visibility: domain.Internal, UserAgent: "curl/8", IPAddress: "10.0.0.1", CreatedAt: storeT0, UpdatedAt: storeT0}
	if err := s.Snippets.Create(ctx, sn); err != nil {
		t.Fatalf("Create personal: %v", err)
	}
	if sn.ID <= 0 || sn.ProjectID != 0 {
		t.Fatalf("Create personal set %+v", sn)
	}
	got, err := s.Snippets.Get(ctx, 0, sn.ID)
	if err != nil {
		t.Fatalf("Get personal: %v", err)
	}
	if diff := cmp.Diff(sn, got); diff != "" {
		t.Errorf("Get personal (-want +got):\n%s", diff)
	}
	ps := storeSnippet(t, s, p, alice.ID, domain.Public, 1)
	_, err = s.Snippets.Get(ctx, p.ID, sn.ID)
	storeWantMsg(t, err, core.ErrNotFound, "404 Snippet Not Found", "Get personal through a project")
	_, err = s.Snippets.Get(ctx, 0, ps.ID)
	storeWantMsg(t, err, core.ErrNotFound, "404 Snippet Not Found", "Get project snippet as personal")
	_, err = s.Snippets.Update(ctx, 0, ps.ID, func(x *domain.Snippet) error { x.Title = "stolen"; return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update project snippet as personal")
	_, err = s.Snippets.Update(ctx, p.ID, sn.ID, func(x *domain.Snippet) error { x.Title = "stolen"; return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update personal through a project")

	// Update keeps it personal, whatever fn sets.
	up, err := s.Snippets.Update(ctx, 0, sn.ID, func(x *domain.Snippet) error {
		x.Title, x.Visibility, x.ProjectID = "renamed", domain.Public, p.ID
		return nil
	})
	if err != nil || up.Title != "renamed" || up.Visibility != domain.Public || up.ProjectID != 0 {
		t.Fatalf("Update personal: %+v, %v", up, err)
	}
	if got, err := s.Snippets.Get(ctx, 0, sn.ID); err != nil || got.Title != "renamed" || got.ProjectID != 0 {
		t.Errorf("Get after Update: %+v, %v", got, err)
	}

	// Deleting through a project, or the project snippet as personal,
	// touches nothing.
	if err := s.Snippets.Delete(ctx, p.ID, sn.ID); err != nil {
		t.Fatalf("Delete personal through a project: %v", err)
	}
	if err := s.Snippets.Delete(ctx, 0, ps.ID); err != nil {
		t.Fatalf("Delete project snippet as personal: %v", err)
	}
	if _, err := s.Snippets.Get(ctx, 0, sn.ID); err != nil {
		t.Errorf("personal snippet deleted through a project: %v", err)
	}
	if _, err := s.Snippets.Get(ctx, p.ID, ps.ID); err != nil {
		t.Errorf("project snippet deleted as personal: %v", err)
	}
	if err := s.Snippets.Delete(ctx, 0, sn.ID); err != nil {
		t.Fatalf("Delete personal: %v", err)
	}
	_, err = s.Snippets.Get(ctx, 0, sn.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get deleted personal")

	// Deleting a project leaves personal snippets alone.
	kept := storePersonalSnippet(t, s, alice.ID, domain.Private, 2)
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatalf("delete project: %v", err)
	}
	if _, err := s.Snippets.Get(ctx, 0, kept.ID); err != nil {
		t.Errorf("personal snippet after a project's deletion: %v", err)
	}
}

// storeSnippetPersonalList: project 0 lists personal snippets only, by
// author or visibility, newest first, in pages.
func storeSnippetPersonalList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p := storeRepoProject(t, s, "p")
	pubA := storePersonalSnippet(t, s, alice.ID, domain.Public, 1)
	privA := storePersonalSnippet(t, s, alice.ID, domain.Private, 2)
	intB := storePersonalSnippet(t, s, bob.ID, domain.Internal, 3)
	pubB := storePersonalSnippet(t, s, bob.ID, domain.Public, 4)
	storeSnippet(t, s, p, alice.ID, domain.Public, 5) // a project's: never listed as personal
	for _, tc := range []struct {
		name string
		f    domain.SnippetFilter
		want []*domain.Snippet
	}{
		{"alice's", domain.SnippetFilter{AuthorID: alice.ID}, []*domain.Snippet{privA, pubA}},
		{"bob's", domain.SnippetFilter{AuthorID: bob.ID}, []*domain.Snippet{pubB, intB}},
		{"public", domain.SnippetFilter{Visibilities: []domain.Visibility{domain.Public}}, []*domain.Snippet{pubB, pubA}},
		{"public or alice's", domain.SnippetFilter{Visibilities: []domain.Visibility{domain.Public}, AuthorID: alice.ID},
			[]*domain.Snippet{pubB, privA, pubA}},
		{"nothing asked", domain.SnippetFilter{}, nil},
	} {
		list, total, err := s.Snippets.List(ctx, tc.f)
		var want []int64
		for _, sn := range tc.want {
			want = append(want, sn.ID)
		}
		storeWantList(t, tc.name, storeSnippetIDs(list), total, err, want, len(want))
	}
	f := domain.SnippetFilter{Visibilities: []domain.Visibility{domain.Public, domain.Internal, domain.Private}}
	for _, tc := range []struct {
		page int
		want []int64
	}{{1, []int64{pubB.ID, intB.ID, privA.ID}}, {2, []int64{pubA.ID}}, {3, nil}} {
		f.Page = domain.Page{Page: tc.page, PerPage: 3}
		list, total, err := s.Snippets.List(ctx, f)
		storeWantList(t, fmt.Sprint("page ", tc.page), storeSnippetIDs(list), total, err, tc.want, 4)
	}
	// A project's list leaves the personal ones out.
	list, _, err := s.Snippets.List(ctx, domain.SnippetFilter{ProjectID: p.ID, AuthorID: alice.ID})
	if err != nil || len(list) != 1 || list[0].ProjectID != p.ID {
		t.Errorf("project list: %+v, %v", list, err)
	}
}
