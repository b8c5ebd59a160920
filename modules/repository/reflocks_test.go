package repository

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRefLocksSerialiseOneBranch: writers of one branch take turns,
// other branches do not wait, a cancelled wait gives up, and nothing is
// left behind.
func TestRefLocksSerialiseOneBranch(t *testing.T) {
	t.Parallel()
	l := newRefLocks()
	ctx := context.Background()
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := l.lock(ctx, "p.git", "main")
			if err != nil {
				t.Error(err)
				return
			}
			n := inside.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			inside.Add(-1)
			unlock()
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d writers held one branch at once", most.Load())
	}

	unlock, err := l.lock(ctx, "p.git", "main")
	if err != nil {
		t.Fatal(err)
	}
	other, err := l.lock(ctx, "p.git", "feature")
	if err != nil {
		t.Fatalf("another branch waited: %v", err)
	}
	other()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.lock(cancelled, "p.git", "main"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	unlock()
	if len(l.held) != 0 {
		t.Fatalf("locks left behind: %v", l.held)
	}
}
