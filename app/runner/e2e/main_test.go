// Package e2e_test holds the acceptance tests of the built-in runner
// (issue 13): the real runner (app/runner) against real Hearth servers
// over HTTP, on SQLite and on Postgres. It is its own package so that the
// app package's tests stay within their time budget.
package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/app/runner"
)

// runnerConfigEnv switches the test binary into a runner process: when it
// names a runner configuration file, TestMain runs that runner until it
// is killed (or SIGTERM) instead of the tests. The kill -9 test re-execs
// itself this way to have a runner it can kill.
const runnerConfigEnv = "HEARTH_E2E_RUNNER_CONFIG"

func TestMain(m *testing.M) {
	if path := os.Getenv(runnerConfigEnv); path != "" {
		os.Exit(runnerProcess(path))
	}
	os.Exit(m.Run())
}

// runnerProcess runs the runner of the configuration file at path.
func runnerProcess(path string) int {
	rc, err := runner.LoadConfig(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "runner process:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log, _ := zap.NewDevelopment()
	if err := testRunner(rc, log).Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "runner process:", err)
		return 1
	}
	return 0
}

// runnerConfig registers an instance runner at serverURL and returns its
// configuration, with builds and caches in a fresh temporary directory.
func runnerConfig(t testing.TB, serverURL string, concurrent int) runner.Config {
	t.Helper()
	dir := t.TempDir()
	return runner.Config{
		URL:             serverURL,
		Token:           registerRunner(t, serverURL, "e2e runner"),
		RunUntagged:     true,
		Concurrent:      concurrent,
		BuildsDir:       filepath.Join(dir, "builds"),
		CacheDir:        filepath.Join(dir, "cache"),
		ShutdownTimeout: 5 * time.Second,
	}
}

// startRunner registers a runner and runs it in this process until the
// test ends; it returns the runner's configuration.
func startRunner(t testing.TB, serverURL string, concurrent int) runner.Config {
	t.Helper()
	rc := runnerConfig(t, serverURL, concurrent)
	runIn(t, rc)
	return rc
}

// runIn runs the runner of rc in this process until the test ends.
func runIn(t testing.TB, rc runner.Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- testRunner(rc, nil).Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("runner: %v", err)
			}
		case <-time.After(rc.ShutdownTimeout + 10*time.Second):
			t.Errorf("the runner did not stop within %v of its shutdown timeout", 10*time.Second)
		}
	})
}

// testRunner is the runner of rc polling every 100 ms when idle (not 3 s),
// so that stages follow each other quickly.
func testRunner(rc runner.Config, log *zap.Logger) *runner.Runner {
	return &runner.Runner{Config: rc, Log: log, PollInterval: 100 * time.Millisecond, TraceInterval: 200 * time.Millisecond}
}
