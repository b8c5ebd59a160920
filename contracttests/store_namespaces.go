package contracttests

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// storePersonal creates u's public personal namespace, named after the user.
func storePersonal(t *testing.T, s Stores, u *domain.User) *domain.Namespace {
	t.Helper()
	n := &domain.Namespace{
		Kind: domain.NamespaceUser, Name: u.Name, Path: u.Username, OwnerID: &u.ID,
		Visibility: domain.Public, CreatedAt: storeT0, UpdatedAt: storeT0,
	}
	if err := s.Namespaces.Create(t.Context(), n); err != nil {
		t.Fatalf("create namespace of %s: %v", u.Username, err)
	}
	return n
}

// storeGroup creates a group named after path (capitalised) under parent.
func storeGroup(t *testing.T, s Stores, path string, parent *domain.Namespace, vis domain.Visibility) *domain.Namespace {
	t.Helper()
	n := &domain.Namespace{
		Kind: domain.NamespaceGroup, Name: "Group " + path, Path: path,
		Visibility: vis, CreatedAt: storeT0, UpdatedAt: storeT0,
	}
	if parent != nil {
		n.ParentID = &parent.ID
	}
	if err := s.Namespaces.Create(t.Context(), n); err != nil {
		t.Fatalf("create group %s: %v", path, err)
	}
	return n
}

func storeNamespaceIDs(ns []domain.Namespace) []int64 {
	return storeIDs(ns, func(n domain.Namespace) int64 { return n.ID })
}

// storeNamespaceIDsOf lists the IDs of namespaces.
func storeNamespaceIDsOf(ns ...*domain.Namespace) []int64 {
	return storeIDs(ns, func(n *domain.Namespace) int64 { return n.ID })
}

// storeSorted returns ids sorted (for answers in any order).
func storeSorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	if out == nil {
		out = []int64{}
	}
	return out
}

