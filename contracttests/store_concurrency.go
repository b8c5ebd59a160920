package contracttests

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// storeWorkers is how many goroutines race in the concurrency cases.
const storeWorkers = 20

// storeRace runs fn(i) for i in [0, storeWorkers) at once and returns the errors.
func storeRace(fn func(i int) error) []error { return storeRaceN(storeWorkers, fn) }

// storeNoErrors fails for every racer that failed.
func storeNoErrors(t *testing.T, errs []error) {
	t.Helper()
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
}

func storeConcurrentCreateUsers(t *testing.T, s Stores) {
	ids := make([]int64, storeWorkers)
	errs := storeRace(func(i int) error {
		u := &domain.User{Username: fmt.Sprintf("user%02d", i), Email: fmt.Sprintf("user%02d@example.com", i), State: domain.UserActive}
		err := s.Users.Create(t.Context(), u)
		ids[i] = u.ID
		return err
	})
	seen := map[int64]bool{}
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
		if seen[ids[i]] {
			t.Errorf("ID %d handed out twice", ids[i])
		}
		seen[ids[i]] = true
	}
	if n, err := s.Users.Count(t.Context()); err != nil || n != storeWorkers {
		t.Errorf("Count = %d, %v; want %d", n, err, storeWorkers)
	}
}

func storeConcurrentUpdate(t *testing.T, s Stores) {
	u := storeUser(t, s, "alice")
	errs := storeRace(func(int) error {
		_, err := s.Users.Update(t.Context(), u.ID, func(u *domain.User) error {
			u.FailedAttempts++
			return nil
		})
		return err
	})
	storeNoErrors(t, errs)
	got, err := s.Users.Get(t.Context(), u.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.FailedAttempts != storeWorkers {
		t.Errorf("FailedAttempts = %d after %d concurrent increments: lost updates", got.FailedAttempts, storeWorkers)
	}
}

// storeOneWins checks that exactly one racer succeeded and every other one
// got a conflict on field.
func storeOneWins(t *testing.T, errs []error, field string) {
	t.Helper()
	wins := 0
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, core.ErrConflict):
			if f := core.Fields(err); len(f[field]) == 0 {
				t.Errorf("worker %d: conflict without field %s: %v", i, field, err)
			}
		default:
			t.Errorf("worker %d: %v, want success or conflict", i, err)
		}
	}
	if wins != 1 {
		t.Errorf("%d racers won, want exactly 1", wins)
	}
}

func storeConcurrentSameUsername(t *testing.T, s Stores) {
	errs := storeRace(func(i int) error {
		return s.Users.Create(t.Context(), &domain.User{Username: "same", Email: fmt.Sprintf("same%02d@example.com", i), State: domain.UserActive})
	})
	storeOneWins(t, errs, "username")
	if n, err := s.Users.Count(t.Context()); err != nil || n != 1 {
		t.Errorf("Count = %d, %v; want 1", n, err)
	}
}

func storeConcurrentSameEmail(t *testing.T, s Stores) {
	users := make([]*domain.User, storeWorkers)
	for i := range users {
		users[i] = storeUser(t, s, fmt.Sprintf("user%02d", i))
	}
	errs := storeRace(func(i int) error {
		return s.Emails.Create(t.Context(), &domain.Email{UserID: users[i].ID, Email: "race@example.com"})
	})
	storeOneWins(t, errs, "email")
	// Primary and secondary addresses race on the same index.
	errs = storeRace(func(i int) error {
		if i%2 == 0 {
			return s.Emails.Create(t.Context(), &domain.Email{UserID: users[i].ID, Email: "race2@example.com"})
		}
		_, err := s.Users.Update(t.Context(), users[i].ID, func(u *domain.User) error { u.Email = "RACE2@example.com"; return nil })
		return err
	})
	storeOneWins(t, errs, "email")
}

