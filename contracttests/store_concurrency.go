package contracttests

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// storeWorkers is how many goroutines race in the concurrency cases.
const storeWorkers = 20

// storeRace runs fn(i) for i in [0, storeWorkers) at once and returns the errors.
func storeRace(fn func(i int) error) []error {
	errs := make([]error, storeWorkers)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range storeWorkers {
		wg.Go(func() {
			start.Wait()
			errs[i] = fn(i)
		})
	}
	start.Done()
	wg.Wait()
	return errs
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
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
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
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
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
