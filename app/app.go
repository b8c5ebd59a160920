// Package app is Hearth's composition root: configuration -> adapters ->
// modules -> router and server. Only this package knows every layer.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/blob"
	"github.com/hearth-forge/hearth/adapters/bus/inproc"
	"github.com/hearth-forge/hearth/adapters/ciconfig"
	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/adapters/git/gogit"
	"github.com/hearth-forge/hearth/adapters/metrics"
	"github.com/hearth-forge/hearth/adapters/ratelimit"
	"github.com/hearth-forge/hearth/adapters/secrets"
	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/adapters/storage/postgres"
	"github.com/hearth-forge/hearth/adapters/storage/sqlite"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/modules/backup"
	"github.com/hearth-forge/hearth/modules/broadcasts"
	"github.com/hearth-forge/hearth/modules/ci"
	"github.com/hearth-forge/hearth/modules/deploykeys"
	"github.com/hearth-forge/hearth/modules/events"
	"github.com/hearth-forge/hearth/modules/groups"
	"github.com/hearth-forge/hearth/modules/hooks"
	"github.com/hearth-forge/hearth/modules/issues"
	"github.com/hearth-forge/hearth/modules/jobs"
	"github.com/hearth-forge/hearth/modules/members"
	"github.com/hearth-forge/hearth/modules/mergerequests"
	"github.com/hearth-forge/hearth/modules/meta"
	"github.com/hearth-forge/hearth/modules/notes"
	"github.com/hearth-forge/hearth/modules/projects"
	"github.com/hearth-forge/hearth/modules/repository"
	"github.com/hearth-forge/hearth/modules/runners"
	"github.com/hearth-forge/hearth/modules/settings"
	"github.com/hearth-forge/hearth/modules/snippets"
	"github.com/hearth-forge/hearth/modules/todos"
	"github.com/hearth-forge/hearth/modules/users"
)

// storageDrivers maps storage.driver to the adapter that opens it.
func storageDrivers() map[string]func(ctx context.Context, cfg config.Config) (*bunstore.Store, error) {
	return map[string]func(ctx context.Context, cfg config.Config) (*bunstore.Store, error){
		"sqlite": func(ctx context.Context, cfg config.Config) (*bunstore.Store, error) {
			path := cfg.Storage.DSN
			if path == "" {
				path = filepath.Join(cfg.DataDir, "hearth.db")
			}
			db, err := sqlite.Open(ctx, path)
			if err != nil {
				return nil, err
			}
			return sqlite.NewStore(db), nil
		},
		"postgres": func(ctx context.Context, cfg config.Config) (*bunstore.Store, error) {
			db, err := postgres.Open(ctx, cfg.Storage.DSN)
			if err != nil {
				return nil, err
			}
			return postgres.NewStore(db), nil
		},
	}
}

// gitBackends maps git.backend to the adapter that serves repositories.
// The bounds on concurrent git work are gitcli's (gogit runs no processes).
// observe is told of each git process (metrics).
func gitBackends() map[string]func(root string, cfg config.Git, log *zap.Logger, observe func(time.Duration, error)) (ports.RepoBackend, error) {
	return map[string]func(root string, cfg config.Git, log *zap.Logger, observe func(time.Duration, error)) (ports.RepoBackend, error){
		"gitcli": func(root string, cfg config.Git, log *zap.Logger, observe func(time.Duration, error)) (ports.RepoBackend, error) {
			return gitcli.New(root, log, gitcli.WithLimits(gitcli.Limits{
				MaxProcesses: cfg.MaxProcesses,
				MaxCatFiles:  cfg.MaxCatFiles,
				QueueTimeout: cfg.QueueTimeout,
			}), gitcli.WithRunObserver(observe))
		},
		"gogit": func(root string, _ config.Git, log *zap.Logger, _ func(time.Duration, error)) (ports.RepoBackend, error) {
			return gogit.New(root, log)
		},
	}
}

