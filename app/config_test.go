package app_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/core/config"
)

// TestConfigGitLimits: the git section's bounds come from HEARTH_GIT__*
// variables, bad ones are refused, and the shipped configs/hearth.yaml says
// what config.Default says.
func TestConfigGitLimits(t *testing.T) {
	t.Setenv("HEARTH_GIT__MAX_PROCESSES", "6")
	t.Setenv("HEARTH_GIT__MAX_CAT_FILES", "12")
	t.Setenv("HEARTH_GIT__QUEUE_TIMEOUT", "500ms")
	cfg, err := app.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	want := config.Git{Backend: "gitcli", MaxProcesses: 6, MaxCatFiles: 12, QueueTimeout: 500 * time.Millisecond}
	if cfg.Git != want {
		t.Errorf("git from the environment %+v, want %+v", cfg.Git, want)
	}
	t.Setenv("HEARTH_GIT__QUEUE_TIMEOUT", "0s")
	if _, err := app.LoadConfig(""); err == nil {
		t.Error("git.queue_timeout 0 was accepted")
	}
}

func TestConfigFileGitDefaults(t *testing.T) {
	cfg, err := app.LoadConfig(filepath.Join("..", "configs", "hearth.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Git != config.Default().Git {
		t.Errorf("configs/hearth.yaml git %+v, config.Default %+v", cfg.Git, config.Default().Git)
	}
	if cfg.SSH != config.Default().SSH {
		t.Errorf("configs/hearth.yaml ssh %+v, config.Default %+v", cfg.SSH, config.Default().SSH)
	}
}

// TestConfigMetricsFromEnvironment: HEARTH_METRICS__ALLOWED_CIDRS is a
// comma-separated list, HEARTH_METRICS__PPROF a boolean, and a bad network
// stops the load.
func TestConfigMetricsFromEnvironment(t *testing.T) {
	t.Setenv("HEARTH_METRICS__ALLOWED_CIDRS", "10.0.0.0/8,192.168.0.0/16")
	t.Setenv("HEARTH_METRICS__PPROF", "true")
	cfg, err := app.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Metrics.AllowedCIDRs; len(got) != 2 || got[0] != "10.0.0.0/8" || got[1] != "192.168.0.0/16" {
		t.Errorf("metrics.allowed_cidrs from the environment %q", got)
	}
	if !cfg.Metrics.Pprof {
		t.Error("metrics.pprof from the environment is off")
	}
	t.Setenv("HEARTH_METRICS__ALLOWED_CIDRS", "10.0.0.0/40")
	if _, err := app.LoadConfig(""); err == nil {
		t.Error("a bad metrics.allowed_cidrs was accepted")
	}
}

// TestConfigRateLimitFromEnvironment: the example variable reaches
// rate_limit.
func TestConfigRateLimitFromEnvironment(t *testing.T) {
	t.Setenv("HEARTH_RATE_LIMIT__ENABLED", "true")
	t.Setenv("HEARTH_RATE_LIMIT__AUTHENTICATED_PER_PERIOD", "600")
	cfg, err := app.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.RateLimit; !r.Enabled || r.AuthenticatedPerPeriod != 600 || r.UnauthenticatedPerPeriod != 3600 || r.Period != time.Hour {
		t.Errorf("rate_limit from the environment: %+v", r)
	}
}
