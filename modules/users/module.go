package users

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Module provides *Service, the ports.Authenticator the HTTP layer uses, and
// the users routes. Its dependencies (stores, TxManager, EventBus, Clock,
// PasswordHasher, TokenGenerator, config.Auth, *zap.Logger) come from the app.
var Module = fx.Module("users",
	fx.Provide(
		NewService,
		fx.Annotate(NewAuthenticator, fx.As(new(ports.Authenticator))),
		httpx.AsRoutes(routes),
	),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("users") }),
)
