package ports

import (
	"context"
	"io"

	"github.com/hearth-forge/hearth/core/domain"
)

// DeployKeyStore keeps deploy keys and the projects they are enabled for.
// Deploy keys share the fingerprint space of users' keys (KeyStore): a
// fingerprint is taken once across both.
type DeployKeyStore interface {
	// Create inserts k, sets k.ID and enables it for projectID, in one
	// transaction. A fingerprint taken by any key, a user's or a deploy
	// key, is core.ErrConflict with Fields {"fingerprint": ["has already
	// been taken"]}; an unknown project is core.ErrNotFound.
	Create(ctx context.Context, k *domain.DeployKey, projectID int64) error
	// Get returns the deploy key; core.ErrNotFound when absent.
	Get(ctx context.Context, id int64) (*domain.DeployKey, error)
	// ByFingerprint returns the deploy key with this fingerprint;
	// core.ErrNotFound when none (users' keys are not deploy keys).
	ByFingerprint(ctx context.Context, fingerprint string) (*domain.DeployKey, error)
	// List returns every deploy key ordered by ID, and the total.
	List(ctx context.Context, p domain.Page) ([]domain.DeployKey, int, error)
	// ListByProject returns the keys enabled for the project ordered by
	// ID, and the total.
	ListByProject(ctx context.Context, projectID int64, p domain.Page) ([]domain.DeployKey, int, error)
	// InProject returns the key when it is enabled for the project;
	// core.ErrNotFound otherwise.
	InProject(ctx context.Context, projectID, id int64) (*domain.DeployKey, error)
	// Enable enables the key for the project (nothing to do when it is);
	// core.ErrNotFound for an unknown key or project.
	Enable(ctx context.Context, projectID, id int64) error
	// Disable removes the key from the project, and deletes the key when
	// no project is left (GitLab destroys orphaned keys); core.ErrNotFound
	// when it was not enabled there.
	Disable(ctx context.Context, projectID, id int64) error
	// Update applies fn to the key (title, can_push) and saves it;
	// core.ErrNotFound when absent, fn's error as it is.
	Update(ctx context.Context, id int64, fn func(*domain.DeployKey) error) (*domain.DeployKey, error)
	// Projects lists the IDs of the projects the key is enabled for,
	// ascending.
	Projects(ctx context.Context, id int64) ([]int64, error)
}

// KeyAuthenticator signs in SSH clients by public key.
type KeyAuthenticator interface {
	// PublicKey returns the caller the key signs in: a user key's user,
	// or a deploy key (Caller.DeployKey with its projects, User nil).
	// key is the public key in SSH wire format; it must equal the stored
	// key byte for byte, not only share its fingerprint. An unknown key, a
	// blocked user's key, or a deploy key enabled nowhere is
	// core.ErrUnauthenticated.
	PublicKey(ctx context.Context, key []byte) (*domain.Caller, error)
}

// GitShell runs what an SSH client asks once its key signed it in: git's
// upload-pack, receive-pack and upload-archive, with the same access
// rules as git over HTTP.
type GitShell interface {
	// Welcome is the text `ssh git@host` prints without a command
	// ("Welcome to Hearth, @root!\n").
	Welcome(caller *domain.Caller) string
	// Run runs command as the client sent it (git-upload-pack
	// 'group/project.git'). protocol is the client's GIT_PROTOCOL
	// environment ("" when none), stdin the channel's input, stdout and
	// stderr its streams. It returns the exit status to report: 0 when
	// git succeeded, non-zero when the command is not allowed or failed,
	// after writing a message for the user to stderr ("GitLab: ...").
	Run(ctx context.Context, caller *domain.Caller, command, protocol string, stdin io.Reader, stdout, stderr io.Writer) int
}

// SessionTransport is implemented by git backends that can serve a
// whole full-duplex session of git's smart protocol, as SSH carries it:
// the advertisement, then negotiation, on one connection (git upload-pack
// and upload-archive without --stateless-rpc). service is
// "git-upload-pack" or "git-upload-archive"; protocol is the client's
// GIT_PROTOCOL. Pushes over SSH go through RepoTransport and
// CheckedReceiver, whose stateless form is the same exchange.
type SessionTransport interface {
	ServeSession(ctx context.Context, repo, service, protocol string, in io.Reader, out io.Writer) error
}