// Stores are every store port, all from the one storage adapter. Modules
// ask for the ones they use.
type Stores struct {
	fx.Out
	Users             ports.UserStore
	Keys              ports.KeyStore
	Emails            ports.EmailStore
	Tokens            ports.TokenStore
	Events            ports.EventStore
	Namespaces        ports.NamespaceStore
	Projects          ports.ProjectStore
	Members           ports.MemberStore
	ProtectedBranches ports.ProtectedBranchStore
	Releases          ports.ReleaseStore
	CommitComments    ports.CommitCommentStore
	MergeRequests     ports.MergeRequestStore
	Notes             ports.NoteStore
	Todos             ports.TodoStore
	Subscriptions     ports.SubscriptionStore
	Issues            ports.IssueStore
	IssueReader       ports.IssueReader
	IssueCounter      ports.IssueCounter
	Milestones        ports.MilestoneStore
	MilestoneReader   ports.MilestoneReader
	Labels            ports.LabelStore
	Awards            ports.AwardStore
	TimeTracking      ports.TimeTrackingStore
	Snippets          ports.SnippetStore
	Pipelines         ports.PipelineStore
	Jobs              ports.JobStore
	Runners           ports.RunnerStore
	Variables         ports.VariableStore
	Triggers          ports.TriggerStore
	Artifacts         ports.ArtifactStore
	Hooks             ports.HookStore
	SystemHooks       ports.SystemHookStore
	HookRouter        ports.HookRouter
	HookDeliveries    ports.HookDeliveryStore
	HookEvents        ports.HookEventStore
	DeployKeys        ports.DeployKeyStore
	BroadcastMessages ports.BroadcastMessageStore
	Settings          ports.SettingsStore
	Tx                ports.TxManager
	Pinger            ports.Pinger
	Backup            ports.DatabaseBackup
}

func storesOf(s *bunstore.Store) Stores {
	return Stores{
		Users: s.Users(), Keys: s.Keys(), Emails: s.Emails(), Tokens: s.Tokens(), Events: s.Events(),
		Namespaces: s.Namespaces(), Projects: s.Projects(), Members: s.Members(),
		ProtectedBranches: s.ProtectedBranches(), Releases: s.Releases(), CommitComments: s.CommitComments(),
		MergeRequests: s.MergeRequests(), Notes: s.Notes(), Todos: s.Todos(), Subscriptions: s.Subscriptions(),
		Issues: s.Issues(), IssueReader: s.Issues(), IssueCounter: s.Issues(),
		Milestones: s.Milestones(), MilestoneReader: s.Milestones(), Labels: s.Labels(), Awards: s.Awards(),
		TimeTracking: s.TimeTracking(),
		Snippets:     s.Snippets(), Pipelines: s.Pipelines(), Jobs: s.Jobs(), Runners: s.Runners(),
		Variables: s.Variables(), Triggers: s.Triggers(), Artifacts: s.Artifacts(), Hooks: s.Hooks(),
		SystemHooks: s.SystemHooks(), HookRouter: s.HookRouter(), HookDeliveries: s.HookDeliveries(), HookEvents: s.HookEvents(),
		DeployKeys: s.DeployKeys(), BroadcastMessages: s.BroadcastMessages(), Settings: s.Settings(), Tx: s.Tx(), Pinger: s, Backup: s.Backup(),
	}
}

// Git is the git backend, whole and as the narrower ports modules ask for.
type Git struct {
	fx.Out
	Backend   ports.RepoBackend
	Storage   ports.RepoStorage
	Reader    ports.RepoReader
	Writer    ports.RepoWriter
	Transport ports.RepoTransport
	// Bundler is nil for a backend without bundles.
	Bundler ports.RepoBundler
}

// newGit opens the configured git backend; one that holds long-lived
// resources (io.Closer: gitcli's cat-file processes) is closed when the
// app stops.
func newGit(lc fx.Lifecycle, cfg config.Config, log *zap.Logger, m *metrics.Registry) (Git, error) {
	open, ok := gitBackends()[cfg.Git.Backend]
	if !ok {
		return Git{}, fmt.Errorf("git backend %q is not available in this build (use gitcli)", cfg.Git.Backend)
	}
	root := cfg.Git.Root
	if root == "" {
		root = filepath.Join(cfg.DataDir, "repositories")
	}
	b, err := open(root, cfg.Git, log.Named("git"), m.ObserveGit)
	if err != nil {
		return Git{}, err
	}
	if c, ok := b.(io.Closer); ok {
		lc.Append(fx.StopHook(func() error {
			if err := c.Close(); err != nil {
				return fmt.Errorf("close git backend: %w", err)
			}
			return nil
		}))
	}
	bundler, _ := b.(ports.RepoBundler)
	return Git{Backend: b, Storage: b, Reader: b, Writer: b, Transport: b, Bundler: bundler}, nil
}

