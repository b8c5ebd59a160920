// Package apptest starts a real Hearth (real storage, real HTTP) for tests:
// SQLite in a temporary directory by default, or a fresh Postgres database.
// Either starts migrated: the SQLite file is a copy of one migrated once
// per test process, the Postgres database comes from a migrated template
// (pgtest/migrated); the server's own start-up migration then finds
// nothing to do.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/hearth-forge/hearth/adapters/secrets"
	"github.com/hearth-forge/hearth/adapters/ssh/sshserver"
	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest/migrated"
	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/modules/users"
)

// RootPassword is root's password in every test server.
const RootPassword = "root-password-for-tests"

// RepoDir is where the bare repository of a project lives on disk.
func (s *Server) RepoDir(projectID int64) string {
	root := s.Config.Git.Root
	if root == "" {
		root = filepath.Join(s.Config.DataDir, "repositories")
	}
	return filepath.Join(root, filepath.FromSlash(domain.RepoPath(projectID)))
}

// Server is a running Hearth.
type Server struct {
	URL       string
	RootToken string
	Config    config.Config
	Users     *users.Service
	Router    *httpx.Router
	// Stores, for tests and benchmarks that seed data faster than the API can.
	Store *bunstore.Store
	// Repos is the git backend, for tests that seed repositories directly.
	Repos    ports.RepoBackend
	queries  atomic.Int64
	queryMu  sync.Mutex
	queryLog []string
	// logQueries is set by the first QueryLog call.
	logQueries bool
	logs       *syncBuffer
	clock      *Clock
	// SSHAddr is the SSH server's host:port and SSH the server, when
	// started with the SSH option.
	SSHAddr  string
	SSH      *sshserver.Server
	sshMu    sync.Mutex
	sshUsers map[string]bool
}

// Clock is the server's clock: real time plus an offset tests can move.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the real time shifted by the offset.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().UTC().Add(c.offset)
}

// Advance moves the server's clock forward by d.
func (s *Server) Advance(d time.Duration) {
	s.clock.mu.Lock()
	s.clock.offset += d
	s.clock.mu.Unlock()
}

type options struct {
	ssh    bool
	driver string
	// dataDir and dsn, when set, are an existing data directory and
	// database (a restored backup) used as they are.
	dataDir, dsn string
	extra        []fx.Option
	tune         func(*config.Config)
	// protectDefault keeps GitLab's default_branch_protection (2).
	protectDefault bool
}

// Option changes how the server is built.
type Option func(*options)

// Postgres runs the server on a fresh Postgres database (skipped without a
// server unless CI is set).
func Postgres() Option { return func(o *options) { o.driver = "postgres" } }

// Driver picks the storage driver by name ("sqlite" or "postgres").
func Driver(name string) Option { return func(o *options) { o.driver = name } }

// With adds fx options (extra modules, decorators).
func With(opts ...fx.Option) Option { return func(o *options) { o.extra = append(o.extra, opts...) } }

// At starts the server on an existing data directory and database (of
// the driver chosen with Driver), such as a restored backup, instead of
// fresh ones.
func At(dataDir, dsn string) Option {
	return func(o *options) { o.dataDir, o.dsn = dataDir, dsn }
}

// BranchProtection keeps GitLab's default application setting that
// protects a project's default branch on the push that creates it
// (masters only). Without it a test server starts with that setting at 0
// ("not protected"), so that tests whose developers push and merge to
// the default branch do not each have to unprotect it; the protection
// itself is tested with this option.
func BranchProtection() Option { return func(o *options) { o.protectDefault = true } }

// Configure edits the configuration before start.
func Configure(fn func(*config.Config)) Option { return func(o *options) { o.tune = fn } }

