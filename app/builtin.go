package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/app/runner"
	"github.com/hearth-forge/hearth/core/config"
)

// RunnerConfigFile is where the built-in runner keeps its configuration
// (its runner token) under the data directory, so that a restarted
// server reuses the runner it registered.
const RunnerConfigFile = "runner.yml"

// BuiltinRunner is what `hearth serve` adds when runner.builtin is on (it
// is empty otherwise): a shell runner in this process that registers once
// as an instance runner and then runs jobs until the app stops. It speaks
// only the public runner protocol over real HTTP to this server's listen
// address, like any other runner; nothing of the server's internals.
//
// It comes after Serve in New: start hooks run in order, so the server
// listens before the runner registers, and stop hooks run in reverse, so
// the runner finishes (or cancels) its jobs and reports them before the
// server shuts down. When ci.registration_token is empty a random one is
// generated for this run (it registers the runner the first time; later
// starts reuse <data_dir>/runner.yml and need none). Handler never adds
// it: without a listener there is nothing to talk to.
func BuiltinRunner(cfg config.Config) fx.Option {
	if !cfg.Runner.Builtin {
		return fx.Options()
	}
	return fx.Options(
		fx.Decorate(withRegistrationToken),
		fx.Invoke(startBuiltinRunner),
		// The app's stop waits for the runner's jobs, then the server.
		fx.StopTimeout(max(cfg.Shutdown, time.Second)+cfg.Runner.ShutdownTimeout),
	)
}

// withRegistrationToken fills an empty ci.registration_token with a random
// one, so the built-in runner can register as an instance runner; the
// runners module reads the same decorated configuration.
func withRegistrationToken(cfg config.Config) (config.Config, error) {
	if cfg.CI.RegistrationToken != "" {
		return cfg, nil
	}
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		return cfg, fmt.Errorf("generate a registration token: %w", err)
	}
	cfg.CI.RegistrationToken = hex.EncodeToString(b)
	return cfg, nil
}

func startBuiltinRunner(lc fx.Lifecycle, cfg config.Config, log *zap.Logger) {
	log = log.Named("builtin-runner")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				runBuiltin(ctx, cfg, log)
			}()
			return nil
		},
		OnStop: func(stop context.Context) error {
			// Run stops taking jobs on cancel and waits for running ones
			// up to its shutdown timeout.
			cancel()
			select {
			case <-done:
				return nil
			case <-stop.Done():
				return fmt.Errorf("built-in runner: %w", stop.Err())
			}
		},
	})
}

// runBuiltin registers (or reuses) the runner, retrying until the server
// answers, and runs it until ctx ends.
func runBuiltin(ctx context.Context, cfg config.Config, log *zap.Logger) {
	url := serverURL(cfg)
	path := filepath.Join(cfg.DataDir, RunnerConfigFile)
	var rc runner.Config
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 30*time.Second) {
		var err error
		if rc, err = builtinConfig(ctx, cfg, url, path); err == nil {
			break
		}
		log.Warn("built-in runner: cannot register yet", zap.String("url", url), zap.Error(err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
	log.Info("built-in runner started", zap.String("url", url), zap.Int("concurrent", rc.Concurrent), zap.String("builds_dir", rc.BuildsDir))
	// gitlab-runner's poll interval (3 s): each poll is a line in the
	// access log.
	r := &runner.Runner{Config: rc, Log: log}
	if err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		log.Error("built-in runner stopped", zap.Error(err))
	}
}

// builtinConfig loads <data_dir>/runner.yml and checks its token with the
// server, registering a new instance runner (and saving the file) when
// there is none or the server no longer knows it. The server's own
// settings (URL, concurrency, builds directory, shutdown timeout) win over
// the file's.
func builtinConfig(ctx context.Context, cfg config.Config, url, path string) (runner.Config, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rc, err := runner.LoadConfig(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return rc, fmt.Errorf("read %s: %w", path, err)
	}
	if rc.SystemID == "" {
		rc.SystemID = runner.NewSystemID()
	}
	rc.URL = url
	rc.Concurrent = cfg.Runner.Concurrent
	rc.BuildsDir = cfg.Runner.BuildsDir
	if rc.BuildsDir == "" {
		rc.BuildsDir = filepath.Join(cfg.DataDir, "builds")
	}
	if rc.CacheDir == "" {
		rc.CacheDir = filepath.Join(cfg.DataDir, "cache")
	}
	rc.ShutdownTimeout = cfg.Runner.ShutdownTimeout
	client := &runner.Client{URL: url, SystemID: rc.SystemID}
	if rc.Token != "" {
		_, err := client.Verify(ctx, rc.Token)
		if err == nil {
			return rc, nil
		}
		if !errors.Is(err, runner.ErrForbidden) {
			return rc, fmt.Errorf("verify: %w", err)
		}
		// The runner was deleted on the server: register a new one.
	}
	rc.Description = "hearth built-in runner"
	rc.RunUntagged = true
	if rc.ID, rc.Token, err = client.Register(ctx, cfg.CI.RegistrationToken, runner.RegisterOptions{
		Description: rc.Description, RunUntagged: true,
	}); err != nil {
		return rc, fmt.Errorf("register: %w", err)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return rc, fmt.Errorf("data directory: %w", err)
	}
	if err := rc.Save(path); err != nil {
		return rc, fmt.Errorf("save %s: %w", path, err)
	}
	return rc, nil
}

// serverURL is where the built-in runner reaches the server: its listen
// address (loopback when it listens on every interface), which needs no
// proxy or TLS in front; the external URL when the address has no port.
func serverURL(cfg config.Config) string {
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil || port == "" || port == "0" {
		return cfg.BaseURL()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