func storeConcurrentTransactions(t *testing.T, s Stores) {
	counter := storeUser(t, s, "counter")
	errs := storeRace(func(i int) error {
		return s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
			// Read first, then write: the pattern that fails with
			// SQLITE_BUSY under deferred transactions.
			if _, err := s.Users.Count(ctx); err != nil {
				return err
			}
			u := &domain.User{Username: fmt.Sprintf("tx%02d", i), Email: fmt.Sprintf("tx%02d@example.com", i), State: domain.UserActive}
			if err := s.Users.Create(ctx, u); err != nil {
				return err
			}
			if err := s.Keys.Create(ctx, &domain.SSHKey{UserID: u.ID, Key: "k", Fingerprint: fmt.Sprintf("SHA256:%02d", i)}); err != nil {
				return err
			}
			_, err := s.Users.Update(ctx, counter.ID, func(u *domain.User) error { u.FailedAttempts++; return nil })
			return err
		})
	})
	storeNoErrors(t, errs)
	got, err := s.Users.Get(t.Context(), counter.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.FailedAttempts != storeWorkers {
		t.Errorf("FailedAttempts = %d, want %d", got.FailedAttempts, storeWorkers)
	}
	if n, err := s.Users.Count(t.Context()); err != nil || n != storeWorkers+1 {
		t.Errorf("Count = %d, %v; want %d", n, err, storeWorkers+1)
	}
}

// storeManyWorkers is how many goroutines race in the project cases.
const storeManyWorkers = 50

// storeRaceN runs fn(i) for i in [0, n) at once and returns the errors.
func storeRaceN(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Go(func() {
			start.Wait()
			errs[i] = fn(i)
		})
	}
	start.Done()
	wg.Wait()
	return errs
}

func storeConcurrentSameProjectName(t *testing.T, s Stores) {
	g := storeGroup(t, s, "g", nil, domain.Private)
	errs := storeRaceN(storeManyWorkers, func(i int) error {
		return s.Projects.Create(t.Context(), &domain.Project{NamespaceID: g.ID, Name: "Same", Path: fmt.Sprintf("path-%02d", i), Visibility: domain.Private})
	})
	storeOneWins(t, errs, "name")
	// The same name and path: every loser reports both.
	errs = storeRaceN(storeManyWorkers, func(i int) error {
		return s.Projects.Create(t.Context(), &domain.Project{NamespaceID: g.ID, Name: "Twin", Path: "twin", Visibility: domain.Private})
	})
	storeOneWins(t, errs, "path")
	for i, err := range errs {
		if err != nil && len(core.Fields(err)["name"]) == 0 {
			t.Errorf("worker %d: %v, want the name taken too", i, err)
		}
	}
	if n, err := s.Projects.CountInNamespace(t.Context(), g.ID); err != nil || n != 2 {
		t.Errorf("CountInNamespace = %d, %v; want 2", n, err)
	}
}

func storeConcurrentSameGroupPath(t *testing.T, s Stores) {
	top := storeGroup(t, s, "top", nil, domain.Private)
	errs := storeRaceN(storeManyWorkers, func(i int) error {
		return s.Namespaces.Create(t.Context(), &domain.Namespace{Kind: domain.NamespaceGroup, Name: fmt.Sprintf("Sub %d", i), Path: "sub", ParentID: &top.ID, Visibility: domain.Private})
	})
	storeOneWins(t, errs, "path")
	ids, err := s.Namespaces.Descendants(t.Context(), []int64{top.ID})
	if err != nil || len(ids) != 1 {
		t.Errorf("Descendants = %v, %v; want one subgroup", ids, err)
	}
}

