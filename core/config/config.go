// Package config is Hearth's typed configuration. Loading from files and the
// environment happens in app; modules receive these structs.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration.
type Config struct {
	Listen      string        `koanf:"listen"`
	ExternalURL string        `koanf:"external_url"`
	DataDir     string        `koanf:"data_dir"`
	Storage     Storage       `koanf:"storage"`
	Git         Git           `koanf:"git"`
	HTTP        HTTP          `koanf:"http"`
	Auth        Auth          `koanf:"auth"`
	Log         Log           `koanf:"log"`
	Root        Root          `koanf:"root"`
	CI          CI            `koanf:"ci"`
	Blob        Blob          `koanf:"blob"`
	Runner      Runner        `koanf:"runner"`
	Webhooks    Webhooks      `koanf:"webhooks"`
	SSH         SSH           `koanf:"ssh"`
	RateLimit   RateLimit     `koanf:"rate_limit"`
	Metrics     Metrics       `koanf:"metrics"`
	Shutdown    time.Duration `koanf:"shutdown_timeout"`
}

// CI configures pipelines, jobs and runners.
type CI struct {
	// RegistrationToken registers shared runners for every project
	// (empty: runners register with a project's token only).
	RegistrationToken string `koanf:"registration_token"`
	// MaxArtifactsBytes caps one artifact upload (413 above it).
	MaxArtifactsBytes int64 `koanf:"max_artifacts_bytes"`
	// MaxConfigBytes caps a .gitlab-ci.yml (and each file it includes).
	MaxConfigBytes int64 `koanf:"max_config_bytes"`
	// DefaultTimeout is a job's timeout when nothing sets one.
	DefaultTimeout time.Duration `koanf:"default_timeout"`
	// HeartbeatTimeout fails a running job whose runner was silent this
	// long (stuck_or_timeout_failure).
	HeartbeatTimeout time.Duration `koanf:"heartbeat_timeout"`
	// PendingTimeout fails a pending job no runner took this long.
	PendingTimeout time.Duration `koanf:"pending_timeout"`
	// SweepInterval is how often stuck jobs and expired artifacts are
	// looked for.
	SweepInterval time.Duration `koanf:"sweep_interval"`
}

// Runner configures the built-in runner that `hearth serve` starts in
// its own process when Builtin is on: an instance runner that speaks the
// public runner protocol to this server over HTTP, with the shell
// executor.
type Runner struct {
	// Builtin starts the built-in runner with the server.
	Builtin bool `koanf:"builtin"`
	// Concurrent is how many jobs it runs at once.
	Concurrent int `koanf:"concurrent"`
	// BuildsDir holds the build directories; empty means
	// <data_dir>/builds.
	BuildsDir string `koanf:"builds_dir"`
	// ShutdownTimeout is how long a stopping server waits for running
	// jobs before canceling them.
	ShutdownTimeout time.Duration `koanf:"shutdown_timeout"`
}

// Blob selects where artifacts and archived traces are kept: a file://
// URL (the default, <data_dir>/blobs) or an object store's (s3://,
// gs://) URL, so that several nodes share them.
type Blob struct {
	URL string `koanf:"url"`
}

// RateLimit configures request throttling as GitLab's Rack::Attack
// settings do (off by default, as GitLab's are). Limits are per node.
type RateLimit struct {
	Enabled bool `koanf:"enabled"`
	// AuthenticatedPerPeriod limits each signed-in user, and
	// UnauthenticatedPerPeriod each client address, per Period.
	AuthenticatedPerPeriod   int           `koanf:"authenticated_per_period"`
	UnauthenticatedPerPeriod int           `koanf:"unauthenticated_per_period"`
	Period                   time.Duration `koanf:"period"`
	// SignInPerPeriod limits sign-ins (POST /session) per client address
	// per SignInPeriod, against password guessing.
	SignInPerPeriod int           `koanf:"sign_in_per_period"`
	SignInPeriod    time.Duration `koanf:"sign_in_period"`
	// GitAuthMaxRetry failed HTTP Basic sign-ins of git clients from one
	// address within GitAuthFindTime ban it for GitAuthBanTime (GitLab's
	// rack_attack.git_basic_auth: maxretry, findtime, bantime), except the
	// addresses of GitAuthTrusted (ip_whitelist).
	GitAuthMaxRetry int           `koanf:"git_auth_max_retry"`
	GitAuthFindTime time.Duration `koanf:"git_auth_find_time"`
	GitAuthBanTime  time.Duration `koanf:"git_auth_ban_time"`
	GitAuthTrusted  []string      `koanf:"git_auth_trusted"`
}

