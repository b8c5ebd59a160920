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

// TestSSHCloneBase: scp-like git@host: on port 22 (GitLab's form),
// ssh://git@host:port/ on any other, from ssh.external_* or, by default,
// external_url's host and ssh.listen's port.
func TestSSHCloneBase(t *testing.T) {
	for _, c := range []struct {
		name string
		tune func(*config.Config)
		want string
	}{
		{"default: listen port", func(c *config.Config) {}, "ssh://git@127.0.0.1:2222/"},
		{"ssh off", func(c *config.Config) { c.SSH.Listen = "" }, "git@127.0.0.1:"},
		{"port 22", func(c *config.Config) { c.SSH.Listen = "0.0.0.0:22" }, "git@127.0.0.1:"},
		{"external host and port", func(c *config.Config) {
			c.ExternalURL = "https://hearth.example.com"
			c.SSH.ExternalHost, c.SSH.ExternalPort = "git.example.com", 2022
		}, "ssh://git@git.example.com:2022/"},
		{"external port 22 behind a forward", func(c *config.Config) {
			c.ExternalURL = "https://hearth.example.com/"
			c.SSH.ExternalPort = 22
		}, "git@hearth.example.com:"},
		{"IPv6 host", func(c *config.Config) { c.SSH.ExternalHost = "::1" }, "ssh://git@[::1]:2222/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.Default()
			c.tune(&cfg)
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := cfg.SSHCloneBase(); got != c.want {
				t.Errorf("SSHCloneBase = %q, want %q", got, c.want)
			}
		})
	}
	bad := config.Default()
	bad.SSH.Listen = "nonsense"
	if err := bad.Validate(); err == nil {
		t.Error("ssh.listen without a port validated")
	}
}

// TestValidateMetricsCIDRs: the allow-list takes CIDRs and bare addresses
// and refuses anything else by name.
func TestValidateMetricsCIDRs(t *testing.T) {
	t.Parallel()
	c := config.Default()
	c.Metrics.AllowedCIDRs = []string{"10.0.0.0/8", " 192.168.1.7 ", "2001:db8::/32", "203.0.113.9/24"}
	if err := c.Validate(); err != nil {
		t.Fatalf("valid allow-list refused: %v", err)
	}
	got, err := config.ParseCIDRs(c.Metrics.AllowedCIDRs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.168.1.7/32", "2001:db8::/32", "203.0.113.0/24"}
	if len(got) != len(want) {
		t.Fatalf("parsed %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("entry %d parsed as %s, want %s", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0.1/8/8"} {
		c.Metrics.AllowedCIDRs = []string{bad}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "metrics.allowed_cidrs") {
			t.Errorf("allow-list %q: error %v, want one about metrics.allowed_cidrs", bad, err)
		}
	}
}
