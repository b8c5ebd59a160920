package ports

import (
	"context"
	"time"
)

// RateLimiter counts requests against limits, as GitLab's Rack::Attack
// throttles do.
type RateLimiter interface {
	// Take counts one request against key's allowance of limit requests
	// per period and says whether it may go on, and what to tell the
	// client.
	Take(ctx context.Context, key string, limit int, period time.Duration) RateDecision
}

// RateDecision is one request's verdict under a limit.
type RateDecision struct {
	Allowed bool
	// Limit is the allowance per period, Observed how much of it the key
	// used (this request included) and Remaining what is left.
	Limit, Observed, Remaining int
	// Reset is when the key may send again (a throttled request) or when
	// its allowance is whole again.
	Reset time.Time
}

// Bans keeps keys (client addresses) that failed too often out for a
// while, as Rack::Attack's Allow2Ban does for GitLab's git HTTP Basic
// authentication.
type Bans interface {
	// Fail counts one failure of key. Once maxRetry failures fall within
	// findTime of the first, key is banned for banTime; Fail reports
	// whether key is banned now.
	Fail(ctx context.Context, key string, maxRetry int, findTime, banTime time.Duration) bool
	// Forgive forgets key's failures (a success), but not a ban.
	Forgive(ctx context.Context, key string)
	// Banned reports whether key is banned, and until when.
	Banned(ctx context.Context, key string) (until time.Time, banned bool)
}
