package contracttests

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// storeProject creates a private project named and pathed path in ns;
// mod, when set, adjusts it first.
func storeProject(t *testing.T, s Stores, ns *domain.Namespace, path string, mod func(p *domain.Project)) *domain.Project {
	t.Helper()
	p := &domain.Project{
		NamespaceID: ns.ID, Name: path, Path: path, Visibility: domain.Private,
		IssuesEnabled: true, MergeRequestsEnabled: true, DefaultBranch: "main",
		CreatedAt: storeT0, UpdatedAt: storeT0, LastActivityAt: storeT0,
	}
	if mod != nil {
		mod(p)
	}
	if err := s.Projects.Create(t.Context(), p); err != nil {
		t.Fatalf("create project %s: %v", path, err)
	}
	return p
}

func storeProjectIDs(ps []domain.Project) []int64 {
	return storeIDs(ps, func(p domain.Project) int64 { return p.ID })
}

// storeProjectIDsOf lists the IDs of projects.
func storeProjectIDsOf(ps ...*domain.Project) []int64 {
	return storeIDs(ps, func(p *domain.Project) int64 { return p.ID })
}

func storeProjectCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	g := storeGroup(t, s, "g", nil, domain.Public)
	src := storeProject(t, s, g, "src", nil)
	p := &domain.Project{
		NamespaceID: g.ID, Name: "Full Project", Path: "full-project", Description: "every field",
		DefaultBranch: "trunk", Visibility: domain.Internal,
		IssuesEnabled: true, MergeRequestsEnabled: true, JobsEnabled: true, WikiEnabled: true,
		SnippetsEnabled: true, ContainerRegistryEnabled: true, SharedRunnersEnabled: true, PublicJobs: true,
		OnlyAllowMergeIfPipelineSucceeds: true, OnlyAllowMergeIfAllDiscussionsAreResolved: true,
		LFSEnabled: true, RequestAccessEnabled: true, PrintingMergeRequestLinkEnabled: true, Archived: true,
		CreatorID: alice.ID, ForkedFromID: &src.ID, ImportURL: "https://example.com/x.git",
		ImportStatus: domain.ImportScheduled, ImportError: "none yet", OpenIssuesCount: 3,
		TagList: []string{"go", "Ünïcode", `quote"d`, "with,comma"}, CIConfigPath: "ci/.gitlab-ci.yml",
		AvatarURL: "http://a/p.png", CreatedAt: storeT0, UpdatedAt: storeT0.Add(time.Minute),
		LastActivityAt: storeT0.Add(time.Hour),
	}
	if err := s.Projects.Create(ctx, p); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if p.ID <= 0 || p.ID == src.ID {
		t.Fatalf("Create set ID %d", p.ID)
	}
	got, err := s.Projects.Get(ctx, p.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	// Every boolean false reads back false, and an empty tag list as nil.
	q := &domain.Project{NamespaceID: g.ID, Name: "bare", Path: "bare", Visibility: domain.Private, CreatedAt: storeT0}
	if err := s.Projects.Create(ctx, q); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got, err = s.Projects.Get(ctx, q.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := &domain.Project{
		ID: q.ID, NamespaceID: g.ID, Name: "bare", Path: "bare", Visibility: domain.Private,
		ImportStatus: domain.ImportNone, CreatedAt: storeT0, UpdatedAt: storeT0, LastActivityAt: storeT0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	// Counters start at zero: only Star and AddForks move them.
	c := &domain.Project{NamespaceID: g.ID, Name: "counted", Path: "counted", Visibility: domain.Private, StarCount: 5, ForksCount: 7}
	before := time.Now().Add(-time.Second)
	if err := s.Projects.Create(ctx, c); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if c.StarCount != 0 || c.ForksCount != 0 {
		t.Errorf("counters on Create: %d stars, %d forks; want 0", c.StarCount, c.ForksCount)
	}
	if c.CreatedAt.Before(before) || !c.UpdatedAt.Equal(c.CreatedAt) || !c.LastActivityAt.Equal(c.CreatedAt) {
		t.Errorf("zero times: %v %v %v", c.CreatedAt, c.UpdatedAt, c.LastActivityAt)
	}
	_, err = s.Projects.Get(ctx, 99999)
	storeWantKind(t, err, core.ErrNotFound, "Get unknown")
}

func storeProjectNameOrPathTaken(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Private)
	other := storeGroup(t, s, "other", nil, domain.Private)
	storeProject(t, s, g, "proj", func(p *domain.Project) { p.Name = "My Project" })
	create := func(ns *domain.Namespace, name, path string) error {
		return s.Projects.Create(ctx, &domain.Project{NamespaceID: ns.ID, Name: name, Path: path, Visibility: domain.Private})
	}
	storeWantTaken(t, create(g, "MY PROJECT", "another"), "name", "name taken")
	storeWantTaken(t, create(g, "Another", "PROJ"), "path", "path taken")
	err := create(g, "my project", "Proj")
	storeWantKind(t, err, core.ErrConflict, "name and path taken")
	want := map[string][]string{"name": {"has already been taken"}, "path": {"has already been taken"}}
	if diff := cmp.Diff(want, core.Fields(err)); diff != "" {
		t.Errorf("name and path taken: fields (-want +got):\n%s", diff)
	}
	if err := create(other, "My Project", "proj"); err != nil {
		t.Errorf("the same name and path in another namespace: %v", err)
	}
	if n, err := s.Projects.CountInNamespace(ctx, g.ID); err != nil || n != 1 {
		t.Errorf("CountInNamespace = %d, %v; want 1 (failed creates left nothing)", n, err)
	}
	// In a transaction the conflict leaves it usable.
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		err := s.Projects.Create(ctx, &domain.Project{NamespaceID: g.ID, Name: "x", Path: "proj", Visibility: domain.Private})
		storeWantTaken(t, err, "path", "path taken in a transaction")
		return s.Projects.Create(ctx, &domain.Project{NamespaceID: g.ID, Name: "x", Path: "x", Visibility: domain.Private})
	})
	if err != nil {
		t.Fatalf("transaction after a handled conflict: %v", err)
	}
	err = create(&domain.Namespace{ID: 99999}, "x", "x")
	storeWantKind(t, err, core.ErrNotFound, "unknown namespace")
}

