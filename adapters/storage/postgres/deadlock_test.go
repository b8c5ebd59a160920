package postgres_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDeadlockedTransactionRunsAgain: two transactions lock two rows in
// opposite orders, so Postgres aborts one of them to break the deadlock;
// WithinTx runs the aborted one again and both succeed, each having run
// twice at most.
func TestDeadlockedTransactionRunsAgain(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	ctx := t.Context()
	db := st.DB()
	if _, err := db.ExecContext(ctx, `CREATE TABLE deadlock_rows (id int PRIMARY KEY, n int NOT NULL);
		INSERT INTO deadlock_rows VALUES (1, 0), (2, 0)`); err != nil {
		t.Fatal(err)
	}
	// Both hold their first lock before either asks for its second.
	var first sync.WaitGroup
	first.Add(2)
	var runs atomic.Int32
	lockBoth := func(a, b int) error {
		once := false
		return st.Tx().WithinTx(ctx, func(ctx context.Context) error {
			runs.Add(1)
			tx := st.Conn(ctx)
			if _, err := tx.ExecContext(ctx, "UPDATE deadlock_rows SET n = n + 1 WHERE id = ?", a); err != nil {
				return err
			}
			if !once {
				once = true
				first.Done()
				first.Wait()
			}
			_, err := tx.ExecContext(ctx, "UPDATE deadlock_rows SET n = n + 1 WHERE id = ?", b)
			return err
		})
	}
	errs := make(chan error, 2)
	go func() { errs <- lockBoth(1, 2) }()
	go func() { errs <- lockBoth(2, 1) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("a deadlocked transaction failed instead of running again: %v", err)
		}
	}
	if r := runs.Load(); r != 3 {
		t.Fatalf("the transactions ran %d times, want 3 (one of them twice)", r)
	}
	var sum int
	if err := db.NewRaw("SELECT sum(n) FROM deadlock_rows").Scan(ctx, &sum); err != nil || sum != 4 {
		t.Fatalf("sum = %d (%v), want 4: each committed once", sum, err)
	}
}
