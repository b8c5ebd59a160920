package app

import (
	"context"
	"errors"
	"path/filepath"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/ssh/sshserver"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/ports"
)

// sshDeps are what the SSH server serves with: the deploykeys module's
// key sign-in and the repository module's git shell. Both are optional so
// that an embedder's app without those modules still starts with SSH off.
type sshDeps struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    config.Config
	Log       *zap.Logger
	Auth      ports.KeyAuthenticator `optional:"true"`
	Shell     ports.GitShell         `optional:"true"`
}

// ServeSSH adds the SSH server (git over SSH) when ssh.listen is set: host
// keys under <data_dir>/ssh, listening once the app has started, and a
// graceful stop that lets running pushes finish within the shutdown
// timeout.
func ServeSSH() fx.Option {
	return fx.Options(
		fx.Provide(newSSHServer),
		fx.Invoke(func(*sshserver.Server) {}),
	)
}

// newSSHServer is nil when SSH is off.
func newSSHServer(d sshDeps) (*sshserver.Server, error) {
	c := d.Config.SSH
	if c.Listen == "" {
		return nil, nil
	}
	if d.Auth == nil || d.Shell == nil {
		return nil, errors.New("ssh.listen is set, but the app has no key sign-in (deploykeys module) or git shell (repository module)")
	}
	srv, err := sshserver.New(sshserver.Options{
		Listen:           c.Listen,
		HostKeyDir:       filepath.Join(d.Config.DataDir, "ssh"),
		LoginTimeout:     c.LoginTimeout,
		IdleTimeout:      c.IdleTimeout,
		MaxSessionsPerIP: c.MaxSessionsPerIP,
		Auth:             d.Auth,
		Shell:            d.Shell,
		Log:              d.Log.Named("ssh"),
	})
	if err != nil {
		return nil, err
	}
	d.Lifecycle.Append(fx.Hook{
		OnStart: func(context.Context) error {
			if err := srv.Start(); err != nil {
				return err
			}
			d.Log.Info("ssh listening", zap.String("addr", srv.Addr().String()), zap.String("clone_base", d.Config.SSHCloneBase()))
			return nil
		},
		OnStop: srv.Shutdown,
	})
	return srv, nil
}