func storeProjectGetByFullPath(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	home := storePersonal(t, s, alice)
	a := storeGroup(t, s, "a", nil, domain.Private)
	b := storeGroup(t, s, "B", a, domain.Private)
	mine := storeProject(t, s, home, "mine", nil)
	deep := storeProject(t, s, b, "Proj.Name", nil)
	// A project in a parent whose path equals a subgroup's.
	clash := storeProject(t, s, a, "b-proj", nil)
	for path, want := range map[string]int64{
		"alice/mine":     mine.ID,
		"ALICE/MINE":     mine.ID,
		"a/b/proj.name":  deep.ID,
		"A/B/Proj.Name":  deep.ID,
		"a/b-proj":       clash.ID,
		"a/B/PROJ.NAME":  deep.ID,
		"alice/mine.git": 0,
		"a/proj.name":    0,
		"b/proj.name":    0,
		"mine":           0,
		"alice/":         0,
		"/mine":          0,
		"":               0,
		"a/b/proj.name/": 0,
		"nope/mine":      0,
		"a%/b/proj.name": 0,
	} {
		got, err := s.Projects.GetByFullPath(ctx, path)
		if want == 0 {
			storeWantKind(t, err, core.ErrNotFound, fmt.Sprintf("GetByFullPath(%q)", path))
			continue
		}
		if err != nil || got.ID != want {
			t.Errorf("GetByFullPath(%q) = %+v, %v; want project %d", path, got, err, want)
		}
	}
}

func storeProjectUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	g := storeGroup(t, s, "g", nil, domain.Private)
	other := storeGroup(t, s, "other", nil, domain.Private)
	p := storeProject(t, s, g, "proj", nil)
	taken := storeProject(t, s, g, "taken", func(p *domain.Project) { p.Name = "Taken" })
	storeProject(t, s, other, "there", nil)
	if _, err := s.Projects.Star(ctx, alice.ID, p.ID); err != nil {
		t.Fatalf("Star: %v", err)
	}
	if err := s.Projects.AddForks(ctx, p.ID, 2); err != nil {
		t.Fatalf("AddForks: %v", err)
	}
	got, err := s.Projects.Update(ctx, p.ID, func(p *domain.Project) error {
		if p.StarCount != 1 || p.ForksCount != 2 {
			t.Errorf("fn saw counters %d, %d; want 1, 2", p.StarCount, p.ForksCount)
		}
		p.Name = "Renamed"
		p.Description = "desc"
		p.Visibility = domain.Public
		p.Archived = true
		p.TagList = []string{"a"}
		p.OpenIssuesCount = 4
		p.ImportStatus = domain.ImportFinished
		p.StarCount = 100 // counters are not Update's to change
		p.ForksCount = 100
		p.ID = 12345
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got.ID != p.ID || got.Name != "Renamed" || got.Visibility != domain.Public || !got.Archived ||
		got.OpenIssuesCount != 4 || got.StarCount != 1 || got.ForksCount != 2 || !cmp.Equal(got.TagList, []string{"a"}) {
		t.Errorf("Update = %+v", got)
	}
	if !got.UpdatedAt.After(storeT0) {
		t.Errorf("UpdatedAt not moved: %v", got.UpdatedAt)
	}
	read, err := s.Projects.Get(ctx, p.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(got, read); diff != "" {
		t.Errorf("Get after Update (-want +got):\n%s", diff)
	}
	at := storeT0.Add(72 * time.Hour)
	got, err = s.Projects.Update(ctx, p.ID, func(p *domain.Project) error { p.UpdatedAt = at; p.LastActivityAt = at; return nil })
	if err != nil || !got.UpdatedAt.Equal(at) || !got.LastActivityAt.Equal(at) {
		t.Errorf("times set by fn: %+v, %v", got, err)
	}
	rename := func(name, path string, ns int64) error {
		_, err := s.Projects.Update(ctx, p.ID, func(p *domain.Project) error { p.Name, p.Path, p.NamespaceID = name, path, ns; return nil })
		return err
	}
	storeWantTaken(t, rename("TAKEN", "proj", g.ID), "name", "rename to a taken name")
	storeWantTaken(t, rename("Renamed", "Taken", g.ID), "path", "rename to a taken path")
	err = rename("taken", "taken", g.ID)
	if diff := cmp.Diff(map[string][]string{"name": {"has already been taken"}, "path": {"has already been taken"}}, core.Fields(err)); diff != "" {
		t.Errorf("rename to a taken name and path: fields (-want +got):\n%s", diff)
	}
	storeWantTaken(t, rename("Renamed", "There", other.ID), "path", "transfer where the path is taken")
	storeWantKind(t, rename("Renamed", "proj", 99999), core.ErrNotFound, "transfer to an unknown namespace")
	if err := rename("Renamed", "proj", other.ID); err != nil {
		t.Errorf("transfer: %v", err)
	}
	// Renaming to its own name and path in another case is no conflict.
	if err := rename("RENAMED", "Proj", other.ID); err != nil {
		t.Errorf("case-only rename: %v", err)
	}
	_, err = s.Projects.Update(ctx, taken.ID, func(*domain.Project) error { return errStoreRollback })
	if err != errStoreRollback {
		t.Errorf("Update fn error = %v, want it as is", err)
	}
	_, err = s.Projects.Update(ctx, 99999, func(*domain.Project) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update unknown")
}

func storeProjectDeleteCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	bob := storeUser(t, s, "bob")
	g := storeGroup(t, s, "g", nil, domain.Private)
	p := storeProject(t, s, g, "proj", nil)
	keep := storeProject(t, s, g, "keep", nil)
	fork := storeProject(t, s, g, "fork", func(f *domain.Project) { f.ForkedFromID = &p.ID })
	storeMember(t, s, domain.MemberOfProject, p.ID, alice.ID, domain.Master)
	storeMember(t, s, domain.MemberOfProject, p.ID, bob.ID, domain.Guest)
	storeMember(t, s, domain.MemberOfProject, keep.ID, alice.ID, domain.Master)
	storeMember(t, s, domain.MemberOfGroup, g.ID, bob.ID, domain.Owner)
	storeShare(t, s, p.ID, g.ID)
	storeShare(t, s, keep.ID, g.ID)
	for _, id := range []int64{p.ID, keep.ID} {
		if _, err := s.Projects.Star(ctx, alice.ID, id); err != nil {
			t.Fatalf("Star: %v", err)
		}
	}
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := s.Projects.Get(ctx, p.ID)
	storeWantKind(t, err, core.ErrNotFound, "deleted project")
	_, err = s.Members.Get(ctx, domain.MemberOfProject, p.ID, alice.ID)
	storeWantKind(t, err, core.ErrNotFound, "membership of a deleted project")
	ms, err := s.Members.OfUser(ctx, bob.ID)
	if err != nil || len(ms) != 1 || ms[0].Source != domain.MemberOfGroup {
		t.Errorf("bob's memberships: %+v, %v; want the group one only", ms, err)
	}
	if _, err := s.Members.Get(ctx, domain.MemberOfProject, keep.ID, alice.ID); err != nil {
		t.Errorf("membership of another project: %v", err)
	}
	shares, err := s.Members.SharesWithGroups(ctx, []int64{g.ID})
	if err != nil || len(shares) != 1 || shares[0].ProjectID != keep.ID {
		t.Errorf("shares: %+v, %v; want only keep's", shares, err)
	}
	starred, err := s.Projects.Starred(ctx, alice.ID, []int64{p.ID, keep.ID})
	if err != nil || !cmp.Equal(starred, map[int64]bool{keep.ID: true}) {
		t.Errorf("Starred: %v, %v", starred, err)
	}
	got, err := s.Projects.Get(ctx, fork.ID)
	if err != nil || got.ForkedFromID != nil {
		t.Errorf("fork: %+v, %v; want ForkedFromID cleared", got, err)
	}
	storeWantKind(t, s.Projects.Delete(ctx, p.ID), core.ErrNotFound, "Delete twice")
	// The name and path are free again; nothing of the old project comes back.
	again := storeProject(t, s, g, "proj", nil)
	if ms, n, err := s.Members.List(ctx, domain.MemberOfProject, again.ID, "", domain.Page{}); err != nil || n != 0 || len(ms) != 0 {
		t.Errorf("members of the new project: %+v, %d, %v", ms, n, err)
	}
}

// storeListFixture builds projects for the list cases:
//
//	home (alice's personal namespace): mine (private)
//	g (public group): pub (public), intl (internal), priv (private, archived)
//	h (private group): hid (private)
type storeListFixture struct {
	alice, bob                 *domain.User
	home, g, h                 *domain.Namespace
	mine, pub, intl, priv, hid *domain.Project
}

func storeListProjects(t *testing.T, s Stores) storeListFixture {
	t.Helper()
	var f storeListFixture
	f.alice = storeUser(t, s, "alice")
	f.bob = storeUser(t, s, "bob")
	f.home = storePersonal(t, s, f.alice)
	f.g = storeGroup(t, s, "g", nil, domain.Public)
	f.h = storeGroup(t, s, "h", nil, domain.Private)
	at := func(h int) time.Time { return storeT0.Add(time.Duration(h) * time.Hour) }
	f.mine = storeProject(t, s, f.home, "mine", func(p *domain.Project) {
		p.Name, p.CreatedAt, p.UpdatedAt, p.LastActivityAt = "Zulu", at(1), at(5), at(3)
		p.Description = "alice's own 100% project"
	})
	f.pub = storeProject(t, s, f.g, "pub", func(p *domain.Project) {
		p.Name, p.CreatedAt, p.UpdatedAt, p.LastActivityAt = "Alpha", at(2), at(4), at(5)
		p.Visibility, p.IssuesEnabled = domain.Public, false
	})
	f.intl = storeProject(t, s, f.g, "intl", func(p *domain.Project) {
		p.Name, p.CreatedAt, p.UpdatedAt, p.LastActivityAt = "Mike", at(3), at(3), at(1)
		p.Visibility, p.MergeRequestsEnabled = domain.Internal, false
	})
	f.priv = storeProject(t, s, f.g, "priv", func(p *domain.Project) {
		p.Name, p.CreatedAt, p.UpdatedAt, p.LastActivityAt = "Bravo", at(4), at(2), at(4)
		p.Archived = true
	})
	f.hid = storeProject(t, s, f.h, "hid", func(p *domain.Project) {
		p.Name, p.CreatedAt, p.UpdatedAt, p.LastActivityAt = "Hotel", at(5), at(1), at(2)
		p.IssuesEnabled, p.MergeRequestsEnabled = false, false
	})
	return f
}

func storeProjectListReadable(t *testing.T, s Stores) {
	f := storeListProjects(t, s)
	ids := storeProjectIDsOf
	cases := []struct {
		name  string
		scope domain.ReadScope
		want  []int64 // newest first
	}{
		{"admin", domain.ReadScope{All: true}, ids(f.hid, f.priv, f.intl, f.pub, f.mine)},
		{"anonymous", domain.ReadScope{}, ids(f.pub)},
		{"internal", domain.ReadScope{Internal: true}, ids(f.intl, f.pub)},
		{"project member", domain.ReadScope{ProjectIDs: []int64{f.priv.ID}}, ids(f.priv, f.pub)},
		{"namespace member", domain.ReadScope{NamespaceIDs: []int64{f.home.ID}}, ids(f.pub, f.mine)},
		{"group member", domain.ReadScope{Internal: true, NamespaceIDs: []int64{f.h.ID}}, ids(f.hid, f.intl, f.pub)},
		{"everything through IDs", domain.ReadScope{ProjectIDs: []int64{f.hid.ID, f.priv.ID, f.pub.ID, f.pub.ID}, NamespaceIDs: []int64{f.home.ID, f.g.ID}},
			ids(f.hid, f.priv, f.intl, f.pub, f.mine)},
		{"unknown IDs", domain.ReadScope{ProjectIDs: []int64{99999}, NamespaceIDs: []int64{99999}}, ids(f.pub)},
	}
	for _, c := range cases {
		got, n, err := s.Projects.List(t.Context(), domain.ProjectFilter{Readable: c.scope})
		storeWantList(t, c.name, storeProjectIDs(got), n, err, c.want, len(c.want))
	}
	// The scope applies together with every other filter, to the page and the total.
	scope := domain.ReadScope{Internal: true, NamespaceIDs: []int64{f.home.ID}}
	combos := []struct {
		name  string
		f     domain.ProjectFilter
		want  []int64
		total int
	}{
		{"scope and visibility", domain.ProjectFilter{Readable: scope, Visibility: domain.Private}, ids(f.mine), 1},
		{"scope and namespace", domain.ProjectFilter{Readable: scope, NamespaceIDs: []int64{f.g.ID}}, ids(f.intl, f.pub), 2},
		{"scope and only ids", domain.ProjectFilter{Readable: scope, OnlyIDs: ids(f.hid, f.priv, f.mine), OnlyIDsSet: true}, ids(f.mine), 1},
		{"scope and search", domain.ProjectFilter{Readable: scope, Search: "i"}, ids(f.intl, f.mine), 2},
		{"scope and page", domain.ProjectFilter{Readable: scope, Page: domain.Page{Page: 2, PerPage: 2}}, ids(f.mine), 3},
		{"anonymous and archived", domain.ProjectFilter{Archived: storePtr(true)}, nil, 0},
	}
	for _, c := range combos {
		got, n, err := s.Projects.List(t.Context(), c.f)
		storeWantList(t, c.name, storeProjectIDs(got), n, err, c.want, c.total)
	}
}

func storeProjectListFilters(t *testing.T, s Stores) {
	ctx := t.Context()
	f := storeListProjects(t, s)
	for _, p := range []*domain.Project{f.pub, f.hid} {
		if _, err := s.Projects.Star(ctx, f.bob.ID, p.ID); err != nil {
			t.Fatalf("Star: %v", err)
		}
	}
	if _, err := s.Projects.Star(ctx, f.alice.ID, f.mine.ID); err != nil {
		t.Fatalf("Star: %v", err)
	}
	ids := storeProjectIDsOf
	all := domain.ReadScope{All: true}
	cases := []struct {
		name string
		f    domain.ProjectFilter
		want []int64 // newest first
	}{
		{"namespaces", domain.ProjectFilter{Readable: all, NamespaceIDs: []int64{f.g.ID, f.h.ID}}, ids(f.hid, f.priv, f.intl, f.pub)},
		{"only ids", domain.ProjectFilter{Readable: all, OnlyIDs: ids(f.mine, f.hid)}, ids(f.hid, f.mine)},
		{"only ids set but empty", domain.ProjectFilter{Readable: all, OnlyIDsSet: true}, nil},
		{"starred by bob", domain.ProjectFilter{Readable: all, StarredBy: f.bob.ID}, ids(f.hid, f.pub)},
		{"starred by alice", domain.ProjectFilter{Readable: all, StarredBy: f.alice.ID}, ids(f.mine)},
		{"starred by nobody", domain.ProjectFilter{Readable: all, StarredBy: 99999}, nil},
		{"archived", domain.ProjectFilter{Readable: all, Archived: storePtr(true)}, ids(f.priv)},
		{"not archived", domain.ProjectFilter{Readable: all, Archived: storePtr(false)}, ids(f.hid, f.intl, f.pub, f.mine)},
		{"visibility", domain.ProjectFilter{Readable: all, Visibility: domain.Internal}, ids(f.intl)},
		{"search name", domain.ProjectFilter{Readable: all, Search: "ALPHA"}, ids(f.pub)},
		{"search path", domain.ProjectFilter{Readable: all, Search: "hid"}, ids(f.hid)},
		{"search description", domain.ProjectFilter{Readable: all, Search: "OWN 100"}, ids(f.mine)},
		{"search escapes wildcards", domain.ProjectFilter{Readable: all, Search: "100%"}, ids(f.mine)},
		{"search underscore is literal", domain.ProjectFilter{Readable: all, Search: "p_b"}, nil},
		{"issues enabled", domain.ProjectFilter{Readable: all, WithIssuesEnabled: true}, ids(f.priv, f.intl, f.mine)},
		{"merge requests enabled", domain.ProjectFilter{Readable: all, WithMergeRequestsEnabled: true}, ids(f.priv, f.pub, f.mine)},
		{"both features", domain.ProjectFilter{Readable: all, WithIssuesEnabled: true, WithMergeRequestsEnabled: true}, ids(f.priv, f.mine)},
		{"every filter", domain.ProjectFilter{Readable: all, NamespaceIDs: []int64{f.g.ID}, OnlyIDs: ids(f.pub, f.intl, f.priv), StarredBy: f.bob.ID,
			Archived: storePtr(false), Visibility: domain.Public, Search: "pu", WithMergeRequestsEnabled: true}, ids(f.pub)},
	}
	for _, c := range cases {
		got, n, err := s.Projects.List(ctx, c.f)
		storeWantList(t, c.name, storeProjectIDs(got), n, err, c.want, len(c.want))
	}
}

func storeProjectListOrder(t *testing.T, s Stores) {
	ctx := t.Context()
	f := storeListProjects(t, s)
	ids := storeProjectIDsOf
	all := domain.ReadScope{All: true}
	cases := []struct {
		order domain.ProjectOrder
		asc   []int64
	}{
		{"", ids(f.mine, f.pub, f.intl, f.priv, f.hid)},
		{domain.OrderByCreatedAt, ids(f.mine, f.pub, f.intl, f.priv, f.hid)},
		{domain.OrderByID, ids(f.mine, f.pub, f.intl, f.priv, f.hid)},
		{domain.OrderByName, ids(f.pub, f.priv, f.hid, f.intl, f.mine)},
		{domain.OrderByPath, ids(f.hid, f.intl, f.mine, f.priv, f.pub)},
		{domain.OrderByUpdatedAt, ids(f.hid, f.priv, f.intl, f.pub, f.mine)},
		{domain.OrderByLastActivityAt, ids(f.intl, f.hid, f.mine, f.priv, f.pub)},
	}
	for _, c := range cases {
		got, n, err := s.Projects.List(ctx, domain.ProjectFilter{Readable: all, OrderBy: c.order, Ascending: true})
		storeWantList(t, fmt.Sprintf("order %q ascending", c.order), storeProjectIDs(got), n, err, c.asc, 5)
		desc := make([]int64, len(c.asc))
		for i, id := range c.asc {
			desc[len(desc)-1-i] = id
		}
		got, n, err = s.Projects.List(ctx, domain.ProjectFilter{Readable: all, OrderBy: c.order})
		storeWantList(t, fmt.Sprintf("order %q descending", c.order), storeProjectIDs(got), n, err, desc, 5)
	}
	// Ties break on the ID, in the same direction.
	// Names are unique per namespace, so the twins live in three groups.
	g2 := storeGroup(t, s, "g2", nil, domain.Public)
	g3 := storeGroup(t, s, "g3", nil, domain.Public)
	g4 := storeGroup(t, s, "g4", nil, domain.Public)
	t1 := storeProject(t, s, g2, "t", func(p *domain.Project) { p.Name = "Alpha" })
	t2 := storeProject(t, s, g3, "t", func(p *domain.Project) { p.Name = "Alpha" })
	t3 := storeProject(t, s, g4, "t", func(p *domain.Project) { p.Name = "Alpha" })
	twins := []int64{g2.ID, g3.ID, g4.ID}
	for _, order := range []domain.ProjectOrder{"", domain.OrderByName, domain.OrderByPath, domain.OrderByCreatedAt, domain.OrderByUpdatedAt, domain.OrderByLastActivityAt} {
		got, n, err := s.Projects.List(ctx, domain.ProjectFilter{Readable: all, NamespaceIDs: twins, OrderBy: order, Ascending: true})
		storeWantList(t, fmt.Sprintf("tie %q ascending", order), storeProjectIDs(got), n, err, ids(t1, t2, t3), 3)
		got, n, err = s.Projects.List(ctx, domain.ProjectFilter{Readable: all, NamespaceIDs: twins, OrderBy: order})
		storeWantList(t, fmt.Sprintf("tie %q descending", order), storeProjectIDs(got), n, err, ids(t3, t2, t1), 3)
		got, n, err = s.Projects.List(ctx, domain.ProjectFilter{Readable: all, NamespaceIDs: twins, OrderBy: order, Page: domain.Page{Page: 2, PerPage: 1}})
		storeWantList(t, fmt.Sprintf("tie %q page 2", order), storeProjectIDs(got), n, err, ids(t2), 3)
	}
	_, _, err := s.Projects.List(ctx, domain.ProjectFilter{Readable: all, OrderBy: "star_count; --"})
	storeWantKind(t, err, core.ErrInvalid, "unknown OrderBy")
}

func storeProjectListPages(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Public)
	var want []int64
	for i := range 7 {
		p := storeProject(t, s, g, fmt.Sprintf("p%d", i), func(p *domain.Project) {
			p.Visibility = domain.Public
			p.CreatedAt = storeT0.Add(time.Duration(i) * time.Minute)
		})
		want = append(want, p.ID)
	}
	for _, c := range []struct {
		page domain.Page
		want []int64
	}{
		{domain.Page{}, want},
		{domain.Page{Page: 1, PerPage: 3}, want[0:3]},
		{domain.Page{Page: 2, PerPage: 3}, want[3:6]},
		{domain.Page{Page: 3, PerPage: 3}, want[6:]},
		{domain.Page{Page: 4, PerPage: 3}, nil},
		{domain.Page{Page: 1, PerPage: 100}, want},
	} {
		got, n, err := s.Projects.List(ctx, domain.ProjectFilter{Ascending: true, Page: c.page})
		storeWantList(t, fmt.Sprintf("page %+v", c.page), storeProjectIDs(got), n, err, c.want, 7)
	}
}

// storeProjectListManyIDs: scopes and ID filters of thousands of IDs work
// on every adapter (no per-ID query, no parameter limit).
func storeProjectListManyIDs(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Private)
	var real []int64
	for i := range 12 {
		p := storeProject(t, s, g, fmt.Sprintf("p%02d", i), func(p *domain.Project) { p.CreatedAt = storeT0.Add(time.Duration(i) * time.Second) })
		real = append(real, p.ID)
	}
	const n = 40000
	many := make([]int64, 0, n)
	for i := range n {
		many = append(many, int64(1_000_000+i))
	}
	withReal := append(append([]int64{}, many...), real[0], real[5], real[11])
	got, total, err := s.Projects.List(ctx, domain.ProjectFilter{
		Readable:  domain.ReadScope{ProjectIDs: withReal, NamespaceIDs: many},
		Ascending: true, Page: domain.Page{Page: 1, PerPage: 2},
	})
	storeWantList(t, "scope of many IDs", storeProjectIDs(got), total, err, []int64{real[0], real[5]}, 3)
	got, total, err = s.Projects.List(ctx, domain.ProjectFilter{
		Readable: domain.ReadScope{All: true}, OnlyIDs: withReal, OnlyIDsSet: true, Ascending: true,
	})
	storeWantList(t, "many only IDs", storeProjectIDs(got), total, err, []int64{real[0], real[5], real[11]}, 3)
	ps, err := s.Projects.GetMany(ctx, withReal)
	storeWantIDs(t, "GetMany of many IDs", storeProjectIDs(ps), err, real[0], real[5], real[11])
	starred, err := s.Projects.Starred(ctx, 1, withReal)
	if err != nil || len(starred) != 0 {
		t.Errorf("Starred of many IDs: %v, %v", starred, err)
	}
	ids, err := s.Namespaces.Descendants(ctx, many)
	storeWantIDs(t, "Descendants of many IDs", ids, err)
	groups, total, err := s.Namespaces.ListGroups(ctx, domain.GroupFilter{GroupIDs: append(many, g.ID)})
	storeWantList(t, "groups scope of many IDs", storeNamespaceIDs(groups), total, err, []int64{g.ID}, 1)
}

