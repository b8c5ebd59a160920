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

// The repository metadata stores: protected branches, releases, commit
// comments, and the project activity pushes move.

// storeRepoProject is a private project in a fresh group; several per test
// are told apart by path.
func storeRepoProject(t *testing.T, s Stores, path string) *domain.Project {
	t.Helper()
	g := storeGroup(t, s, "g-"+path, nil, domain.Private)
	return storeProject(t, s, g, path, nil)
}

const (
	storeSHA1 = "1111111111111111111111111111111111111111"
	storeSHA2 = "2222222222222222222222222222222222222222"
)

func storeProjectTouchActivity(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	later := storeT0.Add(90 * time.Minute).In(time.FixedZone("X", 3600))
	if err := s.Projects.TouchActivity(ctx, p.ID, later); err != nil {
		t.Fatalf("TouchActivity: %v", err)
	}
	got, err := s.Projects.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.LastActivityAt.Equal(later) || got.LastActivityAt.Location() != time.UTC {
		t.Errorf("LastActivityAt = %v, want %v in UTC", got.LastActivityAt, later)
	}
	if !got.UpdatedAt.Equal(storeT0) {
		t.Errorf("UpdatedAt moved to %v; pushes leave it alone", got.UpdatedAt)
	}
	// Never backwards.
	if err := s.Projects.TouchActivity(ctx, p.ID, storeT0); err != nil {
		t.Fatalf("TouchActivity earlier: %v", err)
	}
	if got, _ := s.Projects.Get(ctx, p.ID); !got.LastActivityAt.Equal(later) {
		t.Errorf("LastActivityAt moved back to %v", got.LastActivityAt)
	}
	// The same instant again is no error either.
	if err := s.Projects.TouchActivity(ctx, p.ID, later); err != nil {
		t.Errorf("TouchActivity same time: %v", err)
	}
	storeWantKind(t, s.Projects.TouchActivity(ctx, p.ID+1000, later), core.ErrNotFound, "TouchActivity unknown project")
}

func storeProtectedBranchProtectUpsert(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	other := storeRepoProject(t, s, "other")
	b, err := s.ProtectedBranches.Protect(ctx, domain.ProtectedBranch{ProjectID: p.ID, Name: "main", PushAccessLevel: domain.Developer, MergeAccessLevel: domain.Master, CreatedAt: storeT0})
	if err != nil {
		t.Fatalf("Protect: %v", err)
	}
	if b.ID <= 0 {
		t.Fatalf("Protect set ID %d", b.ID)
	}
	want := domain.ProtectedBranch{ID: b.ID, ProjectID: p.ID, Name: "main", PushAccessLevel: domain.Developer, MergeAccessLevel: domain.Master, CreatedAt: storeT0}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("Protect (-want +got):\n%s", diff)
	}
	// Protecting again updates the levels (no one is a level like the
	// others) and keeps the rule's identity.
	b2, err := s.ProtectedBranches.Protect(ctx, domain.ProtectedBranch{ProjectID: p.ID, Name: "main", PushAccessLevel: domain.NoAccess, MergeAccessLevel: domain.Developer, CreatedAt: storeT0.Add(time.Hour)})
	if err != nil {
		t.Fatalf("Protect again: %v", err)
	}
	want.PushAccessLevel, want.MergeAccessLevel = domain.NoAccess, domain.Developer
	if diff := cmp.Diff(want, b2); diff != "" {
		t.Errorf("Protect again (-want +got):\n%s", diff)
	}
	// The same name in another project is another rule; a zero CreatedAt is now.
	before := time.Now().Add(-time.Second)
	ob, err := s.ProtectedBranches.Protect(ctx, domain.ProtectedBranch{ProjectID: other.ID, Name: "main"})
	if err != nil {
		t.Fatalf("Protect in other project: %v", err)
	}
	if ob.ID == b.ID || ob.CreatedAt.Before(before) || ob.CreatedAt.Location() != time.UTC {
		t.Errorf("other project's rule: %+v", ob)
	}
	list, err := s.ProtectedBranches.List(ctx, p.ID)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if diff := cmp.Diff([]domain.ProtectedBranch{want}, list); diff != "" {
		t.Errorf("List after upsert (-want +got):\n%s", diff)
	}
}

func storeProtectedBranchCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	other := storeRepoProject(t, s, "other")
	b, err := s.ProtectedBranches.Create(ctx, domain.ProtectedBranch{ProjectID: p.ID, Name: "release/*", PushAccessLevel: domain.NoAccess, MergeAccessLevel: domain.Developer, CreatedAt: storeT0})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := domain.ProtectedBranch{ID: b.ID, ProjectID: p.ID, Name: "release/*", PushAccessLevel: domain.NoAccess, MergeAccessLevel: domain.Developer, CreatedAt: storeT0}
	if b.ID <= 0 || !cmp.Equal(want, b) {
		t.Errorf("Create = %+v, want %+v", b, want)
	}
	got, err := s.ProtectedBranches.Get(ctx, p.ID, "release/*")
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("Get = %+v, %v; want %+v", got, err, want)
	}
	// The name is taken, whatever the levels; other projects are free.
	_, err = s.ProtectedBranches.Create(ctx, domain.ProtectedBranch{ProjectID: p.ID, Name: "release/*", PushAccessLevel: domain.Master, MergeAccessLevel: domain.Master})
	storeWantKind(t, err, core.ErrConflict, "Create of a taken name")
	if got, _ := s.ProtectedBranches.Get(ctx, p.ID, "release/*"); !cmp.Equal(want, got) {
		t.Errorf("after the conflict: %+v, want %+v", got, want)
	}
	if _, err := s.ProtectedBranches.Create(ctx, domain.ProtectedBranch{ProjectID: other.ID, Name: "release/*", PushAccessLevel: domain.Master, MergeAccessLevel: domain.Master}); err != nil {
		t.Errorf("Create in other project: %v", err)
	}
	// Get matches names exactly: no wildcard matching, no case folding.
	for _, name := range []string{"release/1", "Release/*", "release/"} {
		_, err := s.ProtectedBranches.Get(ctx, p.ID, name)
		storeWantKind(t, err, core.ErrNotFound, "Get "+name)
	}
	_, err = s.ProtectedBranches.Get(ctx, p.ID+other.ID+1000, "release/*")
	storeWantKind(t, err, core.ErrNotFound, "Get in unknown project")
	_, err = s.ProtectedBranches.Create(ctx, domain.ProtectedBranch{ProjectID: 99999, Name: "main", PushAccessLevel: domain.Master, MergeAccessLevel: domain.Master})
	storeWantKind(t, err, core.ErrNotFound, "Create in unknown project")
	// Unprotect removes what Create made.
	if err := s.ProtectedBranches.Unprotect(ctx, p.ID, "release/*"); err != nil {
		t.Fatal(err)
	}
	_, err = s.ProtectedBranches.Get(ctx, p.ID, "release/*")
	storeWantKind(t, err, core.ErrNotFound, "Get after Unprotect")
}

// storeProtectedBranchCreateRace: of concurrent creations of one name,
// exactly one succeeds and the others are conflicts.
func storeProtectedBranchCreateRace(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	const n = 4
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.ProtectedBranches.Create(ctx, domain.ProtectedBranch{ProjectID: p.ID, Name: "main", PushAccessLevel: domain.Master, MergeAccessLevel: domain.Master})
			errs <- err
		}()
	}
	created := 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			created++
		case !errors.Is(err, core.ErrConflict):
			t.Errorf("concurrent Create: %v", err)
		}
	}
	if created != 1 {
		t.Errorf("%d of %d concurrent creations succeeded, want 1", created, n)
	}
}