// SSH configures the built-in SSH server that serves git to users' and
// deploy keys.
type SSH struct {
	// Listen is the address `hearth serve` accepts SSH on; empty turns
	// the server off.
	Listen string `koanf:"listen"`
	// ExternalHost and ExternalPort are what clone URLs name
	// (ssh_url_to_repo); empty and 0 take external_url's host and the
	// port of Listen.
	ExternalHost string `koanf:"external_host"`
	ExternalPort int    `koanf:"external_port"`
	// LoginTimeout bounds a connection's handshake and authentication.
	LoginTimeout time.Duration `koanf:"login_timeout"`
	// IdleTimeout closes a connection with no traffic either way this long.
	IdleTimeout time.Duration `koanf:"idle_timeout"`
	// MaxSessionsPerIP caps the connections open at once from one address.
	MaxSessionsPerIP int `koanf:"max_sessions_per_ip"`
}

// Webhooks configures project hooks.
type Webhooks struct {
	// AllowLocalRequests lets hook URLs name loopback, private and other
	// local addresses (GitLab's allow_local_requests_from_web_hooks_and_services).
	// Off by default: hook URLs come from users, and a local target is a
	// server-side request forgery.
	AllowLocalRequests bool `koanf:"allow_local_requests"`
	// Workers is how many deliveries this node sends at once; 0 sends
	// none (another node delivers the shared outbox).
	Workers int `koanf:"workers"`
	// Timeout bounds one delivery: connecting, sending and reading the
	// response (GitLab's webhook timeout, 10 s).
	Timeout time.Duration `koanf:"timeout"`
	// MaxAttempts is how often a delivery is tried before it is given up
	// (connection errors and 5xx are retried; other answers are final).
	MaxAttempts int `koanf:"max_attempts"`
	// RetryBackoff is the wait before the first retry; it doubles with
	// each further one, up to an hour.
	RetryBackoff time.Duration `koanf:"retry_backoff"`
	// DisableAfter is how many failures in a row disable a hook for a
	// while (a minute, doubling, at most a day); 0 never disables.
	DisableAfter int `koanf:"disable_after_failures"`
	// Retention is how long finished deliveries stay readable in the
	// recent deliveries API before they are pruned.
	Retention time.Duration `koanf:"retention"`
	// PollInterval is how often idle workers look for due deliveries
	// (a change on this node wakes them at once).
	PollInterval time.Duration `koanf:"poll_interval"`
}

// Metrics configures GET /-/metrics (Prometheus text format) and the
// optional net/http/pprof endpoints under /-/debug/pprof/. Both are served
// only to loopback clients and to AllowedCIDRs, judged by the TCP peer
// address (never X-Forwarded-For); anyone else gets 404, as GitLab answers
// for its monitoring endpoints.
type Metrics struct {
	// AllowedCIDRs are networks, besides loopback, that may read them
	// (e.g. a Prometheus server's 10.0.0.0/8); a bare address is one host.
	AllowedCIDRs []string `koanf:"allowed_cidrs"`
	// Pprof serves net/http/pprof under /-/debug/pprof/. Off by default:
	// profiles reveal internals and some cost CPU while they run.
	Pprof bool `koanf:"pprof"`
}