func storeProjectStars(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	bob := storeUser(t, s, "bob")
	g := storeGroup(t, s, "g", nil, domain.Public)
	p := storeProject(t, s, g, "p", nil)
	q := storeProject(t, s, g, "q", nil)
	star := func(u *domain.User, p *domain.Project, want bool) {
		t.Helper()
		got, err := s.Projects.Star(ctx, u.ID, p.ID)
		if err != nil || got != want {
			t.Errorf("Star(%s, %s) = %v, %v; want %v", u.Username, p.Path, got, err, want)
		}
	}
	unstar := func(u *domain.User, p *domain.Project, want bool) {
		t.Helper()
		got, err := s.Projects.Unstar(ctx, u.ID, p.ID)
		if err != nil || got != want {
			t.Errorf("Unstar(%s, %s) = %v, %v; want %v", u.Username, p.Path, got, err, want)
		}
	}
	count := func(p *domain.Project, want int) {
		t.Helper()
		got, err := s.Projects.Get(ctx, p.ID)
		if err != nil || got.StarCount != want {
			t.Errorf("%s: StarCount = %d, %v; want %d", p.Path, got.StarCount, err, want)
		}
	}
	star(alice, p, true)
	star(alice, p, false)
	count(p, 1)
	star(bob, p, true)
	star(alice, q, true)
	count(p, 2)
	count(q, 1)
	starred, err := s.Projects.Starred(ctx, alice.ID, []int64{p.ID, q.ID, 99999})
	if err != nil || !cmp.Equal(starred, map[int64]bool{p.ID: true, q.ID: true}) {
		t.Errorf("Starred(alice) = %v, %v", starred, err)
	}
	starred, err = s.Projects.Starred(ctx, bob.ID, []int64{p.ID, q.ID})
	if err != nil || !cmp.Equal(starred, map[int64]bool{p.ID: true}) {
		t.Errorf("Starred(bob) = %v, %v", starred, err)
	}
	if starred, err := s.Projects.Starred(ctx, bob.ID, nil); err != nil || len(starred) != 0 {
		t.Errorf("Starred(nil) = %v, %v", starred, err)
	}
	unstar(alice, p, true)
	unstar(alice, p, false)
	unstar(bob, q, false)
	count(p, 1)
	count(q, 1)
	_, err = s.Projects.Star(ctx, alice.ID, 99999)
	storeWantKind(t, err, core.ErrNotFound, "Star an unknown project")
	_, err = s.Projects.Star(ctx, 99999, p.ID)
	storeWantKind(t, err, core.ErrNotFound, "Star as an unknown user")
	count(p, 1)
	// A star inside a rolled-back transaction moves nothing.
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if ok, err := s.Projects.Star(ctx, alice.ID, p.ID); err != nil || !ok {
			return fmt.Errorf("star in tx: %v, %w", ok, err)
		}
		return errStoreRollback
	})
	if !errors.Is(err, errStoreRollback) {
		t.Fatalf("WithinTx: %v", err)
	}
	count(p, 1)
	// Deleting a user takes their stars back.
	if err := s.Users.Delete(ctx, bob.ID); err != nil {
		t.Fatalf("delete bob: %v", err)
	}
	count(p, 0)
	count(q, 1)
}

