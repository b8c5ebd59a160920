package deploykeys

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/core/sshkey"
)

// AuthParams are the key sign-in's dependencies, provided by the app.
type AuthParams struct {
	fx.In
	Log        *zap.Logger
	Keys       ports.KeyStore
	Users      ports.UserStore
	DeployKeys ports.DeployKeyStore
}

// Authenticator signs SSH clients in by public key (ports.KeyAuthenticator):
// a user's key signs its user in, a deploy key itself with the projects it
// is enabled for.
type Authenticator struct {
	p   AuthParams
	log *zap.Logger
}

// NewAuthenticator builds the key sign-in.
func NewAuthenticator(p AuthParams) *Authenticator { return &Authenticator{p: p, log: p.Log} }

// PublicKey finds the key by GitLab's MD5 fingerprint of key (SSH wire
// format), among users' keys first and then deploy keys; the stored key
// must be key byte for byte, since a fingerprint alone could collide. An
// unknown key, a blocked or missing user, a deploy key enabled nowhere,
// or a stored key that is not key, is core.ErrUnauthenticated.
func (a *Authenticator) PublicKey(ctx context.Context, key []byte) (*domain.Caller, error) {
	fp := sshkey.Fingerprint(key)
	uk, err := a.p.Keys.ByFingerprint(ctx, fp)
	switch {
	case err == nil:
		return a.user(ctx, uk, key)
	case !errors.Is(err, core.ErrNotFound):
		return nil, fmt.Errorf("find key %s: %w", fp, err)
	}
	dk, err := a.p.DeployKeys.ByFingerprint(ctx, fp)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return nil, core.Unauthenticated()
	case err != nil:
		return nil, fmt.Errorf("find deploy key %s: %w", fp, err)
	}
	return a.deployKey(ctx, dk, key)
}

func (a *Authenticator) user(ctx context.Context, k *domain.SSHKey, key []byte) (*domain.Caller, error) {
	if !sameKey(k.Key, key) {
		a.log.Warn("ssh key fingerprint matches a different stored key", zap.Int64("key_id", k.ID))
		return nil, core.Unauthenticated()
	}
	u, err := a.p.Users.Get(ctx, k.UserID)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return nil, core.Unauthenticated()
	case err != nil:
		return nil, fmt.Errorf("user of key %d: %w", k.ID, err)
	case u.Blocked():
		return nil, core.Unauthenticated()
	}
	return &domain.Caller{User: u}, nil
}

func (a *Authenticator) deployKey(ctx context.Context, k *domain.DeployKey, key []byte) (*domain.Caller, error) {
	if !sameKey(k.Key, key) {
		a.log.Warn("ssh key fingerprint matches a different stored deploy key", zap.Int64("deploy_key_id", k.ID))
		return nil, core.Unauthenticated()
	}
	ids, err := a.p.DeployKeys.Projects(ctx, k.ID)
	if err != nil {
		return nil, fmt.Errorf("projects of deploy key %d: %w", k.ID, err)
	}
	if len(ids) == 0 {
		return nil, core.Unauthenticated()
	}
	return &domain.Caller{DeployKey: &domain.DeployKeyAccess{Key: *k, Projects: ids}}, nil
}

// sameKey reports whether the stored key text holds exactly the wire-format
// key.
func sameKey(stored string, key []byte) bool {
	k, err := sshkey.Parse(stored)
	return err == nil && bytes.Equal(k.Blob, key)
}

var _ ports.KeyAuthenticator = (*Authenticator)(nil)
