package access_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// fakes: just enough of the stores for the policy.
type world struct {
	namespaces map[int64]*domain.Namespace
	projects   map[int64]*domain.Project
	members    []domain.Member
	shares     []domain.ProjectShare
}

type nsStore struct {
	ports.NamespaceStore
	w *world
}

func (s nsStore) Get(_ context.Context, id int64) (*domain.Namespace, error) {
	if n, ok := s.w.namespaces[id]; ok {
		return n, nil
	}
	return nil, core.ErrNotFound
}

func (s nsStore) ForUser(_ context.Context, uid int64) (*domain.Namespace, error) {
	for _, n := range s.w.namespaces {
		if n.OwnerID != nil && *n.OwnerID == uid {
			return n, nil
		}
	}
	return nil, core.ErrNotFound
}

func (s nsStore) Ancestors(_ context.Context, id int64) ([]domain.Namespace, error) {
	var out []domain.Namespace
	for n := s.w.namespaces[id]; n != nil && n.ParentID != nil; n = s.w.namespaces[*n.ParentID] {
		out = append([]domain.Namespace{*s.w.namespaces[*n.ParentID]}, out...)
	}
	return out, nil
}

func (s nsStore) WithAncestors(_ context.Context, ids []int64) ([]domain.Namespace, error) {
	seen := map[int64]bool{}
	var out []domain.Namespace
	for _, id := range ids {
		for n := s.w.namespaces[id]; n != nil && !seen[n.ID]; {
			seen[n.ID] = true
			out = append(out, *n)
			if n.ParentID == nil {
				break
			}
			n = s.w.namespaces[*n.ParentID]
		}
	}
	return out, nil
}

func (s nsStore) AncestorIDs(ctx context.Context, ids []int64) ([]int64, error) {
	var out []int64
	for _, id := range ids {
		anc, _ := s.Ancestors(ctx, id)
		for _, a := range anc {
			out = append(out, a.ID)
		}
	}
	return out, nil
}

func (s nsStore) Descendants(_ context.Context, ids []int64) ([]int64, error) {
	var out []int64
	frontier := ids
	for len(frontier) > 0 {
		var next []int64
		for _, n := range s.w.namespaces {
			for _, f := range frontier {
				if n.ParentID != nil && *n.ParentID == f {
					next = append(next, n.ID)
				}
			}
		}
		out = append(out, next...)
		frontier = next
	}
	return out, nil
}

func (s nsStore) OfProjects(_ context.Context, ids []int64) ([]int64, error) {
	var out []int64
	for _, id := range ids {
		if p := s.w.projects[id]; p != nil && s.w.namespaces[p.NamespaceID].Kind == domain.NamespaceGroup {
			out = append(out, p.NamespaceID)
		}
	}
	return out, nil
}

type memberStore struct {
	ports.MemberStore
	w *world
}