func storeProjectForks(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Public)
	src := storeProject(t, s, g, "src", nil)
	other := storeProject(t, s, g, "other", nil)
	f1 := storeProject(t, s, g, "f1", func(p *domain.Project) { p.ForkedFromID = &src.ID })
	f2 := storeProject(t, s, g, "f2", func(p *domain.Project) { p.ForkedFromID = &src.ID })
	storeProject(t, s, g, "f3", func(p *domain.Project) { p.ForkedFromID = &f1.ID })
	ids, err := s.Projects.Forks(ctx, src.ID)
	storeWantList(t, "Forks(src)", ids, len(ids), err, []int64{f1.ID, f2.ID}, 2)
	ids, err = s.Projects.Forks(ctx, other.ID)
	storeWantList(t, "Forks(other)", ids, len(ids), err, nil, 0)
	err = s.Projects.Create(ctx, &domain.Project{NamespaceID: g.ID, Name: "bad", Path: "bad", ForkedFromID: storePtr(int64(99999))})
	storeWantKind(t, err, core.ErrNotFound, "fork of an unknown project")

	for _, d := range []int{1, 2, -1} {
		if err := s.Projects.AddForks(ctx, src.ID, d); err != nil {
			t.Fatalf("AddForks(%d): %v", d, err)
		}
	}
	if got, err := s.Projects.Get(ctx, src.ID); err != nil || got.ForksCount != 2 {
		t.Errorf("ForksCount = %d, %v; want 2", got.ForksCount, err)
	}
	if err := s.Projects.AddForks(ctx, src.ID, -5); err != nil {
		t.Fatalf("AddForks(-5): %v", err)
	}
	if got, err := s.Projects.Get(ctx, src.ID); err != nil || got.ForksCount != 0 {
		t.Errorf("ForksCount = %d, %v; want 0 (never negative)", got.ForksCount, err)
	}
	storeWantKind(t, s.Projects.AddForks(ctx, 99999, 1), core.ErrNotFound, "AddForks of an unknown project")
}

