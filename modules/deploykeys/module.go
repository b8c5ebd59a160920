// Package deploykeys is the deploy keys module: GitLab 9.x's deploy keys
// API (GET /deploy_keys for administrators; list, get, add, update,
// disable and enable under /projects/:id/deploy_keys for masters and
// owners), and the SSH public key sign-in (ports.KeyAuthenticator) that
// finds a user's key or a deploy key by its fingerprint. A deploy key's
// fingerprint is unique among every key, users' included (the store
// enforces it); a key disabled on its last project is deleted.
package deploykeys

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Module provides *Service, the routes and the SSH key sign-in as
// ports.KeyAuthenticator, and disables a destroyed project's keys. Its
// ports (the deploy key, key, user and project stores, the policy, the
// bus, Clock) come from the app.
var Module = fx.Module("deploykeys",
	fx.Provide(
		NewService,
		httpx.AsRoutes(routes),
		fx.Annotate(NewAuthenticator, fx.As(new(ports.KeyAuthenticator))),
	),
	fx.Invoke(func(s *Service) { s.subscribe() }), // destroyed projects (destroyed.go)
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("deploykeys") }),
)
