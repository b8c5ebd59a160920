// Package adapters holds the implementations of core's ports, one package
// per technology:
//
//	adapters/storage/bunstore   every store port and ports.TxManager over bun
//	adapters/storage/sqlite     opens the database on SQLite (the default)
//	adapters/storage/postgres   opens it on Postgres (row locks, advisory-locked migrations)
//	adapters/storage/literals   bun's inline values back into parameters, for both statement caches
//	adapters/git/gitcli         ports.RepoBackend over the git CLI (the default)
//	adapters/git/gogit          ports.RepoBackend in pure Go over go-git
//	adapters/git/gitobject      git object formats, refs, readers and tree building both backends share
//	adapters/git/gitdisk        the repository layout on disk both backends share
//	adapters/git/gitinput       the request checks both backends share
//	adapters/git/gitnames       the names both backends accept
//	adapters/ciconfig           ports.PipelineConfigParser: .gitlab-ci.yml over yaml.Node, with limits
//	adapters/blob               ports.BlobStore over gocloud.dev/blob (file://, s3://, gs://)
//	adapters/bus/inproc         ports.EventBus in process
//	adapters/secrets            ports.PasswordHasher (argon2id) and ports.TokenGenerator
//	adapters/webhook/netguard   the SSRF guard for webhook URLs (ports.URLGuard, wired in app) and their deliveries
//	adapters/webhook/sender     ports.HookSender: one webhook POST through the guard
//	adapters/metrics            Prometheus: Hearth's registry, the /-/metrics handler and its client guard
//	adapters/ratelimit          ports.RateLimiter: token buckets per key over golang.org/x/time/rate, and
//	                            ports.Bans for failed git sign-ins; per node
//	adapters/ssh/sshserver      the SSH server (git over SSH): signs keys in through ports.KeyAuthenticator
//	                            and runs commands through ports.GitShell, which the app wires in
//
// An adapter imports core and its own technology, never a module or the
// app. The app chooses adapters at run time from configuration through
// explicit maps (storage.driver: "sqlite", "postgres"; git.backend:
// "gitcli", "gogit"), never by build tags or init registration, so one
// `go test ./...` exercises them all.
//
// # Writing an adapter
//
// Implement the ports of core/ports that your technology serves, with the
// error kinds their doc comments name (core.ErrNotFound, core.ErrConflict
// with field messages, core.ErrStale for a lost compare-and-swap ...), and
// end each file with a compile-time check:
//
//	var _ ports.UserStore = (*userStore)(nil)
//
// Then prove it with the conformance suites of package contracttests, from
// your adapter's own _test.go (see `go doc ./contracttests`). A storage
// adapter passes RunStoreSuite; a git backend RunRepoSuite. To make the app
// use it, add it to the map in app/app.go (storageDrivers, gitBackends).
//
// A store of another module's own tables can join Hearth's transactions:
// bunstore.Store.Conn(ctx) is the transaction ports.TxManager.WithinTx
// carries (see app/example_embed_test.go).
package adapters
