package httpx

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/hearth-forge/hearth/core/ports"
)

// Throttle is GitLab's Rack::Attack throttling (rate_limit in the
// configuration): each signed-in user, and each client address without a
// user, may send so many requests per period; sign-ins (SignInPatterns)
// have a stricter allowance per address. Zero Enabled throttles nothing.
type Throttle struct {
	Enabled                  bool
	AuthenticatedPerPeriod   int
	UnauthenticatedPerPeriod int
	Period                   time.Duration
	SignInPerPeriod          int
	SignInPeriod             time.Duration
}

// signInRoutes are the sign-in routes, throttled per address on top of
// the general limits.
var signInRoutes = map[string]bool{http.MethodPost + " /api/v4/session": true}

// throttle is the middleware of one route, after authentication (the
// caller decides the key). Throttled requests get GitLab's answer: 429,
// "Retry later", Retry-After and the RateLimit-* headers.
func throttle(limiter ports.RateLimiter, t Throttle, method, pattern string) func(http.Handler) http.Handler {
	if limiter == nil || !t.Enabled {
		return func(next http.Handler) http.Handler { return next }
	}
	signIn := signInRoutes[method+" "+pattern]
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			addr := clientAddr(r)
			if signIn {
				if d := limiter.Take(ctx, "sign-in:"+addr, t.SignInPerPeriod, t.SignInPeriod); !d.Allowed {
					throttled(w, d)
					return
				}
			}
			key, limit := "ip:"+addr, t.UnauthenticatedPerPeriod
			if id := CallerOf(r).UserID(); id != 0 {
				key, limit = "user:"+strconv.FormatInt(id, 10), t.AuthenticatedPerPeriod
			}
			if d := limiter.Take(ctx, key, limit, t.Period); !d.Allowed {
				throttled(w, d)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// throttled writes GitLab's throttled response (Rack::Attack's
// throttled_response with Gitlab::RackAttack's headers).
func throttled(w http.ResponseWriter, d ports.RateDecision) {
	wait := max(int(time.Until(d.Reset).Round(time.Second)/time.Second), 1)
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Retry-After", strconv.Itoa(wait))
	h.Set("RateLimit-Name", "throttle")
	h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("RateLimit-Observed", strconv.Itoa(d.Observed))
	h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
	h.Set("RateLimit-ResetTime", d.Reset.UTC().Format(http.TimeFormat))
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = fmt.Fprint(w, "Retry later\n")
}

// clientAddr is the TCP peer's address (never a forwarded header, which
// the client chooses).
func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