// storeWantIDs compares ID sets, ignoring order.
func storeWantIDs(t *testing.T, what string, got []int64, err error, want ...int64) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if diff := cmp.Diff(storeSorted(want), storeSorted(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// storeFullPath fails unless namespace id has the full path want.
func storeFullPath(t *testing.T, s Stores, id int64, want string) {
	t.Helper()
	n, err := s.Namespaces.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("Get namespace %d: %v", id, err)
	}
	if n.FullPath != want {
		t.Errorf("namespace %d (%s): FullPath = %q, want %q", id, n.Path, n.FullPath, want)
	}
	byPath, err := s.Namespaces.GetByFullPath(t.Context(), want)
	if err != nil || byPath.ID != id {
		t.Errorf("GetByFullPath(%q) = %+v, %v; want namespace %d", want, byPath, err, id)
	}
}

func storeNamespaceCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	home := &domain.Namespace{
		Kind: domain.NamespaceUser, Name: "Alice", Path: "alice", FullPath: "ignored/by/the/store",
		OwnerID: &alice.ID, Description: "home", Visibility: domain.Public, LFSEnabled: true,
		RequestAccessEnabled: true, AvatarURL: "http://a/b.png", CreatedAt: storeT0, UpdatedAt: storeT0.Add(time.Hour),
	}
	if err := s.Namespaces.Create(ctx, home); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if home.ID <= 0 || home.FullPath != "alice" {
		t.Fatalf("Create set ID %d, FullPath %q", home.ID, home.FullPath)
	}
	got, err := s.Namespaces.Get(ctx, home.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(home, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	top := storeGroup(t, s, "top", nil, domain.Private)
	sub := storeGroup(t, s, "Sub", top, domain.Internal)
	deep := storeGroup(t, s, "deep", sub, domain.Public)
	if top.FullPath != "top" || sub.FullPath != "top/Sub" || deep.FullPath != "top/Sub/deep" {
		t.Errorf("full paths %q %q %q", top.FullPath, sub.FullPath, deep.FullPath)
	}
	if deep.ParentID == nil || *deep.ParentID != sub.ID || deep.OwnerID != nil {
		t.Errorf("deep: ParentID %v, OwnerID %v", deep.ParentID, deep.OwnerID)
	}
	got, err = s.Namespaces.GetByFullPath(ctx, "TOP/sub/Deep")
	if err != nil {
		t.Fatalf("GetByFullPath: %v", err)
	}
	if diff := cmp.Diff(deep, got); diff != "" {
		t.Errorf("GetByFullPath (-want +got):\n%s", diff)
	}
	got, err = s.Namespaces.ForUser(ctx, alice.ID)
	if err != nil || got.ID != home.ID {
		t.Errorf("ForUser = %+v, %v; want %d", got, err, home.ID)
	}
	bob := storeUser(t, s, "bob")
	_, err = s.Namespaces.ForUser(ctx, bob.ID)
	storeWantKind(t, err, core.ErrNotFound, "ForUser without a namespace")
	_, err = s.Namespaces.Get(ctx, 99999)
	storeWantKind(t, err, core.ErrNotFound, "Get unknown")
	_, err = s.Namespaces.GetByFullPath(ctx, "top/nope")
	storeWantKind(t, err, core.ErrNotFound, "GetByFullPath unknown")
	many, err := s.Namespaces.GetMany(ctx, []int64{deep.ID, top.ID, 99999, top.ID})
	storeWantIDs(t, "GetMany", storeNamespaceIDs(many), err, top.ID, deep.ID)
	many, err = s.Namespaces.GetMany(ctx, nil)
	storeWantIDs(t, "GetMany(nil)", storeNamespaceIDs(many), err)
	// A zero CreatedAt means now.
	before := time.Now().Add(-time.Second)
	n := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "Now", Path: "now", Visibility: domain.Private}
	if err := s.Namespaces.Create(ctx, n); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if n.CreatedAt.Before(before) || !n.UpdatedAt.Equal(n.CreatedAt) {
		t.Errorf("zero times not set to now: %v %v", n.CreatedAt, n.UpdatedAt)
	}
}

func storeNamespacePathTaken(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	storePersonal(t, s, alice)
	top := storeGroup(t, s, "top", nil, domain.Private)
	other := storeGroup(t, s, "other", nil, domain.Private)
	group := func(path string, parent *domain.Namespace) error {
		n := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "Any " + path, Path: path, Visibility: domain.Private}
		if parent != nil {
			n.ParentID = &parent.ID
		}
		return s.Namespaces.Create(ctx, n)
	}
	storeWantTaken(t, group("TOP", nil), "path", "top-level group path taken by a group")
	storeWantTaken(t, group("Alice", nil), "path", "top-level group path taken by a user")
	bob := storeUser(t, s, "bob")
	err := s.Namespaces.Create(ctx, &domain.Namespace{Kind: domain.NamespaceUser, Name: "Bob", Path: "top", OwnerID: &bob.ID, Visibility: domain.Public})
	storeWantTaken(t, err, "path", "user namespace path taken by a group")
	if err := group("x", top); err != nil {
		t.Fatalf("subgroup x: %v", err)
	}
	storeWantTaken(t, group("X", top), "path", "sibling path taken")
	if err := group("x", other); err != nil {
		t.Errorf("the same path under another parent: %v", err)
	}
	if err := group("alice", top); err != nil {
		t.Errorf("a subgroup named like a user: %v", err)
	}
	// One personal namespace per user.
	err = s.Namespaces.Create(ctx, &domain.Namespace{Kind: domain.NamespaceUser, Name: "Alice 2", Path: "alice2", OwnerID: &alice.ID, Visibility: domain.Public})
	storeWantKind(t, err, core.ErrConflict, "second personal namespace")
	// Nothing was half-created.
	_, err = s.Namespaces.GetByFullPath(ctx, "alice2")
	storeWantKind(t, err, core.ErrNotFound, "failed namespace")
}

