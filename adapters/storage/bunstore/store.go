package bunstore

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hearth-forge/hearth/core/ports"
)

// Store gives access to every store port over one *bun.DB.
type Store struct {
	db       *bun.DB
	rowLocks bool
	tx       *txManager
}

// Option configures a Store.
type Option func(*Store)

// WithRowLocks makes read-modify-write lock the row it reads (SELECT ... FOR
// NO KEY UPDATE). Postgres needs it to avoid lost updates under READ
// COMMITTED. It is ignored on SQLite, which has no row locks and serialises
// writers with immediate transactions instead.
func WithRowLocks() Option { return func(s *Store) { s.rowLocks = true } }

// New returns a Store over db. db must be opened with sqlitedialect or
// pgdialect; call Migrate before using the stores.
func New(db *bun.DB, opts ...Option) *Store {
	s := &Store{db: db}
	for _, o := range opts {
		o(s)
	}
	s.rowLocks = s.rowLocks && db.Dialect().Name() == dialect.PG
	s.tx = &txManager{db: db}
	return s
}

// DB returns the underlying database handle.
func (s *Store) DB() *bun.DB { return s.db }

// Users returns the user store.
func (s *Store) Users() ports.UserStore { return &userStore{s} }

// Keys returns the SSH key store.
func (s *Store) Keys() ports.KeyStore { return &keyStore{s} }

// DeployKeys returns the store of deploy keys and the projects they are
// enabled for.
func (s *Store) DeployKeys() ports.DeployKeyStore { return &deployKeyStore{s} }

// Emails returns the secondary email store.
func (s *Store) Emails() ports.EmailStore { return &emailStore{s} }

// Tokens returns the API token store.
func (s *Store) Tokens() ports.TokenStore { return &tokenStore{s} }

// Events returns the activity feed store.
func (s *Store) Events() ports.EventStore { return &eventStore{s} }

// Namespaces returns the store of personal namespaces and groups.
func (s *Store) Namespaces() ports.NamespaceStore { return &namespaceStore{s} }

// Projects returns the project store (with stars and fork counts).
func (s *Store) Projects() ports.ProjectStore { return &projectStore{s} }

// Members returns the store of project and group memberships and project shares.
func (s *Store) Members() ports.MemberStore { return &memberStore{s} }

// ProtectedBranches returns the store of branch protection rules.
func (s *Store) ProtectedBranches() ports.ProtectedBranchStore { return &protectedBranchStore{s} }

// Releases returns the store of tag release notes.
func (s *Store) Releases() ports.ReleaseStore { return &releaseStore{s} }

// CommitComments returns the store of comments on commits.
func (s *Store) CommitComments() ports.CommitCommentStore { return &commitCommentStore{s} }

// MergeRequests returns the merge request store.
func (s *Store) MergeRequests() ports.MergeRequestStore { return &mergeRequestStore{s} }

// Notes returns the store of comments and system notes.
func (s *Store) Notes() ports.NoteStore { return &noteStore{s} }

// Todos returns the store of users' to-do items.
func (s *Store) Todos() ports.TodoStore { return &todoStore{s} }

// Subscriptions returns the store of explicit subscriptions.
func (s *Store) Subscriptions() ports.SubscriptionStore { return &subscriptionStore{s} }

// Issues returns the issue store.
func (s *Store) Issues() ports.IssueStore { return &issueStore{s} }

// Milestones returns the milestone store.
func (s *Store) Milestones() ports.MilestoneStore { return &milestoneStore{s} }

// Labels returns the label store.
func (s *Store) Labels() ports.LabelStore { return &labelStore{s} }

// Awards returns the award emoji store.
func (s *Store) Awards() ports.AwardStore { return &awardStore{s} }

// TimeTracking returns the store of issues' and merge requests' time stats.
func (s *Store) TimeTracking() ports.TimeTrackingStore { return &timeTrackingStore{s} }