// newBlob opens the blob store of artifacts and archived traces at
// blob.url, by default a directory under the data directory (created when
// missing), and closes it when the app stops.
func newBlob(lc fx.Lifecycle, cfg config.Config) (ports.BlobStore, error) {
	u := cfg.Blob.URL
	if u == "" {
		var err error
		if u, err = blob.DirURL(filepath.Join(cfg.DataDir, "blobs")); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := blob.Open(ctx, u)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(b.Close))
	return b, nil
}

// Core provides configuration, logging, storage (the *bunstore.Store and
// every store port), the git backend, the blob store, the event bus,
// secrets, the access policy, the presenters, the router and the metrics
// (GET /-/metrics). Migrations
// run when the app starts, before anything listens.
func Core(cfg config.Config) fx.Option {
	return fx.Options(
		fx.Supply(cfg, cfg.Auth, httpx.Options{
			ExternalURL:  cfg.ExternalURL,
			MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
			MaxJSONDepth: cfg.HTTP.MaxJSONDepth,
			Throttle:     httpx.Throttle(cfg.RateLimit),
		}),
		fx.Provide(
			newLogger,
			newStore,
			storesOf,
			newGit,
			newBlob,
			func(tx ports.TxManager, log *zap.Logger, m *metrics.Registry) ports.EventBus {
				return inproc.New(tx, log.Named("bus"), inproc.WithFailureObserver(m.ObserveEventFailure))
			},
			func() ports.Clock { return systemClock{} },
			func() ports.PasswordHasher { return secrets.NewArgon2Hasher() },
			func() ports.TokenGenerator { return secrets.RandomTokens{} },
			func() ports.PipelineConfigParser {
				return ciconfig.New(ciconfig.Limits{MaxBytes: cfg.CI.MaxConfigBytes})
			},
			newURLGuard,
			func(clock ports.Clock) ports.RateLimiter { return ratelimit.New(clock.Now) },
			func(clock ports.Clock) ports.Bans { return ratelimit.NewBans(clock.Now) },
			newHookSender,
			access.New,
			newPresenters,
			httpx.NewRouter,
			func() meta.Build { return meta.Build{Revision: revision()} },
		),
		Metrics(),
		// The blob store opens at start-up even before a module asks for
		// it, so a bad blob.url stops the start and the directory exists.
		fx.Invoke(func(ports.BlobStore) {}),
		fx.WithLogger(func(log *zap.Logger) fxevent.Logger {
			l := &fxevent.ZapLogger{Logger: log.Named("fx")}
			l.UseLogLevel(zap.DebugLevel)
			return l
		}),
		fx.StopTimeout(max(cfg.Shutdown, time.Second)),
	)
}

// Modules lists every built-in module.
func Modules() fx.Option {
	return fx.Options(users.Module, events.Module, meta.Module, projects.Module, groups.Module, members.Module, repository.Module, mergerequests.Module, todos.Module, issues.Module, snippets.Module, notes.Module, ci.Module, jobs.Module, runners.Module, hooks.Module, deploykeys.Module, broadcasts.Module, settings.Module, backup.Module)
}

// Bootstrap creates the root administrator on an empty database, printing a
// generated password once through announce when none is configured.
func Bootstrap(announce func(password string)) fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle, cfg config.Config, svc *users.Service, log *zap.Logger) {
		lc.Append(fx.StartHook(func(ctx context.Context) error {
			created, generated, err := svc.EnsureRoot(ctx, cfg.Root.Password, cfg.Root.Email)
			if err != nil {
				return fmt.Errorf("create root user: %w", err)
			}
			if created {
				log.Info("created the root administrator", zap.Bool("generated_password", generated != ""))
				if generated != "" && announce != nil {
					announce(generated)
				}
			}
			return nil
		}))
	})
}

// Serve adds the HTTP server that listens on cfg.Listen and shuts down gracefully.
func Serve() fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle, cfg config.Config, router *httpx.Router, log *zap.Logger) {
		srv := &http.Server{
			Addr:              cfg.Listen,
			Handler:           router,
			ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
			ReadTimeout:       cfg.HTTP.ReadTimeout,
			WriteTimeout:      cfg.HTTP.WriteTimeout,
			IdleTimeout:       cfg.HTTP.IdleTimeout,
			ErrorLog:          zap.NewStdLog(log.Named("http.server")),
		}
		lc.Append(fx.Hook{
			OnStart: func(ctx context.Context) error {
				ln, err := net.Listen("tcp", cfg.Listen)
				if err != nil {
					return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
				}
				log.Info("listening", zap.String("addr", ln.Addr().String()), zap.String("external_url", cfg.ExternalURL))
				go func() {
					if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
						log.Error("server stopped", zap.Error(err))
					}
				}()
				return nil
			},
			OnStop: func(ctx context.Context) error {
				log.Info("shutting down")
				return srv.Shutdown(ctx)
			},
		})
	})
}

