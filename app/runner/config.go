// Package runner is Hearth's built-in CI runner: it speaks only the public
// runner protocol (shared/RUNNER-PROTOCOL.md), as gitlab-runner does, and
// runs jobs with a shell executor. It imports no server package, so it
// also works against GitLab and proves the protocol from the outside.
package runner

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the runner's configuration file (YAML). Token is the runner
// authentication token: the file is written with mode 0600. Example, as
// `hearth runner register` writes it:
//
//	url: http://localhost:8080
//	token: glrt-...
//	id: 1
//	system_id: s_0123456789ab
//	description: hearth-runner on build-host
//	tags: [linux, shell]
//	run_untagged: false
//	concurrent: 2                # jobs at once
//	builds_dir: /var/lib/hearth-runner/builds   # default ./builds
//	cache_dir: /var/lib/hearth-runner/cache     # default ./cache
//	shutdown_timeout: 30s        # how long a stop waits for running jobs
type Config struct {
	URL             string        `yaml:"url"`
	Token           string        `yaml:"token"`
	ID              int64         `yaml:"id,omitempty"`
	SystemID        string        `yaml:"system_id,omitempty"`
	Description     string        `yaml:"description,omitempty"`
	Tags            []string      `yaml:"tags,omitempty"`
	RunUntagged     bool          `yaml:"run_untagged"`
	Concurrent      int           `yaml:"concurrent"`
	BuildsDir       string        `yaml:"builds_dir,omitempty"`
	CacheDir        string        `yaml:"cache_dir,omitempty"`
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout,omitempty"`
}

// Defaults of the fields left empty.
const (
	DefaultConcurrent      = 1
	DefaultShutdownTimeout = 30 * time.Second
	DefaultBuildsDir       = "builds"
	DefaultCacheDir        = "cache"
)

// LoadConfig reads a configuration file and fills the defaults.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read runner config: %w", err)
	}
	var c Config
	if err := yaml.Unmarshal(data, &c); err != nil {
		return Config{}, fmt.Errorf("parse runner config %s: %w", path, err)
	}
	c.defaults()
	if c.URL == "" || c.Token == "" {
		return Config{}, fmt.Errorf("runner config %s: url and token are required (run `hearth runner register`)", path)
	}
	return c, nil
}

func (c *Config) defaults() {
	if c.Concurrent <= 0 {
		c.Concurrent = DefaultConcurrent
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = DefaultShutdownTimeout
	}
	if c.BuildsDir == "" {
		c.BuildsDir = DefaultBuildsDir
	}
	if c.CacheDir == "" {
		c.CacheDir = DefaultCacheDir
	}
	if c.SystemID == "" {
		c.SystemID = NewSystemID()
	}
}

// Save writes the configuration readable by its owner only, replacing
// the file atomically so that a crash never leaves half a token.
func (c Config) Save(path string) error {
	data, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode runner config: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".runner-config-*")
	if err != nil {
		return fmt.Errorf("write runner config: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write runner config: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write runner config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write runner config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write runner config: %w", err)
	}
	return nil
}

// NewSystemID is a system id as gitlab-runner makes them: "s_" and 12
// hex digits, identifying one runner manager of a runner.
func NewSystemID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "s_" + hex.EncodeToString(b)
}
