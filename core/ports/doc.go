// Package ports declares the interfaces at Hearth's real seams: one store
// per aggregate (users.go, projects.go, issues.go ...), the transaction
// manager, the git backend (split into RepoStorage, RepoReader, RepoWriter
// and RepoTransport so a module asks for no more than it uses), the event
// bus, the clock and secret handling.
//
// Every method takes ctx first, domain types in and out, and its doc
// comment names the core error kind (core.ErrNotFound, core.ErrConflict,
// ...) of each failure. Read-modify-write goes through an update function
// so the adapter owns locking: Update(ctx, id, func(*domain.X) error).
//
// Who provides what: the app wires every store from one storage adapter
// (adapters/storage/bunstore over SQLite or Postgres), the git ports from
// one git adapter (adapters/git/gitcli or gogit), the bus from
// adapters/bus/inproc, PasswordHasher and TokenGenerator from
// adapters/secrets, RateLimiter and Bans from adapters/ratelimit; the
// doctor's SchemaInspector and BlobReferences come from bunstore,
// RepoChecker from the git backend; DatabaseBackup from the storage
// adapter and RepoBundler from both git adapters (for the backup module);
// Authenticator is
// the users module's, Settings (the cached application settings that
// projects, groups, snippets and users read, optionally) the settings
// module's. The SSH server (adapters/ssh/sshserver) uses two
// ports that modules provide: KeyAuthenticator (deploykeys) and GitShell
// (repository). contracttests holds every adapter to these contracts.
package ports