func storeProtectedBranchUnprotect(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	other := storeRepoProject(t, s, "other")
	for _, pr := range []int64{p.ID, other.ID} {
		for _, name := range []string{"main", "release/*"} {
			if _, err := s.ProtectedBranches.Protect(ctx, domain.ProtectedBranch{ProjectID: pr, Name: name}); err != nil {
				t.Fatalf("Protect: %v", err)
			}
		}
	}
	if err := s.ProtectedBranches.Unprotect(ctx, p.ID, "main"); err != nil {
		t.Fatalf("Unprotect: %v", err)
	}
	// Idempotent, and unknown names (or projects) are no error.
	for _, c := range []struct {
		id   int64
		name string
	}{{p.ID, "main"}, {p.ID, "nope"}, {p.ID + other.ID + 1000, "main"}} {
		if err := s.ProtectedBranches.Unprotect(ctx, c.id, c.name); err != nil {
			t.Errorf("Unprotect(%d, %q): %v", c.id, c.name, err)
		}
	}
	names := func(id int64) []string {
		t.Helper()
		list, err := s.ProtectedBranches.List(ctx, id)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		out := []string{}
		for _, b := range list {
			out = append(out, b.Name)
		}
		return out
	}
	if got := names(p.ID); !cmp.Equal(got, []string{"release/*"}) {
		t.Errorf("rules of p = %v, want [release/*]", got)
	}
	if got := names(other.ID); !cmp.Equal(got, []string{"main", "release/*"}) {
		t.Errorf("rules of other = %v, want both kept", got)
	}
	// Names are exact: unprotecting "Release/*" leaves "release/*".
	if err := s.ProtectedBranches.Unprotect(ctx, p.ID, "Release/*"); err != nil {
		t.Fatal(err)
	}
	if got := names(p.ID); len(got) != 1 {
		t.Errorf("rules of p after case-different unprotect = %v", got)
	}
}

func storeProtectedBranchListSorted(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	in := []string{"main", "feature/b", "Zeta", "feature/a", "alpha", "release-1", "a_b", "a-b"}
	for _, name := range in {
		if _, err := s.ProtectedBranches.Protect(ctx, domain.ProtectedBranch{ProjectID: p.ID, Name: name}); err != nil {
			t.Fatalf("Protect %s: %v", name, err)
		}
	}
	list, err := s.ProtectedBranches.List(ctx, p.ID)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	got := []string{}
	for _, b := range list {
		if b.ProjectID != p.ID {
			t.Errorf("rule %+v of another project", b)
		}
		got = append(got, b.Name)
	}
	want := slices.Clone(in)
	slices.Sort(want) // byte order, as git sorts ref names
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List order (-want +got):\n%s", diff)
	}
	empty, err := s.ProtectedBranches.List(ctx, p.ID+1000)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("List of unknown project = %#v, %v; want an empty, non-nil list", empty, err)
	}
}

func storeProtectedBranchUnknownProject(t *testing.T, s Stores) {
	ctx := t.Context()
	_, err := s.ProtectedBranches.Protect(ctx, domain.ProtectedBranch{ProjectID: 99999, Name: "main"})
	storeWantKind(t, err, core.ErrNotFound, "Protect in unknown project")
	_, err = s.Releases.Create(ctx, domain.Release{ProjectID: 99999, TagName: "v1"})
	storeWantKind(t, err, core.ErrNotFound, "release in unknown project")
	_, err = s.CommitComments.Create(ctx, domain.CommitComment{ProjectID: 99999, CommitID: storeSHA1, AuthorID: 1, Note: "x"})
	storeWantKind(t, err, core.ErrNotFound, "comment in unknown project")
}

func storeReleaseCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	r, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v1.0", Description: "# Notes\n\nÜnïcode", CreatedAt: storeT0})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := domain.Release{ProjectID: p.ID, TagName: "v1.0", Description: "# Notes\n\nÜnïcode", CreatedAt: storeT0, UpdatedAt: storeT0}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	got, err := s.Releases.Get(ctx, p.ID, "v1.0")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt in %v, want UTC", got.CreatedAt.Location())
	}
	for _, tag := range []string{"v1.1", "V1.0", "v1"} {
		_, err = s.Releases.Get(ctx, p.ID, tag)
		storeWantKind(t, err, core.ErrNotFound, "Get "+tag)
	}
	_, err = s.Releases.Get(ctx, p.ID+1000, "v1.0")
	storeWantKind(t, err, core.ErrNotFound, "Get in another project")
	before := time.Now().Add(-time.Second)
	now, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v2"})
	if err != nil {
		t.Fatalf("Create with zero times: %v", err)
	}
	if now.CreatedAt.Before(before) || !now.UpdatedAt.Equal(now.CreatedAt) {
		t.Errorf("zero times: %v %v", now.CreatedAt, now.UpdatedAt)
	}
}

