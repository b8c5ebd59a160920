package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// Clock tells the time; tests substitute it.
type Clock interface{ Now() time.Time }

// PasswordHasher hashes passwords with a slow, salted function.
type PasswordHasher interface {
	Hash(password string) (string, error)
	// Verify reports whether password matches hash; a malformed hash is an error.
	Verify(hash, password string) (bool, error)
}

// TokenGenerator makes token secrets with at least 160 random bits.
type TokenGenerator interface {
	// NewToken returns a fresh secret starting with prefix.
	NewToken(prefix string) (string, error)
}

// Authenticator resolves credentials to a caller. It is implemented by the
// users module and used by the HTTP layer.
type Authenticator interface {
	// Token resolves a presented token. Unknown, revoked or expired tokens and
	// blocked users are core.ErrUnauthenticated.
	Token(ctx context.Context, secret string) (*domain.Caller, error)
	// Password signs in with a username or email; bad credentials, locked and
	// blocked accounts are core.ErrUnauthenticated.
	Password(ctx context.Context, login, password string) (*domain.Caller, error)
	// Sudo returns the caller acting as the user named by ref (ID or
	// username): core.ErrForbidden when caller may not sudo, core.ErrNotFound
	// for an unknown user.
	Sudo(ctx context.Context, caller *domain.Caller, ref string) (*domain.Caller, error)
}

// Pinger reports whether the database answers (readiness).
type Pinger interface {
	Ping(ctx context.Context) error
}