// Snippets returns the project snippet store.
func (s *Store) Snippets() ports.SnippetStore { return &snippetStore{s} }

// Pipelines returns the CI pipeline store.
func (s *Store) Pipelines() ports.PipelineStore { return &pipelineStore{s} }

// Jobs returns the store of CI jobs, commit statuses and running jobs'
// traces, with the job queue.
func (s *Store) Jobs() ports.JobStore { return &jobStore{s} }

// Runners returns the runner store.
func (s *Store) Runners() ports.RunnerStore { return &runnerStore{s} }

// Variables returns the store of projects' CI variables.
func (s *Store) Variables() ports.VariableStore { return &variableStore{s} }

// Triggers returns the store of projects' pipeline triggers and their
// requests.
func (s *Store) Triggers() ports.TriggerStore { return &triggerStore{s} }

// Hooks returns the store of projects' webhooks.
func (s *Store) Hooks() ports.HookStore { return &hookStore{s} }

// SystemHooks returns the store of the instance's system hooks.
func (s *Store) SystemHooks() ports.SystemHookStore { return &systemHookStore{s} }

// HookRouter returns the lookup of the hooks an event goes to.
func (s *Store) HookRouter() ports.HookRouter { return &hookRouter{s} }

// HookEvents returns the changes waiting to be fanned out to deliveries.
func (s *Store) HookEvents() ports.HookEventStore { return &hookEventStore{s} }

// HookDeliveries returns the webhook outbox.
func (s *Store) HookDeliveries() ports.HookDeliveryStore { return &hookDeliveryStore{s} }

// BroadcastMessages returns the store of the instance's broadcast
// messages.
func (s *Store) BroadcastMessages() ports.BroadcastMessageStore { return &broadcastStore{s} }

// Artifacts returns the store of jobs' artifact records.
func (s *Store) Artifacts() ports.ArtifactStore { return &artifactStore{s} }

// Tx returns the transaction manager shared by every store of s.
func (s *Store) Tx() ports.TxManager { return s.tx }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("bunstore: ping: %w", err)
	}
	return nil
}

// Conn is the transaction ctx carries (from ports.TxManager.WithinTx), or
// the database when it carries none. A store of another module's own
// tables, built over the same *bun.DB, writes through Conn to join
// Hearth's transactions: its rows commit or roll back with Hearth's.
func (s *Store) Conn(ctx context.Context) bun.IDB {
	if f := s.tx.frame(ctx); f != nil {
		return f.tx
	}
	return s.db
}

// inTx runs fn in a transaction: a savepoint of the caller's when ctx carries
// one, a new transaction otherwise. Multi-statement writes and
// read-modify-write use it.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, db bun.IDB) error) error {
	return s.tx.WithinTx(ctx, func(ctx context.Context) error { return fn(ctx, s.Conn(ctx)) })
}

// guarded runs one statement that may violate a constraint. Outside a
// transaction it runs directly (autocommit, one round trip). Inside one it
// runs in a savepoint, because on Postgres a failed statement aborts the
// whole transaction, and callers may handle the conflict and carry on.
func (s *Store) guarded(ctx context.Context, fn func(ctx context.Context, db bun.IDB) error) error {
	if s.tx.frame(ctx) == nil {
		return fn(ctx, s.db)
	}
	return s.inTx(ctx, fn)
}

// insert adds row in one guarded statement. returning names the columns
// the database generates and row reads back ("id"); keyed rows pass none.
// mapErr (nil: none) maps a failure.
func (s *Store) insert(ctx context.Context, row any, mapErr func(error) error, returning ...string) error {
	return s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
		q := db.NewInsert().Model(row)
		for _, col := range returning {
			q = q.Returning(col)
		}
		_, err := q.Exec(ctx)
		if err != nil && mapErr != nil {
			err = mapErr(err)
		}
		return err
	})
}

var _ ports.Pinger = (*Store)(nil)
