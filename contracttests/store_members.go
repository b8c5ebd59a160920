package contracttests

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func storeMember(t *testing.T, s Stores, src domain.MemberSource, sourceID, userID int64, level domain.AccessLevel) *domain.Member {
	t.Helper()
	m := &domain.Member{Source: src, SourceID: sourceID, UserID: userID, AccessLevel: level, CreatedAt: storeT0}
	if err := s.Members.Add(t.Context(), m); err != nil {
		t.Fatalf("add member %d to %s %d: %v", userID, src, sourceID, err)
	}
	return m
}

func storeShare(t *testing.T, s Stores, projectID, groupID int64) *domain.ProjectShare {
	t.Helper()
	sh := &domain.ProjectShare{ProjectID: projectID, GroupID: groupID, GroupAccess: domain.Developer, CreatedAt: storeT0}
	if err := s.Members.Share(t.Context(), sh); err != nil {
		t.Fatalf("share project %d with group %d: %v", projectID, groupID, err)
	}
	return sh
}

func storeMemberUserIDs(ms []domain.Member) []int64 {
	return storeIDs(ms, func(m domain.Member) int64 { return m.UserID })
}

// storeWantMsg fails unless err is a *core.Error of kind with message msg.
func storeWantMsg(t *testing.T, err, kind error, msg, what string) {
	t.Helper()
	storeWantKind(t, err, kind, what)
	var e *core.Error
	if !errors.As(err, &e) || e.Msg != msg {
		t.Errorf("%s: error %v, want message %q", what, err, msg)
	}
}

func storeMemberAddGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	admin := storeUser(t, s, "admin")
	expires := time.Date(2030, 5, 17, 15, 4, 5, 0, time.FixedZone("X", 3*3600))
	m := &domain.Member{
		Source: domain.MemberOfGroup, SourceID: 42, UserID: alice.ID, AccessLevel: domain.Master,
		ExpiresAt: &expires, CreatedAt: storeT0, CreatedBy: admin.ID,
	}
	if err := s.Members.Add(ctx, m); err != nil {
		t.Fatalf("Add: %v", err)
	}
	// Expiry dates are kept as the UTC midnight of their UTC day.
	want := &domain.Member{
		Source: domain.MemberOfGroup, SourceID: 42, UserID: alice.ID, AccessLevel: domain.Master,
		ExpiresAt: storePtr(storeDay(2030, 5, 17)), CreatedAt: storeT0, CreatedBy: admin.ID,
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("Add set (-want +got):\n%s", diff)
	}
	got, err := s.Members.Get(ctx, domain.MemberOfGroup, 42, alice.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	for _, k := range []struct {
		src      domain.MemberSource
		sourceID int64
		userID   int64
	}{
		{domain.MemberOfProject, 42, alice.ID}, // same ID, other kind of source
		{domain.MemberOfGroup, 43, alice.ID},
		{domain.MemberOfGroup, 42, admin.ID},
	} {
		_, err := s.Members.Get(ctx, k.src, k.sourceID, k.userID)
		storeWantKind(t, err, core.ErrNotFound, "Get another membership")
	}
	before := time.Now().Add(-time.Second)
	now := &domain.Member{Source: domain.MemberOfProject, SourceID: 42, UserID: alice.ID, AccessLevel: domain.Guest}
	if err := s.Members.Add(ctx, now); err != nil {
		t.Fatalf("Add to a project with the ID of a group: %v", err)
	}
	if now.CreatedAt.Before(before) || now.ExpiresAt != nil {
		t.Errorf("zero CreatedAt not set to now, or ExpiresAt set: %+v", now)
	}
}

func storeMemberConflicts(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	storeMember(t, s, domain.MemberOfGroup, 1, alice.ID, domain.Developer)
	err := s.Members.Add(ctx, &domain.Member{Source: domain.MemberOfGroup, SourceID: 1, UserID: alice.ID, AccessLevel: domain.Owner})
	storeWantMsg(t, err, core.ErrConflict, "Member already exists", "Add an existing member")
	if got, err := s.Members.Get(ctx, domain.MemberOfGroup, 1, alice.ID); err != nil || got.AccessLevel != domain.Developer {
		t.Errorf("the existing membership changed: %+v, %v", got, err)
	}
	err = s.Members.Add(ctx, &domain.Member{Source: domain.MemberOfGroup, SourceID: 1, UserID: 99999, AccessLevel: domain.Owner})
	storeWantKind(t, err, core.ErrNotFound, "Add an unknown user")
	// In a transaction the conflict leaves it usable.
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		err := s.Members.Add(ctx, &domain.Member{Source: domain.MemberOfGroup, SourceID: 1, UserID: alice.ID, AccessLevel: domain.Owner})
		storeWantMsg(t, err, core.ErrConflict, "Member already exists", "Add an existing member in a transaction")
		return s.Members.Add(ctx, &domain.Member{Source: domain.MemberOfGroup, SourceID: 2, UserID: alice.ID, AccessLevel: domain.Owner})
	})
	if err != nil {
		t.Fatalf("transaction after a handled conflict: %v", err)
	}
}

