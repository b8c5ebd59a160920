// Package bunstore implements Hearth's store ports (one per Store method:
// users, namespaces, projects, issues, merge requests ...), the transaction
// manager and the readiness pinger over github.com/uptrace/bun, for both
// SQLite and Postgres.
//
// The domain has no database tags, so every table has a private row struct
// here with bun tags and two mapping functions. Times are stored in UTC with
// microsecond precision (what Postgres keeps), so a value reads back exactly
// as it was written on either dialect; dates are UTC midnights.
//
// # Transactions
//
// Store.Tx returns a ports.TxManager that carries the transaction in the
// context. Every store method uses that transaction when the context has one.
// A nested WithinTx joins the outer transaction inside a SAVEPOINT: when the
// nested function fails, only its own writes (and AfterCommit callbacks) are
// undone and the outer transaction stays usable. Store methods that can fail
// on a constraint use the same savepoint when called inside a transaction, so
// a conflict leaves a Postgres transaction usable exactly as it does on SQLite.
// Inside WithinTx, pass the ctx fn receives to every store call: a write
// through the outer context would wait for the transaction's own lock on
// SQLite. A transaction must not be used from several goroutines at once.
//
// Case-insensitive uniqueness and matching use lower(), which folds ASCII
// only on SQLite and all of Unicode on Postgres.
//
// Read-modify-write (UserStore.Update) always runs in a transaction. SQLite
// serialises writers with immediate transactions; Postgres needs row locks,
// which WithRowLocks turns on (SELECT ... FOR NO KEY UPDATE, the row lock an
// UPDATE that keeps the key takes, so concurrent inserts referencing the row
// are not blocked).
//
// # Writing a store
//
// Stores differ in their queries, not in how they run them, so each keeps
// only its own SQL and error context and leaves the rest to shared
// helpers:
//
//   - table (rows.go) ties a row struct to its domain value and to the name
//     a missing row has: get (one row or core.ErrNotFound), list, page (the
//     count, then one page), byIDs, save, deleteOne, mustExist, moveForward.
//   - modify (modify.go) is the read-modify-write behind every Update: the
//     row read under forUpdate's lock, the caller's function on a copy,
//     the store's save, the caller's error returned as is.
//   - Store.insert adds a row in one guarded statement; parentErr and
//     takenErr (errors.go) map its violations to GitLab's errors.
//   - issuable (issuable.go) is what issues and merge requests share:
//     per-project numbering (nextIID, milestones use it too), reads with
//     the notes count, votes and labels, deletion with the rows that hang
//     on them, and the list filters.
//   - whereSet, whereContains (filters.go) and whereReadable (scope.go)
//     build the list filters; countBy the grouped counts.
//
// # Namespaces, projects and memberships
//
// namespaces.full_path is denormalised so lookups by path are one indexed
// query. NamespaceStore.Update recomputes it for the whole subtree in one
// recursive UPDATE in the transaction that renames or moves a group; on
// Postgres it first locks the subtree, and Create holds a share lock on the
// parent it read, so a subgroup created during a rename never keeps the old
// prefix. Moves take an advisory lock so two concurrent moves cannot form a
// cycle together. Tree walks (Ancestors, AncestorIDs, Descendants) are one
// recursive CTE each, for any number of IDs.
//
// Memberships point at a project or a group (source, source_id) and so have
// no foreign key to their source: ProjectStore.Delete, NamespaceStore.Delete
// (for every namespace and project of the subtree) and UserStore.Delete (for
// the personal namespace) delete them in the same transaction. Shares, stars
// and projects go by ON DELETE CASCADE; forks of a deleted project stay with
// forked_from_id cleared.
//
// projects.star_count and forks_count move only through single UPDATE
// statements (x = x + delta): Star inserts with ON CONFLICT DO NOTHING and
// bumps the count in the same transaction only when a row went in, so the
// count is exact under any concurrency; ProjectStore.Update never writes the
// counters back. Read scopes (domain.ReadScope) become one WHERE clause
// shared by project lists and the events feed; ID lists are inlined by bun,
// so no driver parameter limit applies.
//
// # CI
//
// Pipelines, jobs (CI jobs and commit statuses share ci_jobs), runners,
// variables and artifact records are rows like any other; three things
// are particular (jobqueue.go, jobtrace.go):
//
//   - JobStore.Claim hands a pending job to exactly one runner. On
//     Postgres it locks the oldest matching candidate with FOR UPDATE
//     SKIP LOCKED in the transaction that moves it to running, so
//     concurrent claims on any number of nodes take different jobs
//     without waiting; on SQLite (one writer at a time) a compare-and-swap
//     UPDATE ... WHERE status = 'pending' takes it, and a lost race moves
//     on to the next candidate. Candidates come from ci_jobs_pending_idx
//     (a partial index of pending CI jobs that carries their tags and
//     protected flag) for the runner's projects only, and tags are matched
//     from the job's JSON array, so a claim costs the same with 10,000
//     jobs waiting elsewhere (TestClaimPlans, BenchmarkClaim*).
//   - The queue version runners send back as last_update moves whenever a
//     job becomes pending: a counter row in the transaction on SQLite, a
//     sequence after commit on Postgres (no lock shared by every
//     transaction that queues a job).
//   - A running job's trace is one row per append in ci_trace_chunks;
//     AppendTrace moves ci_jobs.trace_size from the offset it was given in
//     one compare-and-swap UPDATE, so of two appends at the same offset
//     exactly one wins. JobStore.Update never writes trace_size back.
//
// # Migrations
//
// Migrations are SQL files embedded from the migrations directory and applied
// by github.com/uptrace/bun/migrate. There is one ID sequence for both
// dialects: each migration is one file, rendered with text/template before it
// runs, so dialect differences are spelled out only where the DDL differs:
//
//	{{.ID}}        the id column: INTEGER PRIMARY KEY AUTOINCREMENT (SQLite)
//	               or BIGSERIAL PRIMARY KEY (Postgres)
//	{{.Time}}      a timestamp column: TIMESTAMP (SQLite, UTC text) or TIMESTAMPTZ
//	{{if .Postgres}} ... {{else}} ... {{end}}   anything else that differs
//
// To add a migration (a module's tables, a new column):
//
//  1. Add migrations/NNNN_name.tx.up.sql with the next number: 0003_projects.tx.up.sql.
//     The ".tx" suffix runs the whole file in one transaction.
//  2. Write portable SQL with {{.ID}} and {{.Time}}; separate statements with
//     a line "--bun:split"; prefer CREATE ... IF NOT EXISTS.
//  3. Name unique indexes <table>_<what>_key and teach takenField (errors.go)
//     which GitLab field each guards, so violations map to the field map.
//  4. Add the row struct, its table (tableOf) and the store in a file of
//     their own (projects.go) with its compile-time port check, and run
//     RunStoreSuite on both dialects.
//
// Never edit a migration that has shipped: add another. TestMigrationsRender
// checks that every file is numbered in sequence and renders for both
// dialects. Applied migrations are recorded in hearth_migrations; Migrate is
// idempotent. On Postgres, Migrate holds a
// transaction-scoped advisory lock (keyed by the current schema) on one
// dedicated connection while it runs, so several nodes may start at once. On
// SQLite one process owns the database file.
//
// # Errors
//
// Driver errors become core error kinds: no rows is core.ErrNotFound, a
// unique violation is core.ErrConflict with the GitLab field map (for example
// {"email": ["has already been taken"]}), a foreign-key violation (an unknown
// user) is core.ErrNotFound. Both modernc.org/sqlite and pgx errors are
// recognised.
package bunstore