// ParseCIDRs parses metrics networks: CIDRs, or bare addresses as
// single-host networks.
func ParseCIDRs(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, raw := range list {
		s := strings.TrimSpace(raw)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR or an IP address", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// Storage selects the database adapter.
type Storage struct {
	Driver string `koanf:"driver"` // sqlite or postgres
	// DSN for postgres, or the SQLite file path; empty SQLite DSN means
	// <data_dir>/hearth.db.
	DSN string `koanf:"dsn"`
}

// Git selects the repository backend and bounds its concurrent work.
type Git struct {
	Backend string `koanf:"backend"` // gitcli or gogit
	// Root holds repositories; empty means <data_dir>/repositories.
	Root string `koanf:"root"`
	// MaxProcesses bounds the git processes (cat-file aside) running at
	// once, clones and pushes over HTTP included; 0 means twice the CPUs.
	MaxProcesses int `koanf:"max_processes"`
	// MaxCatFiles bounds the cat-file processes (object reads) busy or
	// kept at once; 0 means four times the CPUs.
	MaxCatFiles int `koanf:"max_cat_files"`
	// QueueTimeout is how long a request waits for one of those before
	// it is answered 503 with Retry-After.
	QueueTimeout time.Duration `koanf:"queue_timeout"`
}

// HTTP holds server limits.
type HTTP struct {
	ReadHeaderTimeout time.Duration `koanf:"read_header_timeout"`
	ReadTimeout       time.Duration `koanf:"read_timeout"`
	WriteTimeout      time.Duration `koanf:"write_timeout"`
	IdleTimeout       time.Duration `koanf:"idle_timeout"`
	MaxBodyBytes      int64         `koanf:"max_body_bytes"`
	MaxJSONDepth      int           `koanf:"max_json_depth"`
}

// Auth holds sign-in rules.
type Auth struct {
	MaxFailedAttempts int           `koanf:"max_failed_attempts"`
	LockDuration      time.Duration `koanf:"lock_duration"`
	// TouchInterval throttles last-used writes of tokens.
	TouchInterval time.Duration `koanf:"touch_interval"`
}

// Log configures zap.
type Log struct {
	Level  string `koanf:"level"`
	Format string `koanf:"format"` // json or console
}

// Root is the bootstrap administrator.
type Root struct {
	Password string `koanf:"password"`
	Email    string `koanf:"email"`
}

// Default is the built-in configuration: SQLite under ./data, gitcli, 127.0.0.1:8080.
func Default() Config {
	return Config{
		Listen:      "127.0.0.1:8080",
		ExternalURL: "http://127.0.0.1:8080",
		DataDir:     "./data",
		Storage:     Storage{Driver: "sqlite"},
		Git:         Git{Backend: "gitcli", QueueTimeout: 2 * time.Second},
		HTTP: HTTP{
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       60 * time.Second,
			WriteTimeout:      60 * time.Second,
			IdleTimeout:       120 * time.Second,
			MaxBodyBytes:      10 << 20,
			MaxJSONDepth:      32,
		},
		Auth: Auth{
			MaxFailedAttempts: 10,
			LockDuration:      10 * time.Minute,
			TouchInterval:     time.Minute,
		},
		Log:  Log{Level: "info", Format: "json"},
		Root: Root{Email: "admin@example.com"},
		CI: CI{
			MaxArtifactsBytes: 100 << 20,
			MaxConfigBytes:    1 << 20,
			DefaultTimeout:    time.Hour,
			HeartbeatTimeout:  time.Hour,
			PendingTimeout:    24 * time.Hour,
			SweepInterval:     time.Minute,
		},
		Runner: Runner{Concurrent: 2, ShutdownTimeout: 30 * time.Second},
		Webhooks: Webhooks{
			Workers:      4,
			Timeout:      10 * time.Second,
			MaxAttempts:  5,
			RetryBackoff: 10 * time.Second,
			DisableAfter: 4,
			Retention:    7 * 24 * time.Hour,
			PollInterval: time.Second,
		},
		RateLimit: RateLimit{
			AuthenticatedPerPeriod:   7200,
			UnauthenticatedPerPeriod: 3600,
			Period:                   time.Hour,
			SignInPerPeriod:          10,
			SignInPeriod:             time.Minute,
			GitAuthMaxRetry:          10,
			GitAuthFindTime:          time.Minute,
			GitAuthBanTime:           time.Hour,
		},
		SSH: SSH{
			Listen:           "127.0.0.1:2222",
			LoginTimeout:     30 * time.Second,
			IdleTimeout:      10 * time.Minute,
			MaxSessionsPerIP: 32,
		},
		Shutdown: 15 * time.Second,
	}
}

// Validate reports every problem at once.
func (c *Config) Validate() error {
	var errs []error
	if c.Listen == "" {
		errs = append(errs, errors.New("listen is empty"))
	}
	u, err := url.Parse(c.ExternalURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("external_url %q is not an absolute http(s) URL", c.ExternalURL))
	}
	switch c.Storage.Driver {
	case "sqlite":
	case "postgres":
		if c.Storage.DSN == "" {
			errs = append(errs, errors.New("storage.dsn is required for postgres"))
		}
	default:
		errs = append(errs, fmt.Errorf("storage.driver %q: want sqlite or postgres", c.Storage.Driver))
	}
	switch c.Git.Backend {
	case "gitcli", "gogit":
	default:
		errs = append(errs, fmt.Errorf("git.backend %q: want gitcli or gogit", c.Git.Backend))
	}
	if c.Git.MaxProcesses < 0 || c.Git.MaxCatFiles < 0 {
		errs = append(errs, errors.New("git.max_processes and git.max_cat_files must not be negative (0: from the CPUs)"))
	}
	if c.Git.QueueTimeout <= 0 {
		errs = append(errs, errors.New("git.queue_timeout must be positive"))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("data_dir is empty"))
	}
	if c.HTTP.MaxBodyBytes <= 0 {
		errs = append(errs, errors.New("http.max_body_bytes must be positive"))
	}
	if c.HTTP.MaxJSONDepth <= 0 {
		errs = append(errs, errors.New("http.max_json_depth must be positive"))
	}
	if c.Auth.MaxFailedAttempts <= 0 {
		errs = append(errs, errors.New("auth.max_failed_attempts must be positive"))
	}
	if c.CI.MaxArtifactsBytes <= 0 || c.CI.MaxConfigBytes <= 0 {
		errs = append(errs, errors.New("ci.max_artifacts_bytes and ci.max_config_bytes must be positive"))
	}
	if c.CI.DefaultTimeout <= 0 || c.CI.HeartbeatTimeout <= 0 || c.CI.PendingTimeout <= 0 || c.CI.SweepInterval <= 0 {
		errs = append(errs, errors.New("ci timeouts and ci.sweep_interval must be positive"))
	}
	if c.Runner.Concurrent <= 0 {
		errs = append(errs, errors.New("runner.concurrent must be positive"))
	}
	if c.Runner.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("runner.shutdown_timeout must be positive"))
	}
	if w := c.Webhooks; w.Workers < 0 || w.Timeout <= 0 || w.MaxAttempts < 1 || w.RetryBackoff <= 0 ||
		w.DisableAfter < 0 || w.Retention <= 0 || w.PollInterval <= 0 {
		errs = append(errs, errors.New("webhooks: workers and disable_after_failures must not be negative, max_attempts must be at least 1, and timeout, retry_backoff, retention and poll_interval must be positive"))
	}
	if r := c.RateLimit; r.Enabled && (r.AuthenticatedPerPeriod <= 0 || r.UnauthenticatedPerPeriod <= 0 ||
		r.Period <= 0 || r.SignInPerPeriod <= 0 || r.SignInPeriod <= 0 ||
		r.GitAuthMaxRetry <= 0 || r.GitAuthFindTime <= 0 || r.GitAuthBanTime <= 0) {
		errs = append(errs, errors.New("rate_limit: the limits and periods must be positive when enabled"))
	}
	for _, a := range c.RateLimit.GitAuthTrusted {
		if net.ParseIP(a) == nil {
			errs = append(errs, fmt.Errorf("rate_limit.git_auth_trusted: %q is not an IP address", a))
		}
	}
	if s := c.SSH; s.Listen != "" || s.ExternalPort != 0 {
		if s.Listen != "" {
			if _, port, err := net.SplitHostPort(s.Listen); err != nil || port == "" {
				errs = append(errs, fmt.Errorf("ssh.listen %q is not host:port", s.Listen))
			}
		}
		if s.ExternalPort < 0 || s.ExternalPort > 65535 {
			errs = append(errs, fmt.Errorf("ssh.external_port %d is not a port", s.ExternalPort))
		}
		if s.Listen != "" && (s.LoginTimeout <= 0 || s.IdleTimeout <= 0 || s.MaxSessionsPerIP <= 0) {
			errs = append(errs, errors.New("ssh.login_timeout, ssh.idle_timeout and ssh.max_sessions_per_ip must be positive"))
		}
	}
	if _, err := ParseCIDRs(c.Metrics.AllowedCIDRs); err != nil {
		errs = append(errs, fmt.Errorf("metrics.allowed_cidrs: %w", err))
	}
	return errors.Join(errs...)
}

// SSHCloneBase is what a project's SSH clone URL starts with, its full
// path and ".git" following: "git@host:" on port 22, as GitLab writes it,
// and "ssh://git@host:port/" on any other (scp-like URLs cannot name a
// port). The host is ssh.external_host or external_url's; the port
// ssh.external_port or, when 0, the port of ssh.listen (22 when the
// server is off).
func (c *Config) SSHCloneBase() string {
	host := c.SSH.ExternalHost
	if host == "" {
		host = c.BaseURL()
		if u, err := url.Parse(c.ExternalURL); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
	}
	port := c.SSH.ExternalPort
	if port == 0 && c.SSH.Listen != "" {
		if _, p, err := net.SplitHostPort(c.SSH.Listen); err == nil {
			port, _ = strconv.Atoi(p)
		}
	}
	if port == 0 || port == 22 {
		return "git@" + host + ":"
	}
	return "ssh://git@" + net.JoinHostPort(host, strconv.Itoa(port)) + "/"
}

// BaseURL is the external URL without a trailing slash.
func (c *Config) BaseURL() string { return strings.TrimRight(c.ExternalURL, "/") }
