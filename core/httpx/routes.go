// Package httpx holds the GitLab v4 HTTP conventions every module shares:
// route registration, handlers that return errors, error shapes, parameter
// decoding, pagination, authentication, logging and recovery.
package httpx

import (
	"net/http"

	"go.uber.org/fx"
)

// API is the prefix of every GitLab API route.
const API = "/api/v4"

// HandlerFunc is an HTTP handler that returns its failure; the router renders it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Route is one method and pattern. Patterns use chi syntax ({id}) and are
// relative to /api/v4 unless the Routes are Root.
type Route struct {
	Method  string
	Pattern string
	Handle  HandlerFunc
	// MaxBodyBytes overrides the server's body cap for this route (0: default).
	MaxBodyBytes int64
	// RawBody leaves the body unread by parameter decoding and authentication
	// (git smart HTTP streams it).
	RawBody bool
	// SelfAuth leaves authentication to the handler: the router resolves
	// no caller and refuses no credentials (the runner protocol checks
	// runner and job tokens itself and answers 403, not 401).
	SelfAuth bool
}

// Routes is what one module contributes to the router.
type Routes struct {
	Module string
	// Root places the patterns at the server root instead of under /api/v4.
	Root   bool
	Routes []Route
}

// RouteInfo describes a registered route, for tests that walk the router.
type RouteInfo struct {
	Module  string
	Method  string
	Pattern string // full pattern, including /api/v4 where it applies
}

// AsRoutes annotates a constructor returning Routes for the "api_routes" group.
func AsRoutes(f any) any {
	return fx.Annotate(f, fx.ResultTags(`group:"api_routes"`))
}