// New starts a server and stops it when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o := options{driver: "sqlite"}
	for _, opt := range opts {
		opt(&o)
	}
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Root.Password = RootPassword
	cfg.SSH.Listen = "" // tests that want SSH ask for it (WithSSH)
	cfg.Log.Level = "debug"
	cfg.Storage.Driver = o.driver
	if o.dataDir != "" {
		cfg.DataDir, cfg.Storage.DSN = o.dataDir, o.dsn
	} else if o.driver == "postgres" {
		cfg.Storage.DSN = migrated.DSN(t)
	} else {
		cfg.Storage.DSN = filepath.Join(cfg.DataDir, "hearth.db")
		copySQLiteTemplate(t, cfg.Storage.DSN)
	}
	ts := httptest.NewUnstartedServer(nil)
	cfg.ExternalURL = "http://" + ts.Listener.Addr().String()
	cfg.Listen = ts.Listener.Addr().String()
	if o.tune != nil {
		o.tune(&cfg)
	}
	o.sshListen(t, &cfg)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}

	logs := &syncBuffer{}
	level, err := zapcore.ParseLevel(cfg.Log.Level)
	if err != nil {
		t.Fatalf("log level: %v", err)
	}
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(logs), level))
	s := &Server{Config: cfg, logs: logs, clock: &Clock{}}
	extra := append([]fx.Option{
		fx.Decorate(func() *zap.Logger { return logger }),
		// Production argon2 costs 64 MiB per hash; tests use the same
		// algorithm with small parameters.
		fx.Decorate(func() ports.PasswordHasher { return secrets.NewFastArgon2Hasher() }),
		fx.Decorate(func() ports.Clock { return s.clock }),
		app.Bootstrap(nil),
		fx.Populate(&s.Users, &s.Router, &s.Store, &s.Repos),
	}, o.extra...)
	extra = append(extra, o.sshOptions(s)...)
	handler, stop, err := app.Handler(context.Background(), cfg, extra...)
	if err != nil {
		ts.Close()
		t.Fatalf("start hearth: %v", err)
	}
	s.Store.DB().AddQueryHook(queryCounter{s})
	ts.Config.Handler = handler
	ts.Start()
	s.URL = ts.URL
	t.Cleanup(func() {
		ts.Close()
		_ = stop(context.Background())
	})

	root, err := s.Users.UserByLogin(context.Background(), "root")
	if err != nil {
		t.Fatalf("root user: %v", err)
	}
	_, secret, err := s.Users.CreatePersonalToken(context.Background(), nil, root.ID, "apptest", []string{"api", "sudo"}, nil)
	if err != nil {
		t.Fatalf("root token: %v", err)
	}
	s.RootToken = secret
	if !o.protectDefault && o.dataDir == "" {
		// Through the API, so that the node's settings cache changes too;
		// an app without the settings module has no route (404) and
		// GitLab's default.
		resp, body := s.Do(t, "PUT", "/application/settings", s.RootToken, map[string]any{"default_branch_protection": 0})
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotFound {
			t.Fatalf("turning default branch protection off: %d %s", resp.StatusCode, body)
		}
	}
	return s
}

// Queries is how many SQL queries the server has run so far.
func (s *Server) Queries() int64 { return s.queries.Load() }

// QueryLog is the text of every SQL query the server ran since the last
// call, for tests that say which queries a request costs. The first call
// starts the recording (servers that never ask keep no log).
func (s *Server) QueryLog() []string {
	s.queryMu.Lock()
	defer s.queryMu.Unlock()
	out := s.queryLog
	s.queryLog, s.logQueries = nil, true
	return out
}

type queryCounter struct{ s *Server }

func (q queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

// AfterQuery counts the queries of requests only: background work (the
// webhook workers' polls) runs on its own clock and would make counts of
// a request depend on timing.
func (q queryCounter) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	if httpx.RequestIDFrom(ctx) == "" {
		return
	}
	q.s.queries.Add(1)
	q.s.queryMu.Lock()
	if q.s.logQueries {
		q.s.queryLog = append(q.s.queryLog, e.Query)
	}
	q.s.queryMu.Unlock()
}

// Logs is everything the server logged so far.
func (s *Server) Logs() string { return s.logs.String() }

// API is the server's /api/v4 base URL.
func (s *Server) API() string { return s.URL + "/api/v4" }

// Do sends a request as contracttests.SendAPI does: path relative to
// /api/v4 unless it starts with "/-/" or "http", token as PRIVATE-TOKEN
// (none when empty), a url.Values body as a form, []byte as raw JSON,
// anything else non-nil as JSON.
func (s *Server) Do(t testing.TB, method, path, token string, body any) (*http.Response, []byte) {
	t.Helper()
	resp, data, err := contracttests.SendAPI(s.URL, method, path, token, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// JSON sends a request like Do, checks the status and decodes the body into out (if not nil).
func (s *Server) JSON(t testing.TB, method, path, token string, body any, wantStatus int, out any) *http.Response {
	t.Helper()
	resp, data := s.Do(t, method, path, token, body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, path, resp.StatusCode, wantStatus, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
	return resp
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
