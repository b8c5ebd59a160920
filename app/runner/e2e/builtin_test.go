package e2e_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/secrets"
	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/app/runner"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/modules/users"
)

// TestConfigFromEnvironment: HEARTH_RUNNER__* set the runner section, and
// the shipped configs/hearth.yaml says what config.Default says.
func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv("HEARTH_RUNNER__BUILTIN", "true")
	t.Setenv("HEARTH_RUNNER__CONCURRENT", "3")
	t.Setenv("HEARTH_RUNNER__BUILDS_DIR", "/srv/builds")
	t.Setenv("HEARTH_RUNNER__SHUTDOWN_TIMEOUT", "5s")
	cfg, err := app.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	want := config.Runner{Builtin: true, Concurrent: 3, BuildsDir: "/srv/builds", ShutdownTimeout: 5 * time.Second}
	if cfg.Runner != want {
		t.Errorf("runner from the environment %+v, want %+v", cfg.Runner, want)
	}
	t.Setenv("HEARTH_RUNNER__CONCURRENT", "0")
	if _, err := app.LoadConfig(""); err == nil {
		t.Error("runner.concurrent 0 was accepted")
	}

	for _, k := range []string{"HEARTH_RUNNER__BUILTIN", "HEARTH_RUNNER__CONCURRENT", "HEARTH_RUNNER__BUILDS_DIR", "HEARTH_RUNNER__SHUTDOWN_TIMEOUT"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	cfg, err = app.LoadConfig(filepath.Join("..", "..", "..", "configs", "hearth.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Runner != config.Default().Runner {
		t.Errorf("configs/hearth.yaml runner %+v, config.Default %+v", cfg.Runner, config.Default().Runner)
	}
}

// serve starts the whole server as `hearth serve` does (app.New: a real
// listener, the built-in runner when on) and returns it as an
// apptest.Server for the helpers, stopped when the test ends or by the
// returned function.
func serve(t *testing.T, cfg config.Config) (*apptest.Server, func()) {
	t.Helper()
	var svc *users.Service
	cfg.SSH.Listen = "" // not what these tests are about
	a := app.New(cfg,
		fx.Decorate(func() *zap.Logger { return zap.NewNop() }),
		fx.Decorate(func() ports.PasswordHasher { return secrets.NewFastArgon2Hasher() }),
		app.Bootstrap(nil),
		fx.Populate(&svc),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	var once bool
	stop := func() {
		if once {
			return
		}
		once = true
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	}
	t.Cleanup(stop)
	root, err := svc.UserByLogin(ctx, "root")
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := svc.CreatePersonalToken(ctx, nil, root.ID, "e2e", []string{"api"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &apptest.Server{URL: cfg.BaseURL(), RootToken: tok, Config: cfg}, stop
}

// oneStageYML is two jobs of one stage: the built-in runner polls every
// 3 s, as gitlab-runner does, so each stage may wait that long.
const oneStageYML = `
first:
  script: ['echo first']
second:
  script: ['echo second']
`

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestBuiltinRunner: `hearth serve` with runner.builtin on and no
// registration token configured registers one instance runner over HTTP,
// keeps its token in <data_dir>/runner.yml (0600), runs a pushed
// pipeline, and after a restart reuses the same runner.
func TestBuiltinRunner(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Listen = freeAddr(t)
	cfg.ExternalURL = "http://" + cfg.Listen
	cfg.Root.Password = apptest.RootPassword
	cfg.Runner.Builtin = true
	cfg.Runner.ShutdownTimeout = 5 * time.Second
	srv, stop := serve(t, cfg)

	p := newProject(t, srv, "builtin")
	sha := p.push(map[string]string{".gitlab-ci.yml": oneStageYML})
	p.waitJobs(p.pipelineOf("main", sha), 20*time.Second, map[string]string{"first": "success", "second": "success"}, "success")

	path := filepath.Join(cfg.DataDir, app.RunnerConfigFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("runner config: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, fi.Mode().Perm())
	}
	rc, err := runner.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		ID          int64
		Description string
		IsShared    bool `json:"is_shared"`
	}
	srv.JSON(t, "GET", "/runners/all", srv.RootToken, nil, 200, &list)
	if len(list) != 1 || !list[0].IsShared || list[0].ID != rc.ID {
		t.Fatalf("runners %+v, want one instance runner with id %d", list, rc.ID)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "builds")); err != nil {
		t.Errorf("builds directory: %v", err)
	}
	stop()

	// A restart reuses the runner of runner.yml.
	srv, stop2 := serve(t, cfg)
	p.srv = srv
	sha = p.push(map[string]string{".gitlab-ci.yml": oneStageYML}, "again")
	p.waitJobs(p.pipelineOf("again", sha), 20*time.Second, map[string]string{"first": "success", "second": "success"}, "success")
	srv.JSON(t, "GET", "/runners/all", srv.RootToken, nil, 200, &list)
	if len(list) != 1 || list[0].ID != rc.ID {
		t.Fatalf("after a restart: runners %+v, want the one with id %d", list, rc.ID)
	}
	again, err := runner.LoadConfig(path)
	if err != nil || again.Token != rc.Token {
		t.Errorf("runner.yml changed on restart (%v)", err)
	}

	// An administrator deleted the runner: the next start registers a new
	// one and saves its token.
	srv.JSON(t, "DELETE", fmt.Sprintf("/runners/%d", rc.ID), srv.RootToken, nil, 204, nil)
	stop2()
	srv, _ = serve(t, cfg)
	p.srv = srv
	sha = p.push(map[string]string{".gitlab-ci.yml": oneStageYML}, "third")
	p.waitJobs(p.pipelineOf("third", sha), 20*time.Second, map[string]string{"first": "success", "second": "success"}, "success")
	again, err = runner.LoadConfig(path)
	if err != nil || again.Token == rc.Token || again.ID == rc.ID {
		t.Errorf("runner.yml after the runner was deleted: id %d (was %d), token changed %v (%v)", again.ID, rc.ID, again.Token != rc.Token, err)
	}
	srv.JSON(t, "GET", "/runners/all", srv.RootToken, nil, 200, &list)
	if len(list) != 1 || list[0].ID != again.ID || !list[0].IsShared {
		t.Errorf("runners %+v, want the new instance runner %d", list, again.ID)
	}
}

// TestBuiltinRunnerStopWaitsForJobs: stopping the server lets the
// built-in runner finish its running job and report it before the HTTP
// server shuts down (stop hooks run in reverse: the runner's first).
func TestBuiltinRunnerStopWaitsForJobs(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Listen = freeAddr(t)
	cfg.ExternalURL = "http://" + cfg.Listen
	cfg.Root.Password = apptest.RootPassword
	cfg.CI.RegistrationToken = registrationToken
	cfg.Runner.Builtin = true
	cfg.Runner.Concurrent = 1
	cfg.Runner.ShutdownTimeout = 20 * time.Second
	srv, stop := serve(t, cfg)
	p := newProject(t, srv, "stopping")
	sha := p.push(map[string]string{".gitlab-ci.yml": "slow:\n  script: ['echo begun', 'sleep 2', 'echo finished']\n"})
	plID := p.pipelineOf("main", sha)
	jobs := p.waitJobs(plID, 15*time.Second, map[string]string{"slow": "running"}, "running")
	p.waitTrace(jobs["slow"].ID, "begun", 10*time.Second)
	stop()
	stopped := time.Now()

	srv, _ = serve(t, cfg)
	p.srv = srv
	jobs = p.waitJobs(plID, time.Second, map[string]string{"slow": "success"}, "success")
	var j struct {
		FinishedAt time.Time `json:"finished_at"`
	}
	srv.JSON(t, "GET", p.api("/jobs/%d", jobs["slow"].ID), srv.RootToken, nil, 200, &j)
	if j.FinishedAt.After(stopped) {
		t.Errorf("the job finished at %v, after the server stopped at %v", j.FinishedAt, stopped)
	}
	if tr := p.trace(jobs["slow"].ID); !strings.Contains(tr, "finished") {
		t.Errorf("trace:\n%s", tr)
	}
}
