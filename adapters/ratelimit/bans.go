package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/hearth-forge/hearth/core/ports"
)

// Bans is ports.Bans in memory, per node like Limiter: failures are
// counted in a window that opens at the first failure and lasts findTime
// (Allow2Ban's counter); a key that reaches maxRetry in its window is
// banned for banTime.
type Bans struct {
	mu   sync.Mutex
	keys map[string]*banState
	now  func() time.Time
}

type banState struct {
	failures    int
	windowEnds  time.Time
	bannedUntil time.Time
}

// NewBans returns an empty ban list; now is the clock.
func NewBans(now func() time.Time) *Bans {
	return &Bans{keys: map[string]*banState{}, now: now}
}

// Fail counts one failure of key.
func (b *Bans) Fail(_ context.Context, key string, maxRetry int, findTime, banTime time.Duration) bool {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.keys[key]
	if !ok {
		if len(b.keys) >= sweepAbove {
			b.sweep(now)
		}
		s = &banState{}
		b.keys[key] = s
	}
	if now.Before(s.bannedUntil) {
		return true
	}
	if !now.Before(s.windowEnds) {
		s.failures, s.windowEnds = 0, now.Add(findTime)
	}
	s.failures++
	if s.failures >= maxRetry {
		s.failures, s.windowEnds, s.bannedUntil = 0, time.Time{}, now.Add(banTime)
		return true
	}
	return false
}

// Forgive forgets key's failures; a ban stands.
func (b *Bans) Forgive(_ context.Context, key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.keys[key]; ok {
		s.failures, s.windowEnds = 0, time.Time{}
	}
}

// Banned reports whether key is banned and until when.
func (b *Bans) Banned(_ context.Context, key string) (time.Time, bool) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.keys[key]; ok && now.Before(s.bannedUntil) {
		return s.bannedUntil, true
	}
	return time.Time{}, false
}

// sweep forgets keys with neither a ban nor an open window. Called with
// mu held.
func (b *Bans) sweep(now time.Time) {
	for k, s := range b.keys {
		if !now.Before(s.bannedUntil) && !now.Before(s.windowEnds) {
			delete(b.keys, k)
		}
	}
}

var _ ports.Bans = (*Bans)(nil)