func storeReleaseConflict(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	other := storeRepoProject(t, s, "other")
	if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v1", Description: "first"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v1", Description: "second"})
	storeWantKind(t, err, core.ErrConflict, "second release of a tag")
	if got, _ := s.Releases.Get(ctx, p.ID, "v1"); got.Description != "first" {
		t.Errorf("Description = %q after the conflict, want the first kept", got.Description)
	}
	if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: other.ID, TagName: "v1"}); err != nil {
		t.Errorf("same tag in another project: %v", err)
	}
	// Inside a transaction the conflict leaves it usable.
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v1"}); !errors.Is(err, core.ErrConflict) {
			return fmt.Errorf("conflict in tx: %v", err)
		}
		_, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v2"})
		return err
	})
	if err != nil {
		t.Fatalf("tx after conflict: %v", err)
	}
	if _, err := s.Releases.Get(ctx, p.ID, "v2"); err != nil {
		t.Errorf("release created after the conflict: %v", err)
	}
}

func storeReleaseUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v1", Description: "old", CreatedAt: storeT0}); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	r, err := s.Releases.Update(ctx, p.ID, "v1", "new notes")
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if r.ProjectID != p.ID || r.TagName != "v1" || r.Description != "new notes" || !r.CreatedAt.Equal(storeT0) ||
		r.UpdatedAt.Before(before) || r.UpdatedAt.Location() != time.UTC {
		t.Errorf("Update returned %+v", r)
	}
	got, err := s.Releases.Get(ctx, p.ID, "v1")
	if err != nil || got.Description != "new notes" || !got.UpdatedAt.Equal(r.UpdatedAt) {
		t.Errorf("Get after Update: %+v, %v", got, err)
	}
	_, err = s.Releases.Update(ctx, p.ID, "v2", "x")
	storeWantKind(t, err, core.ErrNotFound, "Update of a tag without release")
	_, err = s.Releases.Update(ctx, p.ID+1000, "v1", "x")
	storeWantKind(t, err, core.ErrNotFound, "Update in another project")
	if _, err := s.Releases.Get(ctx, p.ID, "v2"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Update of a missing release created one: %v", err)
	}
}

func storeReleaseListByTags(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	other := storeRepoProject(t, s, "other")
	for _, tag := range []string{"v1", "v2", "v3"} {
		if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: tag, Description: "notes " + tag, CreatedAt: storeT0}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: other.ID, TagName: "v4", Description: "other"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Releases.ListByTags(ctx, p.ID, []string{"v3", "v1", "v4", "nope", "v1"})
	if err != nil {
		t.Fatalf("ListByTags: %v", err)
	}
	want := map[string]domain.Release{
		"v1": {ProjectID: p.ID, TagName: "v1", Description: "notes v1", CreatedAt: storeT0, UpdatedAt: storeT0},
		"v3": {ProjectID: p.ID, TagName: "v3", Description: "notes v3", CreatedAt: storeT0, UpdatedAt: storeT0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListByTags (-want +got):\n%s", diff)
	}
	for _, tags := range [][]string{nil, {}} {
		got, err := s.Releases.ListByTags(ctx, p.ID, tags)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("ListByTags(%#v) = %#v, %v; want an empty, non-nil map", tags, got, err)
		}
	}
	// Many tags at once.
	many := make([]string, 0, 1500)
	for i := range 1500 {
		many = append(many, fmt.Sprintf("t%d", i))
	}
	many = append(many, "v2")
	got, err = s.Releases.ListByTags(ctx, p.ID, many)
	if err != nil || len(got) != 1 || got["v2"].Description != "notes v2" {
		t.Errorf("ListByTags of %d tags = %v, %v", len(many), got, err)
	}
}

func storeReleaseDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeRepoProject(t, s, "p")
	for _, tag := range []string{"v1", "v2"} {
		if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: tag}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Releases.Delete(ctx, p.ID, "v1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := s.Releases.Get(ctx, p.ID, "v1")
	storeWantKind(t, err, core.ErrNotFound, "Get deleted release")
	if _, err := s.Releases.Get(ctx, p.ID, "v2"); err != nil {
		t.Errorf("other release: %v", err)
	}
	for _, tag := range []string{"v1", "never"} {
		if err := s.Releases.Delete(ctx, p.ID, tag); err != nil {
			t.Errorf("Delete(%q) of a missing release: %v", tag, err)
		}
	}
	// The tag can have a release again.
	if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v1", Description: "again"}); err != nil {
		t.Errorf("Create after Delete: %v", err)
	}
}

func storeCommitCommentCreateList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	other := storeRepoProject(t, s, "other")
	c1, err := s.CommitComments.Create(ctx, domain.CommitComment{ProjectID: p.ID, CommitID: storeSHA1, AuthorID: alice.ID, Note: "plain", CreatedAt: storeT0})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if c1.ID <= 0 {
		t.Fatalf("Create set ID %d", c1.ID)
	}
	want1 := domain.CommitComment{ID: c1.ID, ProjectID: p.ID, CommitID: storeSHA1, AuthorID: alice.ID, Note: "plain", CreatedAt: storeT0}
	if diff := cmp.Diff(want1, c1); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	before := time.Now().Add(-time.Second)
	c2, err := s.CommitComments.Create(ctx, domain.CommitComment{ProjectID: p.ID, CommitID: storeSHA1, AuthorID: alice.ID,
		Note: "on a line", Path: storePtr("dir/file.go"), Line: storePtr(12), LineType: storePtr("new")})
	if err != nil {
		t.Fatalf("Create inline: %v", err)
	}
	if c2.ID == c1.ID || c2.CreatedAt.Before(before) || c2.CreatedAt.Location() != time.UTC {
		t.Errorf("inline comment: %+v", c2)
	}
	// Other commits and projects do not mix in.
	for _, c := range []domain.CommitComment{
		{ProjectID: p.ID, CommitID: storeSHA2, AuthorID: alice.ID, Note: "other commit"},
		{ProjectID: other.ID, CommitID: storeSHA1, AuthorID: alice.ID, Note: "other project"},
	} {
		if _, err := s.CommitComments.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	list, total, err := s.CommitComments.List(ctx, p.ID, storeSHA1, domain.Page{Page: 1, PerPage: 20})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if total != 2 {
		t.Errorf("total = %d, want 2", total)
	}
	if diff := cmp.Diff([]domain.CommitComment{want1, c2}, list); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	list, total, err = s.CommitComments.List(ctx, p.ID, "3333333333333333333333333333333333333333", domain.Page{Page: 1, PerPage: 20})
	if err != nil || total != 0 || list == nil || len(list) != 0 {
		t.Errorf("List of an uncommented commit = %#v, %d, %v; want an empty, non-nil list", list, total, err)
	}
}

