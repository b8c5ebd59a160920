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
	// Git clients failing HTTP Basic sign-in GitAuthMaxRetry times within
	// GitAuthFindTime from one address get it banned for GitAuthBanTime
	// (CredentialsRefused), unless it is in GitAuthTrusted.
	GitAuthMaxRetry int
	GitAuthFindTime time.Duration
	GitAuthBanTime  time.Duration
	GitAuthTrusted  []string
}

// banGuard is the Allow2Ban of GitLab's rack_attack.git_basic_auth: the
// router refuses every request of a banned address, and git handlers
// report credentials they refused or accepted.
type banGuard struct {
	bans    ports.Bans
	t       Throttle
	trusted map[string]bool
}

func newBanGuard(bans ports.Bans, t Throttle) *banGuard {
	if bans == nil || !t.Enabled {
		return nil
	}
	g := &banGuard{bans: bans, t: t, trusted: map[string]bool{}}
	for _, a := range t.GitAuthTrusted {
		g.trusted[a] = true
	}
	return g
}

// refuse answers a banned address as Rack::Attack's blocklist does (403
// "Forbidden") and reports whether it did.
func (g *banGuard) refuse(w http.ResponseWriter, r *http.Request) bool {
	if g == nil {
		return false
	}
	addr := clientAddr(r)
	if g.trusted[addr] {
		return false
	}
	if _, banned := g.bans.Banned(r.Context(), "git-auth:"+addr); !banned {
		return false
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	_, _ = fmt.Fprint(w, "Forbidden\n")
	return true
}

// CredentialsRefused counts a git client's refused HTTP Basic credentials
// against its address (a ban once rate_limit allows no more); nothing when
// rate limits are off.
func CredentialsRefused(r *http.Request) {
	if g := guardOf(r); g != nil && !g.trusted[clientAddr(r)] {
		g.bans.Fail(r.Context(), "git-auth:"+clientAddr(r), g.t.GitAuthMaxRetry, g.t.GitAuthFindTime, g.t.GitAuthBanTime)
	}
}

// CredentialsAccepted forgets the address's earlier failures, as GitLab
// resets its counter on a successful sign-in.
func CredentialsAccepted(r *http.Request) {
	if g := guardOf(r); g != nil {
		g.bans.Forgive(r.Context(), "git-auth:"+clientAddr(r))
	}
}

func guardOf(r *http.Request) *banGuard {
	if s, ok := r.Context().Value(callerKey).(*callerSlot); ok {
		return s.bans
	}
	return nil
}

// signInRoutes are the sign-in routes, throttled per address on top of
// the general limits.
var signInRoutes = map[string]bool{http.MethodPost + " /api/v4/session": true}

// throttle is the middleware of one route, after authentication (the
// caller decides the key). Throttled requests get GitLab's answer: 429,
// "Retry later", Retry-After and the RateLimit-* headers.
func throttle(limiter ports.RateLimiter, guard *banGuard, t Throttle, method, pattern string) func(http.Handler) http.Handler {
	if limiter == nil || !t.Enabled {
		return func(next http.Handler) http.Handler { return next }
	}
	signIn := signInRoutes[method+" "+pattern]
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if guard.refuse(w, r) {
				return
			}
			if s, ok := r.Context().Value(callerKey).(*callerSlot); ok {
				s.bans = guard
			}
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
