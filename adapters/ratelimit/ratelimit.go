// Package ratelimit is ports.RateLimiter in memory, over
// golang.org/x/time/rate: one token bucket per key, holding a period's
// allowance and refilling it evenly over the period. Limits are per node:
// with several nodes behind a balancer, each enforces its own.
package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/hearth-forge/hearth/core/ports"
)

// sweepAbove is how many keys the limiter keeps before it forgets the
// idle ones (a full bucket says nothing a new one would not).
const sweepAbove = 10_000

// Limiter is the in-memory ports.RateLimiter.
type Limiter struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	now     func() time.Time
}

// New returns an empty limiter; now is the clock (time.Now in
// production).
func New(now func() time.Time) *Limiter {
	return &Limiter{buckets: map[string]*rate.Limiter{}, now: now}
}

// Take spends one token of key's bucket (limit tokens, refilled over
// period).
func (l *Limiter) Take(_ context.Context, key string, limit int, period time.Duration) ports.RateDecision {
	now := l.now()
	every := rate.Every(period / time.Duration(max(limit, 1)))
	l.mu.Lock()
	b, ok := l.buckets[key]
	if !ok || b.Burst() != limit || b.Limit() != every {
		if len(l.buckets) >= sweepAbove {
			l.sweep(now)
		}
		b = rate.NewLimiter(every, limit)
		l.buckets[key] = b
	}
	allowed := b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	l.mu.Unlock()

	remaining := max(int(math.Floor(tokens)), 0)
	d := ports.RateDecision{Allowed: allowed, Limit: limit, Remaining: remaining, Observed: limit - remaining}
	perToken := period / time.Duration(max(limit, 1))
	if allowed {
		// Whole again once the spent tokens have come back.
		d.Reset = now.Add(time.Duration((float64(limit) - tokens) * float64(perToken)))
	} else {
		// The next token.
		d.Reset = now.Add(time.Duration((1 - tokens) * float64(perToken)))
	}
	return d
}

// sweep forgets the keys whose bucket is full again. Called with mu held.
func (l *Limiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, k)
		}
	}
}

var _ ports.RateLimiter = (*Limiter)(nil)