// New builds the whole server: Core, every module, root bootstrap, the
// listeners (HTTP, and SSH when ssh.listen is set) and, when
// runner.builtin is on, the built-in runner.
//
// The listener comes last but for the built-in runner: fx runs start hooks
// in the order they were registered, so migrations, module start-up work
// and the extras' hooks (root's creation) are done before the first
// request can arrive, and the runner registers over HTTP once the server
// listens.
func New(cfg config.Config, extra ...fx.Option) *fx.App {
	opts := append([]fx.Option{Core(cfg), Modules()}, extra...)
	return fx.New(append(opts, Serve(), ServeSSH(), BuiltinRunner(cfg))...)
}

// Handler starts Hearth without a listener and returns its http.Handler for
// mounting into another server, and the function that stops it.
func Handler(ctx context.Context, cfg config.Config, extra ...fx.Option) (http.Handler, func(context.Context) error, error) {
	var router *httpx.Router
	a := fx.New(append([]fx.Option{Core(cfg), Modules(), fx.Populate(&router)}, extra...)...)
	if err := a.Start(ctx); err != nil {
		return nil, nil, err
	}
	return router, a.Stop, nil
}

// Migrate opens the configured database, applies every pending migration
// and closes it. Nothing else starts: no module, no start-up work.
func Migrate(ctx context.Context, cfg config.Config) error {
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.DB().Close()
	if err := store.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

func openStore(ctx context.Context, cfg config.Config) (*bunstore.Store, error) {
	open, ok := storageDrivers()[cfg.Storage.Driver]
	if !ok {
		return nil, fmt.Errorf("unknown storage driver %q", cfg.Storage.Driver)
	}
	store, err := open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s storage: %w", cfg.Storage.Driver, err)
	}
	return store, nil
}

func newStore(lc fx.Lifecycle, cfg config.Config, log *zap.Logger) (*bunstore.Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := store.Migrate(ctx); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			log.Debug("migrations applied", zap.String("driver", cfg.Storage.Driver))
			return nil
		},
		OnStop: func(context.Context) error { return store.DB().Close() },
	})
	return store, nil
}

// presenterDeps are what the presenters embed; milestones are optional
// so that an embedder without them still renders merge requests.
type presenterDeps struct {
	fx.In
	Config        config.Config
	Namespaces    ports.NamespaceStore
	Projects      ports.ProjectStore
	Users         ports.UserStore
	Members       ports.MemberStore
	Repos         ports.RepoStorage
	Issues        ports.IssueStore
	IssueCounter  ports.IssueCounter
	MergeRequests ports.MergeRequestStore
	Subscriptions ports.SubscriptionStore
	Milestones    ports.MilestoneReader `optional:"true"`
	Policy        *access.Policy
}

// Presenters are the JSON renderers shared by modules, built once with the
// external URL.
type Presenters struct {
	fx.Out
	Projects      *apijson.ProjectPresenter
	Issues        *apijson.IssuePresenter
	MergeRequests *apijson.MergeRequestPresenter
	Todos         *apijson.TodoPresenter
}

func newPresenters(d presenterDeps) Presenters {
	proj := &apijson.ProjectPresenter{BaseURL: d.Config.BaseURL(), SSHBase: d.Config.SSHCloneBase(), Namespaces: d.Namespaces, Projects: d.Projects,
		Users: d.Users, Members: d.Members, Repos: d.Repos, Issues: d.IssueCounter, Viewer: d.Policy.IssueViewer}
	embeds := apijson.Embeds{Users: d.Users, Projects: d.Projects, Presenter: proj,
		Subscriptions: d.Subscriptions, Milestones: d.Milestones}
	mrs := &apijson.MergeRequestPresenter{Embeds: embeds}
	issues := &apijson.IssuePresenter{Embeds: embeds}
	return Presenters{Projects: proj, Issues: issues, MergeRequests: mrs,
		Todos: &apijson.TodoPresenter{MergeRequests: d.MergeRequests, Render: mrs, Issues: d.Issues, RenderIssues: issues}}
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now().UTC() }