func (s memberStore) InSources(_ context.Context, uid int64, src domain.MemberSource, ids []int64) ([]domain.Member, error) {
	var out []domain.Member
	for _, m := range s.w.members {
		for _, id := range ids {
			if m.UserID == uid && m.Source == src && m.SourceID == id {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

func (s memberStore) OfUser(_ context.Context, uid int64) ([]domain.Member, error) {
	var out []domain.Member
	for _, m := range s.w.members {
		if m.UserID == uid {
			out = append(out, m)
		}
	}
	return out, nil
}

func (s memberStore) SharesOfProject(_ context.Context, pid int64) ([]domain.ProjectShare, error) {
	var out []domain.ProjectShare
	for _, sh := range s.w.shares {
		if sh.ProjectID == pid {
			out = append(out, sh)
		}
	}
	return out, nil
}

func (s memberStore) SharesWithGroups(_ context.Context, gids []int64) ([]domain.ProjectShare, error) {
	var out []domain.ProjectShare
	for _, sh := range s.w.shares {
		for _, g := range gids {
			if sh.GroupID == g {
				out = append(out, sh)
			}
		}
	}
	return out, nil
}

type projectStore struct {
	ports.ProjectStore
	w *world
}

func (s projectStore) Get(_ context.Context, id int64) (*domain.Project, error) {
	if p, ok := s.w.projects[id]; ok {
		return p, nil
	}
	return nil, core.ErrNotFound
}

type clock struct{ t time.Time }

func (c clock) Now() time.Time { return c.t }

func ptr[T any](v T) *T { return &v }

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// The world: users 1 (alice: personal project 100), 2 (bob), 3 (carol,
// external), 4 (dave, blocked), 9 (admin). Group 10 > subgroup 11 holds
// project 110; group 20 is shared with project 110 at reporter.
func newWorld() *world {
	w := &world{
		namespaces: map[int64]*domain.Namespace{
			1:  {ID: 1, Kind: domain.NamespaceUser, OwnerID: ptr(int64(1)), Visibility: domain.Public},
			10: {ID: 10, Kind: domain.NamespaceGroup, Visibility: domain.Private},
			11: {ID: 11, Kind: domain.NamespaceGroup, ParentID: ptr(int64(10)), Visibility: domain.Private},
			20: {ID: 20, Kind: domain.NamespaceGroup, Visibility: domain.Private},
		},
		projects: map[int64]*domain.Project{
			100: {ID: 100, NamespaceID: 1, Visibility: domain.Private},
			110: {ID: 110, NamespaceID: 11, Visibility: domain.Private},
		},
	}
	return w
}

func TestProjectLevels(t *testing.T) {
	alice := &domain.User{ID: 1, State: domain.UserActive}
	bob := &domain.User{ID: 2, State: domain.UserActive}
	carol := &domain.User{ID: 3, State: domain.UserActive, External: true}
	dave := &domain.User{ID: 4, State: domain.UserBlocked}
	root := &domain.User{ID: 9, State: domain.UserActive, Admin: true}
	caller := func(u *domain.User) *domain.Caller { return &domain.Caller{User: u} }

	cases := []struct {
		name      string
		setup     func(w *world)
		who       *domain.Caller
		project   int64
		vis       domain.Visibility
		wantLevel domain.AccessLevel
		wantRead  bool
		wantAdmin bool
	}{
		{"anonymous, private", nil, nil, 110, domain.Private, 0, false, false},
		{"anonymous, internal", nil, nil, 110, domain.Internal, 0, false, false},
		{"anonymous, public", nil, nil, 110, domain.Public, 0, true, false},
		{"non-member, private", nil, caller(bob), 110, domain.Private, 0, false, false},
		{"non-member, internal", nil, caller(bob), 110, domain.Internal, 0, true, false},
		{"external non-member, internal", nil, caller(carol), 110, domain.Internal, 0, false, false},
		{"external non-member, public", nil, caller(carol), 110, domain.Public, 0, true, false},
		{"personal namespace owner", nil, caller(alice), 100, domain.Private, domain.Owner, true, false},
		{"admin", nil, caller(root), 110, domain.Private, 0, true, true},
		{"blocked member", func(w *world) {
			w.members = append(w.members, domain.Member{Source: domain.MemberOfProject, SourceID: 110, UserID: 4, AccessLevel: domain.Master})
		}, caller(dave), 110, domain.Private, 0, false, false},
		{"direct guest", func(w *world) {
			w.members = append(w.members, domain.Member{Source: domain.MemberOfProject, SourceID: 110, UserID: 2, AccessLevel: domain.Guest})
		}, caller(bob), 110, domain.Private, domain.Guest, true, false},
		{"expired direct member", func(w *world) {
			w.members = append(w.members, domain.Member{Source: domain.MemberOfProject, SourceID: 110, UserID: 2, AccessLevel: domain.Master, ExpiresAt: ptr(now.Add(-time.Hour))})
		}, caller(bob), 110, domain.Private, 0, false, false},
		{"member of the project's group", func(w *world) {
			w.members = append(w.members, domain.Member{Source: domain.MemberOfGroup, SourceID: 11, UserID: 2, AccessLevel: domain.Developer})
		}, caller(bob), 110, domain.Private, domain.Developer, true, false},
		{"inherited from the parent group", func(w *world) {
			w.members = append(w.members, domain.Member{Source: domain.MemberOfGroup, SourceID: 10, UserID: 2, AccessLevel: domain.Owner})
		}, caller(bob), 110, domain.Private, domain.Owner, true, false},
		{"highest of direct and inherited", func(w *world) {
			w.members = append(w.members,
				domain.Member{Source: domain.MemberOfGroup, SourceID: 10, UserID: 2, AccessLevel: domain.Reporter},
				domain.Member{Source: domain.MemberOfProject, SourceID: 110, UserID: 2, AccessLevel: domain.Master})
		}, caller(bob), 110, domain.Private, domain.Master, true, false},
		{"shared group, capped at the share", func(w *world) {
			w.shares = append(w.shares, domain.ProjectShare{ProjectID: 110, GroupID: 20, GroupAccess: domain.Reporter})
			w.members = append(w.members, domain.Member{Source: domain.MemberOfGroup, SourceID: 20, UserID: 2, AccessLevel: domain.Owner})
		}, caller(bob), 110, domain.Private, domain.Reporter, true, false},
		{"shared group, member level below the cap", func(w *world) {
			w.shares = append(w.shares, domain.ProjectShare{ProjectID: 110, GroupID: 20, GroupAccess: domain.Master})
			w.members = append(w.members, domain.Member{Source: domain.MemberOfGroup, SourceID: 20, UserID: 2, AccessLevel: domain.Guest})
		}, caller(bob), 110, domain.Private, domain.Guest, true, false},
		{"expired share", func(w *world) {
			w.shares = append(w.shares, domain.ProjectShare{ProjectID: 110, GroupID: 20, GroupAccess: domain.Master, ExpiresAt: ptr(now.Add(-time.Hour))})
			w.members = append(w.members, domain.Member{Source: domain.MemberOfGroup, SourceID: 20, UserID: 2, AccessLevel: domain.Owner})
		}, caller(bob), 110, domain.Private, 0, false, false},
		// CI job tokens: the job's user's rights, capped at reporter, no
		// admin; the job's own project always at reporter.
		{"job of a master", func(w *world) {
			w.members = append(w.members, domain.Member{Source: domain.MemberOfProject, SourceID: 110, UserID: 2, AccessLevel: domain.Master})
		}, &domain.Caller{User: bob, Job: &domain.Job{ProjectID: 999}}, 110, domain.Private, domain.Reporter, true, false},
		{"job of a guest", func(w *world) {
			w.members = append(w.members, domain.Member{Source: domain.MemberOfProject, SourceID: 110, UserID: 2, AccessLevel: domain.Guest})
		}, &domain.Caller{User: bob, Job: &domain.Job{ProjectID: 999}}, 110, domain.Private, domain.Guest, true, false},
		{"job of an admin", nil, &domain.Caller{User: root, Job: &domain.Job{ProjectID: 999}}, 110, domain.Private, domain.Reporter, true, false},
		{"job of a stranger", nil, &domain.Caller{User: bob, Job: &domain.Job{ProjectID: 999}}, 110, domain.Private, 0, false, false},
		{"job in its own project, no user", nil, &domain.Caller{Job: &domain.Job{ProjectID: 110}}, 110, domain.Private, domain.Reporter, true, false},
		{"member of an unrelated group", func(w *world) {
			w.members = append(w.members, domain.Member{Source: domain.MemberOfGroup, SourceID: 20, UserID: 2, AccessLevel: domain.Owner})
		}, caller(bob), 110, domain.Private, 0, false, false},
		// Deploy keys: their projects only, whatever the visibility; no
		// level, so no member's rule applies to them.
		{"deploy key of the project", nil, &domain.Caller{DeployKey: &domain.DeployKeyAccess{Projects: []int64{100, 110}}},
			110, domain.Private, 0, true, false},
		{"deploy key of another project, public", nil, &domain.Caller{DeployKey: &domain.DeployKeyAccess{Projects: []int64{100}}},
			110, domain.Public, 0, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			w.projects[c.project].Visibility = c.vis
			if c.setup != nil {
				c.setup(w)
			}
			p := access.New(memberStore{w: w}, nsStore{w: w}, projectStore{w: w}, clock{now})
			r, err := p.Project(context.Background(), c.who, w.projects[c.project])
			if err != nil {
				t.Fatal(err)
			}
			if r.Level != c.wantLevel || r.Read != c.wantRead || r.Admin != c.wantAdmin {
				t.Fatalf("rights %+v, want level %d read %v admin %v", r, c.wantLevel, c.wantRead, c.wantAdmin)
			}
			// Resolve hides what may not be read.
			_, err = p.Resolve(context.Background(), c.who, domain.IDOrPath{ID: c.project})
			if c.wantRead != (err == nil) {
				t.Fatalf("Resolve: %v", err)
			}
			if err != nil && err.Error() != "not found: 404 Project Not Found" {
				t.Fatalf("Resolve error %v", err)
			}
		})
	}
}

func TestScopes(t *testing.T) {
	w := newWorld()
	w.namespaces[12] = &domain.Namespace{ID: 12, Kind: domain.NamespaceGroup, ParentID: ptr(int64(11)), Visibility: domain.Private}
	w.members = []domain.Member{
		{Source: domain.MemberOfGroup, SourceID: 11, UserID: 2, AccessLevel: domain.Guest},
		{Source: domain.MemberOfProject, SourceID: 100, UserID: 2, AccessLevel: domain.Reporter},
		{Source: domain.MemberOfGroup, SourceID: 20, UserID: 2, AccessLevel: domain.Developer},
		{Source: domain.MemberOfProject, SourceID: 555, UserID: 2, AccessLevel: domain.Master, ExpiresAt: ptr(now.Add(-time.Minute))},
	}
	w.shares = []domain.ProjectShare{{ProjectID: 777, GroupID: 20, GroupAccess: domain.Reporter}}
	p := access.New(memberStore{w: w}, nsStore{w: w}, projectStore{w: w}, clock{now})
	bob := &domain.Caller{User: &domain.User{ID: 2, State: domain.UserActive}}

	s, err := p.ProjectScope(context.Background(), bob)
	if err != nil {
		t.Fatal(err)
	}
	if s.All || !s.Internal || !same(s.ProjectIDs, 100, 777) || !same(s.NamespaceIDs, 11, 20, 12) {
		t.Fatalf("project scope %+v", s)
	}
	g, err := p.GroupScope(context.Background(), bob)
	if err != nil {
		t.Fatal(err)
	}
	// Member of 11 and 20: sees them, 11's subgroup 12 and ancestor 10.
	if g.All || !same(g.GroupIDs, 10, 11, 12, 20) {
		t.Fatalf("group scope %+v", g)
	}
	if s, _ := p.ProjectScope(context.Background(), nil); s.All || s.Internal || len(s.ProjectIDs)+len(s.NamespaceIDs) != 0 {
		t.Fatalf("anonymous scope %+v", s)
	}
	admin := &domain.Caller{User: &domain.User{ID: 9, Admin: true, State: domain.UserActive}}
	if s, _ := p.ProjectScope(context.Background(), admin); !s.All {
		t.Fatalf("admin scope %+v", s)
	}
	// A private parent group is visible to members of its subgroups.
	r, err := p.Group(context.Background(), bob, w.namespaces[10])
	if err != nil || !r.Read || r.Level != 0 {
		t.Fatalf("parent group rights %+v %v", r, err)
	}
}

func same(got []int64, want ...int64) bool {
	m := map[int64]int{}
	for _, g := range got {
		m[g]++
	}
	for _, w := range want {
		if m[w] == 0 {
			return false
		}
		delete(m, w)
	}
	return len(m) == 0
}

// TestResolve: the resolver's 404s and 401 come in GitLab's order.
func TestResolve(t *testing.T) {
	w := newWorld()
	w.projects[100].Visibility = domain.Public
	p := access.New(memberStore{w: w}, nsStore{w: w}, projectStore{w: w}, clock{now})
	ctx := context.Background()
	bob := &domain.Caller{User: &domain.User{ID: 2, State: domain.UserActive}}
	pub, priv, missing := domain.IDOrPath{ID: 100}, domain.IDOrPath{ID: 110}, domain.IDOrPath{ID: 404}

	if tg, err := p.Resolve(ctx, nil, pub); err != nil || tg.Project.ID != 100 || !tg.Rights.Read {
		t.Fatalf("anonymous on a public project: %+v %v", tg, err)
	}
	for name, ref := range map[string]domain.IDOrPath{"private": priv, "missing": missing} {
		if _, err := p.Resolve(ctx, bob, ref); err == nil || err.Error() != "not found: 404 Project Not Found" {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A feature the project has off is the project's 404.
	if _, err := p.Resolve(ctx, bob, pub, access.ReadIssue); err == nil || err.Error() != "not found: 404 Project Not Found" {
		t.Fatalf("issues off: %v", err)
	}
	w.projects[100].IssuesEnabled = true
	if _, err := p.Resolve(ctx, bob, pub, access.ReadIssue); err != nil {
		t.Fatalf("issues on: %v", err)
	}
	// A path whose {id} named nothing is 400 "id is invalid", after a 401 for writes.
	if _, err := p.Resolve(ctx, bob, domain.IDOrPath{}); !errors.Is(err, core.ErrInvalid) {
		t.Fatalf("zero reference: %v", err)
	}
	if _, err := p.ResolveSignedIn(ctx, nil, domain.IDOrPath{}); !errors.Is(err, core.ErrUnauthenticated) {
		t.Fatalf("anonymous write, zero reference: %v", err)
	}
	// Writes ask for a user before anything else, even for a missing project.
	if _, err := p.ResolveSignedIn(ctx, nil, missing); err == nil || !errors.Is(err, core.ErrUnauthenticated) {
		t.Fatalf("anonymous write: %v", err)
	}
}