func storeConcurrentStars(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Public)
	p := storeProject(t, s, g, "p", nil)
	users := make([]*domain.User, storeManyWorkers)
	for i := range users {
		users[i] = storeUser(t, s, fmt.Sprintf("user%02d", i))
	}
	count := func(want int) {
		t.Helper()
		got, err := s.Projects.Get(ctx, p.ID)
		if err != nil || got.StarCount != want {
			t.Errorf("StarCount = %d, %v; want %d", got.StarCount, err, want)
		}
	}
	wantAll := func(what string, errs []error, oks []bool, want bool) {
		t.Helper()
		for i, err := range errs {
			if err != nil || oks[i] != want {
				t.Errorf("%s, worker %d: %v, %v; want %v", what, i, oks[i], err, want)
			}
		}
	}
	oks := make([]bool, storeManyWorkers)
	errs := storeRaceN(storeManyWorkers, func(i int) (err error) {
		oks[i], err = s.Projects.Star(ctx, users[i].ID, p.ID)
		return err
	})
	wantAll("Star", errs, oks, true)
	count(storeManyWorkers)
	errs = storeRaceN(storeManyWorkers, func(i int) (err error) {
		oks[i], err = s.Projects.Star(ctx, users[i].ID, p.ID)
		return err
	})
	wantAll("Star again", errs, oks, false)
	count(storeManyWorkers)
	errs = storeRaceN(storeManyWorkers, func(i int) (err error) {
		oks[i], err = s.Projects.Unstar(ctx, users[i].ID, p.ID)
		return err
	})
	wantAll("Unstar", errs, oks, true)
	count(0)
	// One user starring from many requests at once: exactly one counts.
	errs = storeRaceN(storeManyWorkers, func(i int) (err error) {
		oks[i], err = s.Projects.Star(ctx, users[0].ID, p.ID)
		return err
	})
	wins := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("same user, worker %d: %v", i, err)
		}
		if oks[i] {
			wins++
		}
	}
	if wins != 1 {
		t.Errorf("%d concurrent stars by one user reported true, want 1", wins)
	}
	count(1)
}

