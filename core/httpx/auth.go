package httpx

import (
	"errors"
	"net/http"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

type callerSlot struct {
	caller *domain.Caller
	bans   *banGuard // the route's git sign-in ban guard, nil when off
}

// CallerOf is the authenticated caller, nil when anonymous.
func CallerOf(r *http.Request) *domain.Caller {
	if s, ok := r.Context().Value(callerKey).(*callerSlot); ok {
		return s.caller
	}
	return nil
}

// SignedIn records a caller that a handler authenticated itself (git's
// HTTP Basic) where the router found none, so that later CallerOf calls
// and the access log see it.
func SignedIn(r *http.Request, c *domain.Caller) {
	if s, ok := r.Context().Value(callerKey).(*callerSlot); ok && s.caller == nil {
		s.caller = c
	}
}

// RequireUser returns the caller or a 401.
func RequireUser(r *http.Request) (*domain.Caller, error) {
	c := CallerOf(r)
	if c == nil || c.User == nil {
		return nil, core.Unauthenticated()
	}
	return c, nil
}

// RequireAdmin returns the caller, 401 when anonymous, 403 when not an administrator.
func RequireAdmin(r *http.Request) (*domain.Caller, error) {
	c, err := RequireUser(r)
	if err != nil {
		return nil, err
	}
	if !c.IsAdmin() {
		return nil, core.Forbidden("")
	}
	return c, nil
}

// tokenFrom finds a presented token: PRIVATE-TOKEN header, private_token
// parameter, Authorization: Bearer, access_token parameter, JOB-TOKEN.
func tokenFrom(r *http.Request, p *Params) string {
	if t := r.Header.Get("Private-Token"); t != "" {
		return t
	}
	if h := r.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	if t := r.Header.Get("Job-Token"); t != "" {
		return t
	}
	if p != nil {
		for _, name := range []string{"private_token", "access_token", "job_token"} {
			if t, ok := p.Get(name); ok && t != "" {
				return t
			}
		}
	}
	return ""
}

// authenticate resolves the caller once per request. Invalid credentials
// answer 401 even on public routes: a client that sent a token expects it to count.
func authenticate(auth ports.Authenticator) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var p *Params
			if !rawBody(r) {
				var err error
				if p, err = ParamsOf(r); err != nil {
					WriteError(w, r, err)
					return
				}
			} else {
				p = &Params{values: map[string][]string{}}
				for k, v := range r.URL.Query() {
					p.values[strings.TrimSuffix(k, "[]")] = v
				}
			}
			secret := tokenFrom(r, p)
			sudo := r.Header.Get("Sudo")
			if s, ok := p.Get("sudo"); ok && sudo == "" {
				sudo = s
			}
			if secret == "" && sudo == "" {
				next.ServeHTTP(w, r)
				return
			}
			if auth == nil || secret == "" {
				WriteError(w, r, core.Unauthenticated())
				return
			}
			caller, err := auth.Token(r.Context(), secret)
			if err != nil {
				WriteError(w, r, err)
				return
			}
			if err := checkScope(caller, r); err != nil {
				WriteError(w, r, err)
				return
			}
			if sudo != "" {
				if caller, err = auth.Sudo(r.Context(), caller, sudo); err != nil {
					if errors.Is(err, core.ErrNotFound) {
						err = core.NotFound("User")
					}
					WriteError(w, r, err)
					return
				}
			}
			if s, ok := r.Context().Value(callerKey).(*callerSlot); ok {
				s.caller = caller
			}
			next.ServeHTTP(w, r)
		})
	}
}

// checkScope limits read_user tokens to reading user endpoints, and CI
// job tokens to reads: a job acts for its user but never writes through
// the API (the runner protocol authenticates its own routes).
func checkScope(c *domain.Caller, r *http.Request) error {
	if c.Job != nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
		return core.Forbidden("")
	}
	if c.Token == nil || c.Token.HasScope(domain.ScopeAPI) {
		return nil
	}
	if c.Token.HasScope(domain.ScopeReadUser) && r.Method == http.MethodGet {
		p := strings.TrimPrefix(r.URL.Path, API)
		if p == "/user" || strings.HasPrefix(p, "/user/") || p == "/users" || strings.HasPrefix(p, "/users/") || p == "/version" {
			return nil
		}
	}
	return core.Forbidden("insufficient_scope")
}

type rawBodyKey struct{}

func rawBody(r *http.Request) bool {
	v, _ := r.Context().Value(rawBodyKey{}).(bool)
	return v
}
