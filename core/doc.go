// Package core is the part of Hearth every layer shares, and the place to
// start reading. It holds the closed set of error kinds (ErrNotFound,
// ErrConflict, ErrInvalid, ErrUnauthenticated, ErrForbidden, ErrStale, ...)
// that every port returns and that core/httpx renders in GitLab's shapes;
// its sub-packages hold the rest:
//
//	core/domain    entities and value rules, one file per aggregate; no tags
//	core/ports     the interfaces at real seams: stores, git, bus, clock ...
//	core/access    the one permission layer: Policy.Resolve -> Target.Can
//	core/httpx     GitLab v4 HTTP conventions: routes, decoding, errors,
//	               pagination, authentication
//	core/apijson   GitLab JSON entities several modules render (projects,
//	               issues, merge requests, todos), with batch presenters
//	core/issuable  rules issues and merge requests share
//	core/retry     pacing of work redone after a lost race
//	core/config    the typed configuration
//
// Core imports only the standard library, chi (in httpx), zap and fx. It
// never imports bun, go-git, os/exec, a module, an adapter or the app; the
// architecture test in app/arch_test.go fails the build if it does.
//
// # How a request flows
//
// The router (httpx.NewRouter) authenticates the caller and hands the
// request to a module's handler. The handler decodes the request into
// typed input and calls one use case of the module's service. The service
// resolves the project and asks for abilities (core/access), reads and
// writes through ports inside a transaction (ports.TxManager), publishes
// domain events on the bus, and returns domain values or core errors. The
// handler renders the result (core/apijson, or the module's api.go) or
// returns the error, which httpx turns into GitLab's status and body.
//
// Writes that touch git and the database follow one order: git objects,
// then the ref by compare-and-swap (a moved ref is ErrStale, never a silent
// overwrite), then the database; reconcilers repair a crash in between.
//
// To add a feature, read `go doc ./modules`; to add an adapter,
// `go doc ./adapters` and `go doc ./contracttests`.
package core