func storeNamespaceBadParent(t *testing.T, s Stores) {
	ctx := t.Context()
	err := s.Namespaces.Create(ctx, &domain.Namespace{Kind: domain.NamespaceGroup, Name: "G", Path: "g", ParentID: storePtr(int64(99999)), Visibility: domain.Private})
	storeWantKind(t, err, core.ErrNotFound, "unknown parent")
	alice := storeUser(t, s, "alice")
	home := storePersonal(t, s, alice)
	err = s.Namespaces.Create(ctx, &domain.Namespace{Kind: domain.NamespaceGroup, Name: "G", Path: "g", ParentID: &home.ID, Visibility: domain.Private})
	storeWantKind(t, err, core.ErrInvalid, "a personal namespace as parent")
	err = s.Namespaces.Create(ctx, &domain.Namespace{Kind: domain.NamespaceUser, Name: "Ghost", Path: "ghost", OwnerID: storePtr(int64(99999)), Visibility: domain.Public})
	storeWantKind(t, err, core.ErrNotFound, "unknown owner")
}

func storeNamespaceUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Private)
	got, err := s.Namespaces.Update(ctx, g.ID, func(n *domain.Namespace) error {
		n.Name = "Renamed"
		n.Description = "new"
		n.Visibility = domain.Public
		n.LFSEnabled = true
		n.RequestAccessEnabled = true
		n.AvatarURL = "http://x"
		n.FullPath = "ignored"
		n.ID = 12345
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got.ID != g.ID || got.Name != "Renamed" || got.FullPath != "g" || got.Visibility != domain.Public || !got.LFSEnabled || !got.RequestAccessEnabled {
		t.Errorf("Update = %+v", got)
	}
	if !got.UpdatedAt.After(storeT0) {
		t.Errorf("UpdatedAt not moved: %v", got.UpdatedAt)
	}
	read, err := s.Namespaces.Get(ctx, g.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(got, read); diff != "" {
		t.Errorf("Get after Update (-want +got):\n%s", diff)
	}
	at := storeT0.Add(48 * time.Hour)
	got, err = s.Namespaces.Update(ctx, g.ID, func(n *domain.Namespace) error { n.UpdatedAt = at; return nil })
	if err != nil || !got.UpdatedAt.Equal(at) {
		t.Errorf("UpdatedAt set by fn: %v, %v", got, err)
	}
	_, err = s.Namespaces.Update(ctx, g.ID, func(*domain.Namespace) error { return errStoreRollback })
	if err != errStoreRollback {
		t.Errorf("Update fn error = %v, want it as is", err)
	}
	_, err = s.Namespaces.Update(ctx, 99999, func(*domain.Namespace) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update unknown")
}

func storeNamespaceRenameRewritesDescendants(t *testing.T, s Stores) {
	ctx := t.Context()
	top := storeGroup(t, s, "top", nil, domain.Private)
	sub := storeGroup(t, s, "sub", top, domain.Private)
	deep := storeGroup(t, s, "deep", sub, domain.Private)
	deeper := storeGroup(t, s, "deeper", deep, domain.Private)
	sub2 := storeGroup(t, s, "sub2", top, domain.Private)
	side := storeGroup(t, s, "topside", nil, domain.Private)
	proj := storeProject(t, s, deep, "proj", nil)
	if _, err := s.Namespaces.Update(ctx, sub.ID, func(n *domain.Namespace) error { n.Path = "renamed"; return nil }); err != nil {
		t.Fatalf("rename sub: %v", err)
	}
	storeFullPath(t, s, sub.ID, "top/renamed")
	storeFullPath(t, s, deep.ID, "top/renamed/deep")
	storeFullPath(t, s, deeper.ID, "top/renamed/deep/deeper")
	storeFullPath(t, s, sub2.ID, "top/sub2")
	if _, err := s.Namespaces.GetByFullPath(ctx, "top/sub/deep"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("old path still found: %v", err)
	}
	got, err := s.Projects.GetByFullPath(ctx, "top/renamed/deep/proj")
	if err != nil || got.ID != proj.ID {
		t.Errorf("project under the new path: %+v, %v", got, err)
	}
	if _, err := s.Namespaces.Update(ctx, top.ID, func(n *domain.Namespace) error { n.Path = "Root"; return nil }); err != nil {
		t.Fatalf("rename top: %v", err)
	}
	storeFullPath(t, s, top.ID, "Root")
	storeFullPath(t, s, sub.ID, "Root/renamed")
	storeFullPath(t, s, deep.ID, "Root/renamed/deep")
	storeFullPath(t, s, deeper.ID, "Root/renamed/deep/deeper")
	storeFullPath(t, s, sub2.ID, "Root/sub2")
	storeFullPath(t, s, side.ID, "topside")
	// A case-only rename is a rename too.
	if _, err := s.Namespaces.Update(ctx, top.ID, func(n *domain.Namespace) error { n.Path = "root"; return nil }); err != nil {
		t.Fatalf("rename top: %v", err)
	}
	storeFullPath(t, s, deeper.ID, "root/renamed/deep/deeper")
}

func storeNamespaceMoveRewritesDescendants(t *testing.T, s Stores) {
	ctx := t.Context()
	a := storeGroup(t, s, "a", nil, domain.Private)
	b := storeGroup(t, s, "b", a, domain.Private)
	c := storeGroup(t, s, "c", b, domain.Private)
	d := storeGroup(t, s, "d", nil, domain.Private)
	move := func(n *domain.Namespace, parent *int64) error {
		_, err := s.Namespaces.Update(ctx, n.ID, func(n *domain.Namespace) error { n.ParentID = parent; return nil })
		return err
	}
	if err := move(b, &d.ID); err != nil {
		t.Fatalf("move b under d: %v", err)
	}
	storeFullPath(t, s, b.ID, "d/b")
	storeFullPath(t, s, c.ID, "d/b/c")
	storeFullPath(t, s, a.ID, "a")
	if got, err := s.Namespaces.Ancestors(ctx, c.ID); err != nil || len(got) != 2 || got[0].ID != d.ID || got[1].ID != b.ID {
		t.Errorf("Ancestors after the move: %v, %v", storeNamespaceIDs(got), err)
	}
	if err := move(b, nil); err != nil {
		t.Fatalf("move b to the top: %v", err)
	}
	storeFullPath(t, s, b.ID, "b")
	storeFullPath(t, s, c.ID, "b/c")
	// Rename and move at once.
	if _, err := s.Namespaces.Update(ctx, b.ID, func(n *domain.Namespace) error { n.ParentID = &a.ID; n.Path = "bee"; return nil }); err != nil {
		t.Fatalf("move and rename: %v", err)
	}
	storeFullPath(t, s, c.ID, "a/bee/c")

	storeWantKind(t, move(a, &c.ID), core.ErrInvalid, "move a group under its descendant")
	storeWantKind(t, move(a, &a.ID), core.ErrInvalid, "move a group under itself")
	storeWantKind(t, move(b, &c.ID), core.ErrInvalid, "move a group under its child")
	storeWantKind(t, move(b, storePtr(int64(99999))), core.ErrNotFound, "move under an unknown group")
	alice := storeUser(t, s, "alice")
	home := storePersonal(t, s, alice)
	storeWantKind(t, move(b, &home.ID), core.ErrInvalid, "move under a personal namespace")
	// A path taken in the new parent.
	storeGroup(t, s, "bee", d, domain.Private)
	storeWantTaken(t, move(b, &d.ID), "path", "move where the path is taken")
	// Failed moves changed nothing.
	storeFullPath(t, s, b.ID, "a/bee")
	storeFullPath(t, s, c.ID, "a/bee/c")
	storeFullPath(t, s, a.ID, "a")
}

func storeNamespaceUpdateConflicts(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	storePersonal(t, s, alice)
	top := storeGroup(t, s, "top", nil, domain.Private)
	x := storeGroup(t, s, "x", top, domain.Private)
	y := storeGroup(t, s, "y", top, domain.Private)
	storeGroup(t, s, "child", y, domain.Private)
	rename := func(n *domain.Namespace, path string) error {
		_, err := s.Namespaces.Update(ctx, n.ID, func(n *domain.Namespace) error { n.Path = path; return nil })
		return err
	}
	storeWantTaken(t, rename(y, "X"), "path", "rename to a sibling's path")
	storeWantTaken(t, rename(top, "ALICE"), "path", "rename a top-level group to a username")
	storeFullPath(t, s, y.ID, "top/y")
	storeFullPath(t, s, x.ID, "top/x")
	// In a transaction, the conflict leaves it usable.
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		_, err := s.Namespaces.Update(ctx, y.ID, func(n *domain.Namespace) error { n.Path = "x"; return nil })
		storeWantTaken(t, err, "path", "rename in a transaction")
		_, err = s.Namespaces.Update(ctx, y.ID, func(n *domain.Namespace) error { n.Path = "z"; return nil })
		return err
	})
	if err != nil {
		t.Fatalf("transaction after a handled conflict: %v", err)
	}
	storeFullPath(t, s, y.ID, "top/z")
}

func storeNamespaceAncestorsDescendants(t *testing.T, s Stores) {
	ctx := t.Context()
	a := storeGroup(t, s, "a", nil, domain.Private)
	b := storeGroup(t, s, "b", a, domain.Private)
	c := storeGroup(t, s, "c", b, domain.Private)
	d := storeGroup(t, s, "d", c, domain.Private)
	e := storeGroup(t, s, "e", a, domain.Private)
	f := storeGroup(t, s, "f", nil, domain.Private)
	g := storeGroup(t, s, "g", f, domain.Private)

	anc, err := s.Namespaces.Ancestors(ctx, d.ID)
	if err != nil {
		t.Fatalf("Ancestors: %v", err)
	}
	if diff := cmp.Diff([]int64{a.ID, b.ID, c.ID}, storeNamespaceIDs(anc)); diff != "" {
		t.Errorf("Ancestors(d), top down (-want +got):\n%s", diff)
	}
	if anc[0].FullPath != "a" || anc[2].FullPath != "a/b/c" {
		t.Errorf("Ancestors rows: %+v", anc)
	}
	for _, id := range []int64{a.ID, 99999} {
		anc, err := s.Namespaces.Ancestors(ctx, id)
		if err != nil || len(anc) != 0 {
			t.Errorf("Ancestors(%d) = %v, %v; want none", id, anc, err)
		}
	}
	ids, err := s.Namespaces.Descendants(ctx, []int64{a.ID})
	storeWantIDs(t, "Descendants(a)", ids, err, b.ID, c.ID, d.ID, e.ID)
	ids, err = s.Namespaces.Descendants(ctx, []int64{b.ID, f.ID})
	storeWantIDs(t, "Descendants(b, f)", ids, err, c.ID, d.ID, g.ID)
	ids, err = s.Namespaces.Descendants(ctx, []int64{a.ID, b.ID})
	storeWantIDs(t, "Descendants(a, b) leaves the given ones out", ids, err, c.ID, d.ID, e.ID)
	ids, err = s.Namespaces.Descendants(ctx, []int64{d.ID, 99999})
	storeWantIDs(t, "Descendants(leaf, unknown)", ids, err)
	ids, err = s.Namespaces.Descendants(ctx, nil)
	storeWantIDs(t, "Descendants(nil)", ids, err)
	ids, err = s.Namespaces.AncestorIDs(ctx, []int64{d.ID, g.ID})
	storeWantIDs(t, "AncestorIDs(d, g)", ids, err, a.ID, b.ID, c.ID, f.ID)
	ids, err = s.Namespaces.AncestorIDs(ctx, []int64{c.ID, b.ID, e.ID})
	storeWantIDs(t, "AncestorIDs(c, b, e) leaves the given ones out", ids, err, a.ID)
	ids, err = s.Namespaces.AncestorIDs(ctx, []int64{a.ID, 99999})
	storeWantIDs(t, "AncestorIDs(top, unknown)", ids, err)
	ids, err = s.Namespaces.AncestorIDs(ctx, nil)
	storeWantIDs(t, "AncestorIDs(nil)", ids, err)
	with := func(ids ...int64) ([]int64, error) {
		ns, err := s.Namespaces.WithAncestors(ctx, ids)
		for _, n := range ns {
			if n.FullPath == "" || n.Name == "" {
				t.Errorf("WithAncestors row not filled: %+v", n)
			}
		}
		return storeNamespaceIDs(ns), err
	}
	ids, err = with(d.ID, g.ID)
	storeWantIDs(t, "WithAncestors(d, g)", ids, err, a.ID, b.ID, c.ID, d.ID, f.ID, g.ID)
	ids, err = with(c.ID, b.ID, e.ID, 99999)
	storeWantIDs(t, "WithAncestors(c, b, e, unknown)", ids, err, a.ID, b.ID, c.ID, e.ID)
	ids, err = with()
	storeWantIDs(t, "WithAncestors()", ids, err)
}

func storeNamespaceOfProjects(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	home := storePersonal(t, s, alice)
	g := storeGroup(t, s, "g", nil, domain.Private)
	sub := storeGroup(t, s, "sub", g, domain.Private)
	p1 := storeProject(t, s, home, "p1", nil)
	p2 := storeProject(t, s, g, "p2", nil)
	p3 := storeProject(t, s, g, "p3", nil)
	p4 := storeProject(t, s, sub, "p4", nil)
	ids, err := s.Namespaces.OfProjects(ctx, []int64{p1.ID, p2.ID, p3.ID, p4.ID, 99999})
	storeWantIDs(t, "OfProjects", ids, err, g.ID, sub.ID)
	ids, err = s.Namespaces.OfProjects(ctx, []int64{p1.ID})
	storeWantIDs(t, "OfProjects(personal only)", ids, err)
	ids, err = s.Namespaces.OfProjects(ctx, nil)
	storeWantIDs(t, "OfProjects(nil)", ids, err)
}

func storeNamespaceDeleteCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	bob := storeUser(t, s, "bob")
	top := storeGroup(t, s, "top", nil, domain.Private)
	sub := storeGroup(t, s, "sub", top, domain.Private)
	deep := storeGroup(t, s, "deep", sub, domain.Private)
	other := storeGroup(t, s, "other", nil, domain.Private)
	p1 := storeProject(t, s, top, "p1", nil)
	p2 := storeProject(t, s, sub, "p2", nil)
	p3 := storeProject(t, s, deep, "p3", nil)
	keep := storeProject(t, s, other, "keep", nil)
	fork := storeProject(t, s, other, "fork", func(p *domain.Project) { p.ForkedFromID = &p2.ID })
	for _, g := range []*domain.Namespace{top, sub, deep, other} {
		storeMember(t, s, domain.MemberOfGroup, g.ID, alice.ID, domain.Owner)
	}
	for _, p := range []*domain.Project{p1, p2, p3, keep} {
		storeMember(t, s, domain.MemberOfProject, p.ID, bob.ID, domain.Developer)
	}
	storeShare(t, s, p1.ID, other.ID)
	storeShare(t, s, keep.ID, sub.ID)
	storeShare(t, s, keep.ID, other.ID)
	for _, p := range []*domain.Project{p1, p3, keep} {
		if _, err := s.Projects.Star(ctx, alice.ID, p.ID); err != nil {
			t.Fatalf("Star: %v", err)
		}
	}

	if err := s.Namespaces.Delete(ctx, top.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	for _, id := range []int64{top.ID, sub.ID, deep.ID} {
		_, err := s.Namespaces.Get(ctx, id)
		storeWantKind(t, err, core.ErrNotFound, "deleted namespace")
	}
	for _, id := range []int64{p1.ID, p2.ID, p3.ID} {
		_, err := s.Projects.Get(ctx, id)
		storeWantKind(t, err, core.ErrNotFound, "project of a deleted namespace")
	}
	got, err := s.Projects.Get(ctx, fork.ID)
	if err != nil || got.ForkedFromID != nil {
		t.Errorf("fork of a deleted project: %+v, %v; want it kept without ForkedFromID", got, err)
	}
	ms, err := s.Members.OfUser(ctx, alice.ID)
	if err != nil || len(ms) != 1 || ms[0].SourceID != other.ID {
		t.Errorf("alice's memberships after the delete: %+v, %v; want only group %d", ms, err, other.ID)
	}
	ms, err = s.Members.OfUser(ctx, bob.ID)
	if err != nil || len(ms) != 1 || ms[0].SourceID != keep.ID {
		t.Errorf("bob's memberships after the delete: %+v, %v; want only project %d", ms, err, keep.ID)
	}
	shares, err := s.Members.SharesOfProject(ctx, keep.ID)
	if err != nil || len(shares) != 1 || shares[0].GroupID != other.ID {
		t.Errorf("shares of keep: %+v, %v; want only with other", shares, err)
	}
	shares, err = s.Members.SharesWithGroups(ctx, []int64{other.ID, sub.ID})
	if err != nil || len(shares) != 1 || shares[0].ProjectID != keep.ID {
		t.Errorf("shares with other: %+v, %v; want only keep", shares, err)
	}
	starred, err := s.Projects.Starred(ctx, alice.ID, []int64{p1.ID, p3.ID, keep.ID})
	if err != nil || !cmp.Equal(starred, map[int64]bool{keep.ID: true}) {
		t.Errorf("Starred after the delete: %v, %v", starred, err)
	}
	if got, err := s.Projects.Get(ctx, keep.ID); err != nil || got.StarCount != 1 {
		t.Errorf("keep: %+v, %v; want StarCount 1", got, err)
	}
	// The freed paths can be used again, and the memberships do not come back.
	again := storeGroup(t, s, "top", nil, domain.Private)
	if ms, _, err := s.Members.List(ctx, domain.MemberOfGroup, again.ID, "", domain.Page{}); err != nil || len(ms) != 0 {
		t.Errorf("members of a recreated group: %+v, %v", ms, err)
	}
	err = s.Namespaces.Delete(ctx, top.ID)
	storeWantKind(t, err, core.ErrNotFound, "Delete twice")
}

func storeNamespaceListGroups(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	storePersonal(t, s, alice) // public, but not a group
	mk := func(name, path string, parent *domain.Namespace, vis domain.Visibility) *domain.Namespace {
		n := &domain.Namespace{Kind: domain.NamespaceGroup, Name: name, Path: path, Visibility: vis, CreatedAt: storeT0, UpdatedAt: storeT0}
		if parent != nil {
			n.ParentID = &parent.ID
		}
		if err := s.Namespaces.Create(ctx, n); err != nil {
			t.Fatalf("create group %s: %v", path, err)
		}
		return n
	}
	// Names and paths sort differently.
	pub := mk("Alpha", "zz-pub", nil, domain.Public)
	intl := mk("Bravo", "yy-int", nil, domain.Internal)
	priv := mk("Charlie", "xx-priv", nil, domain.Private)
	child := mk("Delta", "ww-child", pub, domain.Public)
	secret := mk("Echo secret", "vv-secret", priv, domain.Private)
	ids := storeNamespaceIDsOf
	cases := []struct {
		name  string
		f     domain.GroupFilter
		want  []int64
		total int
	}{
		{"all", domain.GroupFilter{All: true, Ascending: true}, ids(pub, intl, priv, child, secret), 5},
		{"anonymous", domain.GroupFilter{Ascending: true}, ids(pub, child), 2},
		{"internal", domain.GroupFilter{Internal: true, Ascending: true}, ids(pub, intl, child), 3},
		{"member groups", domain.GroupFilter{GroupIDs: []int64{priv.ID, secret.ID}, Ascending: true}, ids(pub, priv, child, secret), 4},
		{"only ids (all)", domain.GroupFilter{All: true, OnlyIDs: ids(pub, priv), OnlyIDsSet: true, Ascending: true}, ids(pub, priv), 2},
		{"only ids limited by visibility", domain.GroupFilter{OnlyIDs: ids(pub, priv), OnlyIDsSet: true, Ascending: true}, ids(pub), 1},
		{"only ids set but empty", domain.GroupFilter{All: true, OnlyIDsSet: true}, nil, 0},
		{"skip ids", domain.GroupFilter{All: true, SkipIDs: ids(intl, child), Ascending: true}, ids(pub, priv, secret), 3},
		{"parent", domain.GroupFilter{All: true, ParentID: &pub.ID}, ids(child), 1},
		{"top level", domain.GroupFilter{All: true, TopLevel: true, Ascending: true}, ids(pub, intl, priv), 3},
		{"top level anonymous", domain.GroupFilter{TopLevel: true, Ascending: true}, ids(pub), 1},
		{"search name", domain.GroupFilter{All: true, Search: "SECRET"}, ids(secret), 1},
		{"search path", domain.GroupFilter{All: true, Search: "-pub"}, ids(pub), 1},
		{"search matches nothing", domain.GroupFilter{All: true, Search: "%"}, nil, 0},
		{"name descending", domain.GroupFilter{All: true}, ids(secret, child, priv, intl, pub), 5},
		{"path ascending", domain.GroupFilter{All: true, OrderBy: "path", Ascending: true}, ids(secret, child, priv, intl, pub), 5},
		{"path descending", domain.GroupFilter{All: true, OrderBy: "path"}, ids(pub, intl, priv, child, secret), 5},
		{"page 2", domain.GroupFilter{All: true, Ascending: true, Page: domain.Page{Page: 2, PerPage: 2}}, ids(priv, child), 5},
		{"page past the end", domain.GroupFilter{All: true, Ascending: true, Page: domain.Page{Page: 4, PerPage: 2}}, nil, 5},
		{"page of a scope", domain.GroupFilter{Internal: true, Ascending: true, Page: domain.Page{Page: 2, PerPage: 2}}, ids(child), 3},
	}
	for _, c := range cases {
		got, n, err := s.Namespaces.ListGroups(ctx, c.f)
		storeWantList(t, c.name, storeNamespaceIDs(got), n, err, c.want, c.total)
	}
	got, _, err := s.Namespaces.ListGroups(ctx, domain.GroupFilter{All: true, ParentID: &pub.ID})
	if err == nil && (len(got) != 1 || got[0].FullPath != "zz-pub/ww-child" || got[0].Name != "Delta") {
		t.Errorf("ListGroups rows: %+v", got)
	}
	// Two groups with one name: the ID breaks the tie.
	tie := mk("Alpha", "alpha-2", nil, domain.Public)
	got, n, err := s.Namespaces.ListGroups(ctx, domain.GroupFilter{Search: "alpha", Ascending: true})
	storeWantList(t, "tie ascending", storeNamespaceIDs(got), n, err, ids(pub, tie), 2)
	got, n, err = s.Namespaces.ListGroups(ctx, domain.GroupFilter{Search: "alpha"})
	storeWantList(t, "tie descending", storeNamespaceIDs(got), n, err, ids(tie, pub), 2)
	_, _, err = s.Namespaces.ListGroups(ctx, domain.GroupFilter{All: true, OrderBy: "id; DROP TABLE namespaces"})
	storeWantKind(t, err, core.ErrInvalid, "unknown OrderBy")
}

func storeNamespaceSearch(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	bob := storeUser(t, s, "bob")
	ha := storePersonal(t, s, alice)
	hb := storePersonal(t, s, bob)
	allies := storeGroup(t, s, "allies", nil, domain.Private)
	sub := storeGroup(t, s, "sub", allies, domain.Private)
	got, n, err := s.Namespaces.Search(ctx, "", nil, false, domain.Page{})
	storeWantList(t, "everything", storeNamespaceIDs(got), n, err, []int64{ha.ID, hb.ID, allies.ID, sub.ID}, 4)
	got, n, err = s.Namespaces.Search(ctx, "AL", nil, false, domain.Page{})
	storeWantList(t, "search", storeNamespaceIDs(got), n, err, []int64{ha.ID, allies.ID}, 2)
	got, n, err = s.Namespaces.Search(ctx, "user b", nil, false, domain.Page{}) // the name of bob's namespace
	storeWantList(t, "search by name", storeNamespaceIDs(got), n, err, []int64{hb.ID}, 1)
	got, n, err = s.Namespaces.Search(ctx, "al", []int64{ha.ID, sub.ID}, true, domain.Page{})
	storeWantList(t, "search limited to ids", storeNamespaceIDs(got), n, err, []int64{ha.ID}, 1)
	got, n, err = s.Namespaces.Search(ctx, "", nil, true, domain.Page{})
	storeWantList(t, "ids set but empty", storeNamespaceIDs(got), n, err, nil, 0)
	got, n, err = s.Namespaces.Search(ctx, "", nil, false, domain.Page{Page: 2, PerPage: 3})
	storeWantList(t, "page 2", storeNamespaceIDs(got), n, err, []int64{sub.ID}, 4)
}
