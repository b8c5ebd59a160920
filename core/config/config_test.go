package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core/config"
)

func TestDefaultRunner(t *testing.T) {
	t.Parallel()
	c := config.Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	want := config.Runner{Builtin: false, Concurrent: 2, BuildsDir: "", ShutdownTimeout: 30 * time.Second}
	if c.Runner != want {
		t.Fatalf("runner defaults %+v, want %+v", c.Runner, want)
	}
}

func TestValidateRunner(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		edit func(*config.Runner)
		want string
	}{
		"zero concurrency": {func(r *config.Runner) { r.Concurrent = 0 }, "runner.concurrent"},
		"negative timeout": {func(r *config.Runner) { r.ShutdownTimeout = -time.Second }, "runner.shutdown_timeout"},
		"builtin is fine":  {func(r *config.Runner) { r.Builtin = true; r.BuildsDir = "/tmp/b" }, ""},
		"zero timeout":     {func(r *config.Runner) { r.ShutdownTimeout = 0 }, "runner.shutdown_timeout"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := config.Default()
			tc.edit(&c.Runner)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one about %s", err, tc.want)
			}
		})
	}
}

func TestValidateGitLimits(t *testing.T) {
	t.Parallel()
	if d := config.Default().Git; d.MaxProcesses != 0 || d.MaxCatFiles != 0 || d.QueueTimeout != 2*time.Second {
		t.Fatalf("git defaults %+v, want 0 (from the CPUs), 0 and a 2s queue", d)
	}
	for name, tc := range map[string]struct {
		edit func(*config.Git)
		want string
	}{
		"explicit bounds":    {func(g *config.Git) { g.MaxProcesses, g.MaxCatFiles = 8, 16 }, ""},
		"negative processes": {func(g *config.Git) { g.MaxProcesses = -1 }, "git.max_processes"},
		"negative cat-files": {func(g *config.Git) { g.MaxCatFiles = -1 }, "git.max_cat_files"},
		"zero queue timeout": {func(g *config.Git) { g.QueueTimeout = 0 }, "git.queue_timeout"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := config.Default()
			tc.edit(&c.Git)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one about %s", err, tc.want)
			}
		})
	}
}
