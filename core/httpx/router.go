package httpx

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/ports"
)

// Options are the router's settings.
type Options struct {
	ExternalURL  string
	MaxBodyBytes int64
	MaxJSONDepth int
	// Throttle limits requests per user and address (with a Limiter).
	Throttle Throttle
}

// RequestObserver is told of every request once its response is done:
// the route's pattern (e.g. /api/v4/projects/{id}/issues, never the raw
// path, so that a metrics label stays bounded; "" when no route matched),
// the method, the status sent and how long the request took. It runs on
// the request's goroutine and must be quick and safe for concurrent use.
type RequestObserver func(pattern, method string, status int, took time.Duration)

// RouterParams are the router's dependencies; modules add Routes to the group.
type RouterParams struct {
	fx.In
	Options Options
	Logger  *zap.Logger
	Auth    ports.Authenticator `optional:"true"`
	// Observer, when provided, is told of every request (metrics).
	Observer RequestObserver `optional:"true"`
	// Limiter counts requests for Options.Throttle.
	Limiter ports.RateLimiter `optional:"true"`
	// Bans keeps the addresses banned for failed git sign-ins.
	Bans   ports.Bans `optional:"true"`
	Routes []Routes   `group:"api_routes"`
}

// Router is the HTTP handler of the whole API.
type Router struct {
	mux    chi.Router
	routes []RouteInfo
}

// NewRouter registers every module's routes, sorted by module name, and fails
// when two routes claim the same method and pattern.
func NewRouter(p RouterParams) (*Router, error) {
	if p.Options.MaxBodyBytes <= 0 {
		p.Options.MaxBodyBytes = 10 << 20
	}
	if p.Options.MaxJSONDepth <= 0 {
		p.Options.MaxJSONDepth = 32
	}
	mux := chi.NewRouter()
	mux.Use(base(p.Logger.Named("http"), p.Options, p.Observer))
	mux.NotFound(func(w http.ResponseWriter, r *http.Request) {
		_ = JSON(w, http.StatusNotFound, map[string]string{"error": "404 Not Found"})
	})
	mux.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		_ = JSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "405 Method Not Allowed"})
	})

	groups := append([]Routes(nil), p.Routes...)
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].Module < groups[j].Module })
	seen := map[string]string{}
	rt := &Router{mux: mux}
	guard := newBanGuard(p.Bans, p.Options.Throttle)
	for _, g := range groups {
		for _, route := range g.Routes {
			pattern := route.Pattern
			if !g.Root {
				pattern = API + pattern
			}
			key := route.Method + " " + pattern
			if owner, dup := seen[key]; dup {
				return nil, fmt.Errorf("route %s claimed by modules %q and %q", key, owner, g.Module)
			}
			seen[key] = g.Module
			rt.routes = append(rt.routes, RouteInfo{Module: g.Module, Method: route.Method, Pattern: pattern})
			maxBody := p.Options.MaxBodyBytes
			if route.MaxBodyBytes > 0 {
				maxBody = route.MaxBodyBytes
			}
			raw := route.RawBody
			h := adapt(route.Handle)
			auth := authenticate(p.Auth)
			if route.SelfAuth {
				auth = func(next http.Handler) http.Handler { return next }
			}
			limit := throttle(p.Limiter, guard, p.Options.Throttle, route.Method, pattern)
			mux.Group(func(r chi.Router) {
				r.Use(routeLimits(maxBody, raw), capBody(maxBody), auth, limit)
				r.Method(route.Method, pattern, h)
			})
		}
	}
	return rt, nil
}

// routeLimits records the route's body cap and raw-body flag in the context.
func routeLimits(maxBody int64, raw bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			l := limitsOf(r)
			l.maxBody = maxBody
			ctx = context.WithValue(ctx, limitsKey, l)
			if raw {
				ctx = context.WithValue(ctx, rawBodyKey{}, true)
			}
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.mux.ServeHTTP(w, r) }

// Routes lists every registered route, for tests that must cover them all.
func (rt *Router) Routes() []RouteInfo { return append([]RouteInfo(nil), rt.routes...) }

// PathParam returns a path parameter unescaped (%2F becomes /).
func PathParam(r *http.Request, name string) (string, error) {
	raw := chi.URLParam(r, name)
	s, err := url.PathUnescape(raw)
	if err != nil {
		return "", core.InvalidParam(name)
	}
	return s, nil
}
