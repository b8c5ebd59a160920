// Package retry paces work that is redone after losing a race, such as a
// compare-and-swap of a git ref that another writer moved first.
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff waits a little before attempt+1: a random delay whose ceiling
// doubles with each lost race (10 ms, 20 ms ... up to 1 s), so that
// writers who collided spread out. It returns ctx's error when ctx ends
// first.
func Backoff(ctx context.Context, attempt int) error {
	ceiling := min(10*time.Millisecond<<min(attempt, 7), time.Second)
	t := time.NewTimer(time.Millisecond + rand.N(ceiling))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
