package gitcli

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

// TestRunObserver: every git process is reported with its run time, and
// a failing one with its error; the count matches the backend's own.
func TestRunObserver(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var tooks []time.Duration
	var errs []error
	root := t.TempDir()
	b, err := New(root, zaptest.NewLogger(t), WithRunObserver(func(took time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		tooks = append(tooks, took)
		errs = append(errs, err)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	bare := plainRepo(t, root)
	before := b.runs.Load()
	mu.Lock()
	seen := len(tooks)
	mu.Unlock()
	if _, err := b.runIn(t.Context(), bare, "rev-parse", "--verify", "refs/heads/main"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.runIn(t.Context(), bare, "rev-parse", "--verify", "--quiet", "refs/heads/nope"); err == nil {
		t.Fatal("rev-parse of a missing ref succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if n := b.runs.Load() - before; int64(len(tooks)-seen) != n || n < 2 {
		t.Fatalf("observed %d processes, the backend ran %d (want at least 2)", len(tooks)-seen, n)
	}
	last := len(errs) - 1
	if errs[last-1] != nil || errs[last] == nil {
		t.Errorf("outcomes %v: want the success then the failure", errs[last-1:])
	}
	for i, d := range tooks {
		if d <= 0 {
			t.Errorf("process %d took %v", i, d)
		}
	}
}