func storeMemberUpdateRemove(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	bob := storeUser(t, s, "bob")
	storeMember(t, s, domain.MemberOfProject, 7, alice.ID, domain.Guest)
	storeMember(t, s, domain.MemberOfProject, 7, bob.ID, domain.Guest)
	exp := storeDay(2031, 1, 2).Add(13 * time.Hour)
	got, err := s.Members.Update(ctx, domain.MemberOfProject, 7, alice.ID, func(m *domain.Member) error {
		if m.AccessLevel != domain.Guest {
			t.Errorf("fn saw level %d", m.AccessLevel)
		}
		m.AccessLevel = domain.Master
		m.ExpiresAt = &exp
		m.UserID, m.SourceID, m.Source = bob.ID, 8, domain.MemberOfGroup // keys are fixed
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := &domain.Member{Source: domain.MemberOfProject, SourceID: 7, UserID: alice.ID, AccessLevel: domain.Master,
		ExpiresAt: storePtr(storeDay(2031, 1, 2)), CreatedAt: storeT0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	read, err := s.Members.Get(ctx, domain.MemberOfProject, 7, alice.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(want, read); diff != "" {
		t.Errorf("Get after Update (-want +got):\n%s", diff)
	}
	if b, err := s.Members.Get(ctx, domain.MemberOfProject, 7, bob.ID); err != nil || b.AccessLevel != domain.Guest {
		t.Errorf("bob's membership changed: %+v, %v", b, err)
	}
	got, err = s.Members.Update(ctx, domain.MemberOfProject, 7, alice.ID, func(m *domain.Member) error { m.ExpiresAt = nil; return nil })
	if err != nil || got.ExpiresAt != nil {
		t.Errorf("clear ExpiresAt: %+v, %v", got, err)
	}
	_, err = s.Members.Update(ctx, domain.MemberOfProject, 7, alice.ID, func(*domain.Member) error { return errStoreRollback })
	if err != errStoreRollback {
		t.Errorf("Update fn error = %v, want it as is", err)
	}
	_, err = s.Members.Update(ctx, domain.MemberOfGroup, 7, alice.ID, func(*domain.Member) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update unknown")

	if err := s.Members.Remove(ctx, domain.MemberOfProject, 7, alice.ID); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	_, err = s.Members.Get(ctx, domain.MemberOfProject, 7, alice.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get removed")
	storeWantKind(t, s.Members.Remove(ctx, domain.MemberOfProject, 7, alice.ID), core.ErrNotFound, "Remove twice")
	if _, err := s.Members.Get(ctx, domain.MemberOfProject, 7, bob.ID); err != nil {
		t.Errorf("Remove took another membership: %v", err)
	}
}

func storeMemberList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	bob := storeUser(t, s, "bob")
	carol := storeUser(t, s, "carol")
	dave := storeUser(t, s, "dave")
	if _, err := s.Users.Update(ctx, carol.ID, func(u *domain.User) error { u.Name = "Caroline Bobbins"; return nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	// Added out of order: List orders by user ID.
	for _, u := range []*domain.User{dave, bob, alice, carol} {
		storeMember(t, s, domain.MemberOfGroup, 5, u.ID, domain.Developer)
	}
	storeMember(t, s, domain.MemberOfProject, 5, alice.ID, domain.Guest)
	storeMember(t, s, domain.MemberOfGroup, 6, bob.ID, domain.Guest)
	cases := []struct {
		name   string
		src    domain.MemberSource
		search string
		page   domain.Page
		want   []int64
		total  int
	}{
		{"all", domain.MemberOfGroup, "", domain.Page{}, []int64{alice.ID, bob.ID, carol.ID, dave.ID}, 4},
		{"project with the same ID", domain.MemberOfProject, "", domain.Page{}, []int64{alice.ID}, 1},
		{"search username", domain.MemberOfGroup, "BO", domain.Page{}, []int64{bob.ID, carol.ID}, 2},
		{"search name", domain.MemberOfGroup, "caroline", domain.Page{}, []int64{carol.ID}, 1},
		{"search no match", domain.MemberOfGroup, "zed", domain.Page{}, nil, 0},
		{"search wildcard is literal", domain.MemberOfGroup, "_", domain.Page{}, nil, 0},
		{"page 2", domain.MemberOfGroup, "", domain.Page{Page: 2, PerPage: 3}, []int64{dave.ID}, 4},
		{"search page 1", domain.MemberOfGroup, "a", domain.Page{Page: 1, PerPage: 2}, []int64{alice.ID, carol.ID}, 3},
	}
	for _, c := range cases {
		got, n, err := s.Members.List(ctx, c.src, 5, c.search, c.page)
		storeWantList(t, c.name, storeMemberUserIDs(got), n, err, c.want, c.total)
	}
	got, _, err := s.Members.List(ctx, domain.MemberOfGroup, 5, "alice", domain.Page{})
	if err != nil || len(got) != 1 || got[0].Source != domain.MemberOfGroup || got[0].SourceID != 5 || got[0].AccessLevel != domain.Developer {
		t.Errorf("List rows: %+v, %v", got, err)
	}
}

func storeMemberOfUserInSources(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	bob := storeUser(t, s, "bob")
	storeMember(t, s, domain.MemberOfProject, 9, alice.ID, domain.Developer)
	storeMember(t, s, domain.MemberOfGroup, 3, alice.ID, domain.Owner)
	storeMember(t, s, domain.MemberOfProject, 2, alice.ID, domain.Guest)
	storeMember(t, s, domain.MemberOfGroup, 1, alice.ID, domain.Reporter)
	storeMember(t, s, domain.MemberOfGroup, 1, bob.ID, domain.Reporter)
	ms, err := s.Members.OfUser(ctx, alice.ID)
	if err != nil {
		t.Fatalf("OfUser: %v", err)
	}
	type key struct {
		src domain.MemberSource
		id  int64
	}
	var got []key
	for _, m := range ms {
		if m.UserID != alice.ID {
			t.Errorf("OfUser returned %+v", m)
		}
		got = append(got, key{m.Source, m.SourceID})
	}
	want := []key{{domain.MemberOfGroup, 1}, {domain.MemberOfGroup, 3}, {domain.MemberOfProject, 2}, {domain.MemberOfProject, 9}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(key{})); diff != "" {
		t.Errorf("OfUser, by source then ID (-want +got):\n%s", diff)
	}
	if ms, err := s.Members.OfUser(ctx, 99999); err != nil || len(ms) != 0 {
		t.Errorf("OfUser(unknown) = %v, %v", ms, err)
	}
	ms, err = s.Members.InSources(ctx, alice.ID, domain.MemberOfProject, []int64{9, 3, 1, 99})
	if err != nil || len(ms) != 1 || ms[0].SourceID != 9 || ms[0].AccessLevel != domain.Developer {
		t.Errorf("InSources(projects) = %+v, %v", ms, err)
	}
	ms, err = s.Members.InSources(ctx, alice.ID, domain.MemberOfGroup, []int64{1, 3, 9})
	if err != nil || len(ms) != 2 || ms[0].SourceID != 1 || ms[1].SourceID != 3 {
		t.Errorf("InSources(groups) = %+v, %v", ms, err)
	}
	if ms, err := s.Members.InSources(ctx, alice.ID, domain.MemberOfGroup, nil); err != nil || len(ms) != 0 {
		t.Errorf("InSources(nil) = %+v, %v", ms, err)
	}
}

func storeMemberCountOwners(t *testing.T, s Stores) {
	ctx := t.Context()
	now := time.Now().UTC()
	yesterday, tomorrow := now.AddDate(0, 0, -1), now.AddDate(0, 0, 2)
	add := func(name string, src domain.MemberSource, sourceID int64, level domain.AccessLevel, expires *time.Time) {
		u := storeUser(t, s, name)
		if err := s.Members.Add(ctx, &domain.Member{Source: src, SourceID: sourceID, UserID: u.ID, AccessLevel: level, ExpiresAt: expires}); err != nil {
			t.Fatalf("Add %s: %v", name, err)
		}
	}
	add("owner1", domain.MemberOfGroup, 1, domain.Owner, nil)
	add("owner2", domain.MemberOfGroup, 1, domain.Owner, &tomorrow)
	add("expired", domain.MemberOfGroup, 1, domain.Owner, &yesterday)
	add("today", domain.MemberOfGroup, 1, domain.Owner, &now) // ends on today's date, which has begun
	add("master", domain.MemberOfGroup, 1, domain.Master, nil)
	add("elsewhere", domain.MemberOfGroup, 2, domain.Owner, nil)
	add("project", domain.MemberOfProject, 1, domain.Owner, nil)
	for id, want := range map[int64]int{1: 2, 2: 1, 3: 0} {
		if n, err := s.Members.CountOwners(ctx, id); err != nil || n != want {
			t.Errorf("CountOwners(%d) = %d, %v; want %d", id, n, err, want)
		}
	}
	// The store agrees with Member.Active.
	ms, _, err := s.Members.List(ctx, domain.MemberOfGroup, 1, "", domain.Page{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	active := 0
	for _, m := range ms {
		if m.AccessLevel == domain.Owner && m.Active(time.Now()) {
			active++
		}
	}
	if active != 2 {
		t.Errorf("Member.Active counts %d owners, the store 2", active)
	}
}

func storeMemberUserDeleteCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	bob := storeUser(t, s, "bob")
	home := storePersonal(t, s, alice)
	g := storeGroup(t, s, "g", nil, domain.Public)
	mine := storeProject(t, s, home, "mine", nil)
	theirs := storeProject(t, s, g, "theirs", nil)
	storeMember(t, s, domain.MemberOfProject, mine.ID, bob.ID, domain.Developer)
	storeMember(t, s, domain.MemberOfProject, theirs.ID, alice.ID, domain.Developer)
	storeMember(t, s, domain.MemberOfGroup, g.ID, alice.ID, domain.Owner)
	storeMember(t, s, domain.MemberOfGroup, g.ID, bob.ID, domain.Owner)
	if err := s.Users.Delete(ctx, alice.ID); err != nil {
		t.Fatalf("Delete user: %v", err)
	}
	if ms, err := s.Members.OfUser(ctx, alice.ID); err != nil || len(ms) != 0 {
		t.Errorf("memberships of a deleted user: %+v, %v", ms, err)
	}
	_, err := s.Namespaces.Get(ctx, home.ID)
	storeWantKind(t, err, core.ErrNotFound, "personal namespace of a deleted user")
	_, err = s.Projects.Get(ctx, mine.ID)
	storeWantKind(t, err, core.ErrNotFound, "project in the personal namespace of a deleted user")
	if ms, err := s.Members.OfUser(ctx, bob.ID); err != nil || len(ms) != 1 || ms[0].Source != domain.MemberOfGroup {
		t.Errorf("bob's memberships: %+v, %v; want only the group one", ms, err)
	}
	if n, err := s.Members.CountOwners(ctx, g.ID); err != nil || n != 1 {
		t.Errorf("CountOwners = %d, %v; want 1", n, err)
	}
	if _, err := s.Projects.Get(ctx, theirs.ID); err != nil {
		t.Errorf("a group project went with a member: %v", err)
	}
}

func storeShareCreateList(t *testing.T, s Stores) {
	ctx := t.Context()
	g1 := storeGroup(t, s, "g1", nil, domain.Private)
	g2 := storeGroup(t, s, "g2", nil, domain.Private)
	g3 := storeGroup(t, s, "g3", nil, domain.Private)
	p1 := storeProject(t, s, g1, "p1", nil)
	p2 := storeProject(t, s, g1, "p2", nil)
	exp := time.Date(2030, 1, 2, 23, 59, 0, 0, time.UTC)
	sh := &domain.ProjectShare{ProjectID: p1.ID, GroupID: g2.ID, GroupAccess: domain.Reporter, ExpiresAt: &exp, CreatedAt: storeT0}
	if err := s.Members.Share(ctx, sh); err != nil {
		t.Fatalf("Share: %v", err)
	}
	want := domain.ProjectShare{ProjectID: p1.ID, GroupID: g2.ID, GroupAccess: domain.Reporter, ExpiresAt: storePtr(storeDay(2030, 1, 2)), CreatedAt: storeT0}
	if diff := cmp.Diff(want, *sh); diff != "" {
		t.Errorf("Share set (-want +got):\n%s", diff)
	}
	s13 := storeShare(t, s, p1.ID, g3.ID)
	s22 := storeShare(t, s, p2.ID, g2.ID)
	got, err := s.Members.SharesOfProject(ctx, p1.ID)
	if err != nil {
		t.Fatalf("SharesOfProject: %v", err)
	}
	if diff := cmp.Diff([]domain.ProjectShare{want, *s13}, got); diff != "" {
		t.Errorf("SharesOfProject (-want +got):\n%s", diff)
	}
	got, err = s.Members.SharesWithGroups(ctx, []int64{g2.ID, 99999})
	if diff := cmp.Diff([]domain.ProjectShare{want, *s22}, got); err != nil || diff != "" {
		t.Errorf("SharesWithGroups: %v (-want +got):\n%s", err, diff)
	}
	got, err = s.Members.SharesOfProjects(ctx, []int64{p2.ID, p1.ID})
	if diff := cmp.Diff([]domain.ProjectShare{want, *s13, *s22}, got); err != nil || diff != "" {
		t.Errorf("SharesOfProjects: %v (-want +got):\n%s", err, diff)
	}
	for what, f := range map[string]func() ([]domain.ProjectShare, error){
		"SharesOfProject(unknown)": func() ([]domain.ProjectShare, error) { return s.Members.SharesOfProject(ctx, 99999) },
		"SharesWithGroups(nil)":    func() ([]domain.ProjectShare, error) { return s.Members.SharesWithGroups(ctx, nil) },
		"SharesOfProjects(nil)":    func() ([]domain.ProjectShare, error) { return s.Members.SharesOfProjects(ctx, nil) },
	} {
		if got, err := f(); err != nil || len(got) != 0 {
			t.Errorf("%s = %+v, %v", what, got, err)
		}
	}
}

func storeShareConflictsUnshare(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Private)
	h := storeGroup(t, s, "h", nil, domain.Private)
	p := storeProject(t, s, g, "p", nil)
	storeShare(t, s, p.ID, h.ID)
	err := s.Members.Share(ctx, &domain.ProjectShare{ProjectID: p.ID, GroupID: h.ID, GroupAccess: domain.Master})
	storeWantMsg(t, err, core.ErrConflict, "Project already shared with this group", "Share twice")
	err = s.Members.Share(ctx, &domain.ProjectShare{ProjectID: 99999, GroupID: h.ID, GroupAccess: domain.Master})
	storeWantMsg(t, err, core.ErrNotFound, "404 Project Not Found", "Share an unknown project")
	err = s.Members.Share(ctx, &domain.ProjectShare{ProjectID: p.ID, GroupID: 99999, GroupAccess: domain.Master})
	storeWantMsg(t, err, core.ErrNotFound, "404 Group Not Found", "Share with an unknown group")
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		err := s.Members.Share(ctx, &domain.ProjectShare{ProjectID: p.ID, GroupID: h.ID, GroupAccess: domain.Master})
		storeWantKind(t, err, core.ErrConflict, "Share twice in a transaction")
		err = s.Members.Share(ctx, &domain.ProjectShare{ProjectID: p.ID, GroupID: 99999, GroupAccess: domain.Master})
		storeWantKind(t, err, core.ErrNotFound, "Share with an unknown group in a transaction")
		return s.Members.Share(ctx, &domain.ProjectShare{ProjectID: p.ID, GroupID: g.ID, GroupAccess: domain.Master})
	})
	if err != nil {
		t.Fatalf("transaction after handled errors: %v", err)
	}
	if err := s.Members.Unshare(ctx, p.ID, h.ID); err != nil {
		t.Fatalf("Unshare: %v", err)
	}
	storeWantKind(t, s.Members.Unshare(ctx, p.ID, h.ID), core.ErrNotFound, "Unshare twice")
	got, err := s.Members.SharesOfProject(ctx, p.ID)
	if err != nil || len(got) != 1 || got[0].GroupID != g.ID {
		t.Errorf("SharesOfProject after Unshare: %+v, %v", got, err)
	}
	// Deleting the group removes its links.
	if err := s.Namespaces.Delete(ctx, h.ID); err != nil {
		t.Fatalf("Delete group: %v", err)
	}
	storeShare(t, s, p.ID, storeGroup(t, s, "h", nil, domain.Private).ID)
}