func storeProjectPendingImports(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Public)
	var want []int64
	for _, st := range []string{domain.ImportScheduled, domain.ImportNone, domain.ImportStarted, domain.ImportFinished, domain.ImportFailed, ""} {
		p := storeProject(t, s, g, "p-"+st, func(p *domain.Project) { p.ImportStatus = st })
		if st == domain.ImportScheduled || st == domain.ImportStarted {
			want = append(want, p.ID)
		}
	}
	got, err := s.Projects.PendingImports(ctx)
	storeWantList(t, "PendingImports", storeProjectIDs(got), len(got), err, want, 2)
	if len(got) == 2 && (got[0].ImportStatus != domain.ImportScheduled || got[0].Path != "p-scheduled") {
		t.Errorf("PendingImports rows: %+v", got[0])
	}
}

func storeProjectCountGetMany(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Public)
	sub := storeGroup(t, s, "sub", g, domain.Public)
	empty := storeGroup(t, s, "empty", nil, domain.Public)
	a := storeProject(t, s, g, "a", nil)
	b := storeProject(t, s, g, "b", nil)
	c := storeProject(t, s, sub, "c", nil)
	for ns, want := range map[int64]int{g.ID: 2, sub.ID: 1, empty.ID: 0, 99999: 0} {
		if n, err := s.Projects.CountInNamespace(ctx, ns); err != nil || n != want {
			t.Errorf("CountInNamespace(%d) = %d, %v; want %d", ns, n, err, want)
		}
	}
	got, err := s.Projects.GetMany(ctx, []int64{c.ID, a.ID, 99999, c.ID})
	storeWantIDs(t, "GetMany", storeProjectIDs(got), err, a.ID, c.ID)
	got, err = s.Projects.GetMany(ctx, nil)
	storeWantIDs(t, "GetMany(nil)", storeProjectIDs(got), err)
	got, err = s.Projects.GetMany(ctx, []int64{b.ID})
	if err != nil || len(got) != 1 || got[0].Path != "b" {
		t.Errorf("GetMany rows: %+v, %v", got, err)
	}
}