func storeCommitCommentPages(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	var ids []int64
	// Created out of time order: the list is oldest first, not by insertion.
	times := []time.Duration{3, 1, 4, 0, 2}
	byTime := make([]int64, len(times))
	for i, d := range times {
		c, err := s.CommitComments.Create(ctx, domain.CommitComment{ProjectID: p.ID, CommitID: storeSHA1, AuthorID: alice.ID,
			Note: fmt.Sprint("note ", i), CreatedAt: storeT0.Add(d * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
		byTime[d] = c.ID
	}
	commentIDs := func(cs []domain.CommitComment) []int64 {
		return storeIDs(cs, func(c domain.CommitComment) int64 { return c.ID })
	}
	list, total, err := s.CommitComments.List(ctx, p.ID, storeSHA1, domain.Page{Page: 1, PerPage: 2})
	storeWantList(t, "page 1", commentIDs(list), total, err, byTime[:2], 5)
	list, total, err = s.CommitComments.List(ctx, p.ID, storeSHA1, domain.Page{Page: 3, PerPage: 2})
	storeWantList(t, "page 3", commentIDs(list), total, err, byTime[4:], 5)
	list, total, err = s.CommitComments.List(ctx, p.ID, storeSHA1, domain.Page{Page: 4, PerPage: 2})
	storeWantList(t, "past the end", commentIDs(list), total, err, nil, 5)
	list, total, err = s.CommitComments.List(ctx, p.ID, storeSHA1, domain.Page{})
	storeWantList(t, "unpaged", commentIDs(list), total, err, byTime, 5)
	if len(ids) != 5 {
		t.Fatalf("created %d", len(ids))
	}
}

func storeRepositoryDeleteProjectCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	keep := storeRepoProject(t, s, "keep")
	for _, id := range []int64{p.ID, keep.ID} {
		if _, err := s.ProtectedBranches.Protect(ctx, domain.ProtectedBranch{ProjectID: id, Name: "main"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: id, TagName: "v1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CommitComments.Create(ctx, domain.CommitComment{ProjectID: id, CommitID: storeSHA1, AuthorID: alice.ID, Note: "n"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatalf("Delete project: %v", err)
	}
	if list, err := s.ProtectedBranches.List(ctx, p.ID); err != nil || len(list) != 0 {
		t.Errorf("rules of the deleted project: %+v, %v", list, err)
	}
	if got, err := s.Releases.ListByTags(ctx, p.ID, []string{"v1"}); err != nil || len(got) != 0 {
		t.Errorf("releases of the deleted project: %+v, %v", got, err)
	}
	if list, n, err := s.CommitComments.List(ctx, p.ID, storeSHA1, domain.Page{}); err != nil || n != 0 || len(list) != 0 {
		t.Errorf("comments of the deleted project: %+v, %d, %v", list, n, err)
	}
	if list, err := s.ProtectedBranches.List(ctx, keep.ID); err != nil || len(list) != 1 {
		t.Errorf("rules of the other project: %+v, %v", list, err)
	}
	if _, err := s.Releases.Get(ctx, keep.ID, "v1"); err != nil {
		t.Errorf("release of the other project: %v", err)
	}
	if _, n, err := s.CommitComments.List(ctx, keep.ID, storeSHA1, domain.Page{}); err != nil || n != 1 {
		t.Errorf("comments of the other project: %d, %v", n, err)
	}
	// Comments outlive their author, as events do.
	if err := s.Users.Delete(ctx, alice.ID); err != nil {
		t.Fatalf("delete author: %v", err)
	}
	if list, n, err := s.CommitComments.List(ctx, keep.ID, storeSHA1, domain.Page{}); err != nil || n != 1 || list[0].AuthorID != alice.ID {
		t.Errorf("comments after the author left: %+v, %d, %v", list, n, err)
	}
}

func storeRepositoryTxRollback(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeRepoProject(t, s, "p")
	boom := errors.New("boom")
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if _, err := s.ProtectedBranches.Protect(ctx, domain.ProtectedBranch{ProjectID: p.ID, Name: "main"}); err != nil {
			return err
		}
		if _, err := s.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: "v1"}); err != nil {
			return err
		}
		if _, err := s.CommitComments.Create(ctx, domain.CommitComment{ProjectID: p.ID, CommitID: storeSHA1, AuthorID: alice.ID, Note: "n"}); err != nil {
			return err
		}
		if err := s.Projects.TouchActivity(ctx, p.ID, storeT0.Add(time.Hour)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithinTx = %v, want boom", err)
	}
	if list, _ := s.ProtectedBranches.List(ctx, p.ID); len(list) != 0 {
		t.Errorf("rule survived the rollback: %+v", list)
	}
	if _, err := s.Releases.Get(ctx, p.ID, "v1"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("release survived the rollback: %v", err)
	}
	if _, n, _ := s.CommitComments.List(ctx, p.ID, storeSHA1, domain.Page{}); n != 0 {
		t.Errorf("%d comments survived the rollback", n)
	}
	if got, _ := s.Projects.Get(ctx, p.ID); !got.LastActivityAt.Equal(storeT0) {
		t.Errorf("LastActivityAt = %v after the rollback", got.LastActivityAt)
	}
}
