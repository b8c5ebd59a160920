// Package users is the users module: accounts, GET /user, sign-in
// (POST /session), SSH keys, secondary emails, personal and impersonation
// tokens, block state and activity, plus the core Authenticator that turns
// tokens and passwords into callers.
package users

import (
	"errors"
	"sync"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Defaults of new accounts, as GitLab 9.x's application settings have them
// (without the settings module; with it, its default_projects_limit).
const (
	DefaultProjectsLimit = 100000
	defaultColorScheme   = 1
	// sessionTokensKept is how many POST /session tokens a user keeps.
	sessionTokensKept = 10
	// activityMonths is how far back GET /user/activities looks by default.
	activityMonths = 6
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Users    ports.UserStore
	Keys     ports.KeyStore
	Emails   ports.EmailStore
	Tokens   ports.TokenStore
	Tx       ports.TxManager
	Bus      ports.EventBus
	Clock    ports.Clock
	Hasher   ports.PasswordHasher
	TokenGen ports.TokenGenerator
	// Jobs resolves CI job tokens (optional: without it they are refused).
	Jobs ports.JobStore `optional:"true"`
	Auth config.Auth
	Log  *zap.Logger
	// Settings are the application settings (default projects limit,
	// password sign-in); without them GitLab's defaults apply.
	Settings ports.Settings `optional:"true"`
}

// Service holds the users module's use cases. It never sees HTTP types.
type Service struct {
	p   Params
	log *zap.Logger

	dummyOnce sync.Once
	dummyHash string
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	if p.Auth.MaxFailedAttempts <= 0 {
		p.Auth.MaxFailedAttempts = 10
	}
	if p.Auth.LockDuration <= 0 {
		p.Auth.LockDuration = 10 * time.Minute
	}
	if p.Auth.TouchInterval <= 0 {
		p.Auth.TouchInterval = time.Minute
	}
	return &Service{p: p, log: log}
}

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// requireAdmin lets the system (nil actor) and administrators through.
func requireAdmin(actor *domain.Caller) error {
	if actor == nil {
		return nil
	}
	if actor.User == nil {
		return core.Unauthenticated()
	}
	if !actor.IsAdmin() {
		return core.Forbidden("")
	}
	return nil
}

// userWriteErr maps store conflicts on users to GitLab's answers: 409 with a
// sentence for a taken email or username, a field map for a taken identity.
func userWriteErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, core.ErrConflict) {
		f := core.Fields(err)
		switch {
		case f["email"] != nil:
			return core.Conflict("Email has already been taken")
		case f["username"] != nil:
			return core.Conflict("Username has already been taken")
		case f["extern_uid"] != nil:
			return core.Validation(map[string][]string{"extern_uid": {"has already been taken"}})
		}
	}
	return core.StoreError(err, "User", "")
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