// storeConcurrentProjectWrites mixes Update (read-modify-write under a lock)
// with Star and AddForks: no increment is lost and Update never writes a
// stale counter back.
func storeConcurrentProjectWrites(t *testing.T, s Stores) {
	ctx := t.Context()
	g := storeGroup(t, s, "g", nil, domain.Public)
	p := storeProject(t, s, g, "p", nil)
	users := make([]*domain.User, storeWorkers)
	for i := range users {
		users[i] = storeUser(t, s, fmt.Sprintf("user%02d", i))
	}
	errs := storeRaceN(3*storeWorkers, func(i int) error {
		switch i % 3 {
		case 0:
			_, err := s.Projects.Update(ctx, p.ID, func(p *domain.Project) error { p.OpenIssuesCount++; return nil })
			return err
		case 1:
			_, err := s.Projects.Star(ctx, users[i/3].ID, p.ID)
			return err
		}
		return s.Projects.AddForks(ctx, p.ID, 1)
	})
	storeNoErrors(t, errs)
	got, err := s.Projects.Get(ctx, p.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.OpenIssuesCount != storeWorkers || got.StarCount != storeWorkers || got.ForksCount != storeWorkers {
		t.Errorf("counters %d issues, %d stars, %d forks; want %d each", got.OpenIssuesCount, got.StarCount, got.ForksCount, storeWorkers)
	}
}

func storeConcurrentMemberAndNamespaceUpdates(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	g := storeGroup(t, s, "g", nil, domain.Public)
	storeMember(t, s, domain.MemberOfGroup, g.ID, alice.ID, domain.Guest)
	errs := storeRace(func(i int) error {
		if i%2 == 0 {
			_, err := s.Members.Update(ctx, domain.MemberOfGroup, g.ID, alice.ID, func(m *domain.Member) error { m.CreatedBy++; return nil })
			return err
		}
		_, err := s.Namespaces.Update(ctx, g.ID, func(n *domain.Namespace) error { n.Description += "x"; return nil })
		return err
	})
	storeNoErrors(t, errs)
	m, err := s.Members.Get(ctx, domain.MemberOfGroup, g.ID, alice.ID)
	if err != nil || m.CreatedBy != storeWorkers/2 {
		t.Errorf("member: %+v, %v; want CreatedBy %d", m, err, storeWorkers/2)
	}
	n, err := s.Namespaces.Get(ctx, g.ID)
	if err != nil || len(n.Description) != storeWorkers/2 {
		t.Errorf("namespace: %+v, %v; want %d x", n, err, storeWorkers/2)
	}
}

// storeConcurrentOppositeMoves moves a under b and b under a at once: one
// move wins, the other fails (core.ErrInvalid, or core.ErrConflict when
// the database had to abort it), and no cycle is ever stored.
func storeConcurrentOppositeMoves(t *testing.T, s Stores) {
	ctx := t.Context()
	for round := range 2 {
		a := storeGroup(t, s, fmt.Sprintf("a%d", round), nil, domain.Private)
		b := storeGroup(t, s, fmt.Sprintf("b%d", round), nil, domain.Private)
		pairs := [][2]*domain.Namespace{{a, b}, {b, a}}
		errs := storeRaceN(2, func(i int) error {
			_, err := s.Namespaces.Update(ctx, pairs[i][0].ID, func(n *domain.Namespace) error { n.ParentID = &pairs[i][1].ID; return nil })
			return err
		})
		wins := 0
		for i, err := range errs {
			switch {
			case err == nil:
				wins++
			case errors.Is(err, core.ErrInvalid), errors.Is(err, core.ErrConflict):
			default:
				t.Errorf("round %d, move %d: %v", round, i, err)
			}
		}
		if wins != 1 {
			t.Errorf("round %d: %d opposite moves succeeded, want 1", round, wins)
		}
		for _, n := range []*domain.Namespace{a, b} {
			anc, err := s.Namespaces.Ancestors(ctx, n.ID)
			if err != nil || len(anc) > 1 {
				t.Errorf("round %d: ancestors of %s: %v, %v", round, n.Path, storeNamespaceIDs(anc), err)
			}
		}
	}
}

// storeConcurrentRenameAndCreate renames a group while subgroups are
// created below it: every full path ends up consistent with the tree.
func storeConcurrentRenameAndCreate(t *testing.T, s Stores) {
	ctx := t.Context()
	top := storeGroup(t, s, "top", nil, domain.Private)
	sub := storeGroup(t, s, "sub", top, domain.Private)
	errs := storeRace(func(i int) error {
		if i%2 == 0 {
			_, err := s.Namespaces.Update(ctx, top.ID, func(n *domain.Namespace) error { n.Path = fmt.Sprintf("top-%02d", i); return nil })
			return err
		}
		return s.Namespaces.Create(ctx, &domain.Namespace{Kind: domain.NamespaceGroup, Name: fmt.Sprint("C", i), Path: fmt.Sprint("c", i), ParentID: &sub.ID, Visibility: domain.Private})
	})
	storeNoErrors(t, errs)
	ids, err := s.Namespaces.Descendants(ctx, []int64{top.ID})
	if err != nil || len(ids) != 1+storeWorkers/2 {
		t.Fatalf("Descendants = %v, %v", ids, err)
	}
	ns, err := s.Namespaces.GetMany(ctx, append(ids, top.ID))
	if err != nil {
		t.Fatalf("GetMany: %v", err)
	}
	for _, n := range ns {
		anc, err := s.Namespaces.Ancestors(ctx, n.ID)
		if err != nil {
			t.Fatalf("Ancestors: %v", err)
		}
		want := ""
		for _, a := range anc {
			want += a.Path + "/"
		}
		if want += n.Path; n.FullPath != want {
			t.Errorf("namespace %d: FullPath %q, want %q", n.ID, n.FullPath, want)
		}
	}
}

// storeCreateDuringRename holds a transaction that created a subgroup
// while another one renames an ancestor: whichever order the database
// picks, the new subgroup ends up under the new path.
func storeCreateDuringRename(t *testing.T, s Stores) {
	ctx := t.Context()
	top := storeGroup(t, s, "top", nil, domain.Private)
	sub := storeGroup(t, s, "sub", top, domain.Private)
	created := make(chan struct{})
	renamed := make(chan error, 1)
	var child domain.Namespace
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		child = domain.Namespace{Kind: domain.NamespaceGroup, Name: "Child", Path: "child", ParentID: &sub.ID, Visibility: domain.Private}
		if err := s.Namespaces.Create(ctx, &child); err != nil {
			return err
		}
		go func() {
			close(created)
			_, err := s.Namespaces.Update(t.Context(), top.ID, func(n *domain.Namespace) error { n.Path = "renamed"; return nil })
			renamed <- err
		}()
		<-created
		time.Sleep(200 * time.Millisecond) // let the rename run as far as it can
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	if err := <-renamed; err != nil {
		t.Fatalf("rename: %v", err)
	}
	storeFullPath(t, s, sub.ID, "renamed/sub")
	storeFullPath(t, s, child.ID, "renamed/sub/child")
}
