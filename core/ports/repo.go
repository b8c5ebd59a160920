package ports

import (
	"context"
	"io"

	"github.com/hearth-forge/hearth/core/domain"
)

// RepoBackend stores git repositories, named by a relative path chosen by
// the caller (projects use "projects/<id>.git", so renames and transfers
// never move files). Two adapters implement it (gitcli, gogit) and must give
// the same answers: contracttests.RunRepoSuite holds them to it.
//
// Common errors: a hostile or malformed repository name, ref, revision or
// path (leading "-", "..", control bytes, NUL, "refs/heads/x" where a short
// name is due) is core.ErrInvalid before git sees it; a missing repository
// is core.ErrNotFound. Writes are durable (objects and refs fsynced) and no
// git process runs with an operator's or user's git configuration.
type RepoBackend interface {
	RepoStorage
	RepoReader
	RepoWriter
	RepoTransport
}

// RepoStorage creates and removes whole repositories.
type RepoStorage interface {
	// Create makes an empty bare repository whose HEAD names defaultBranch;
	// core.ErrConflict when it exists.
	Create(ctx context.Context, repo string, defaultBranch string) error
	// Delete removes the repository; absent repositories are not an error.
	Delete(ctx context.Context, repo string) error
	// Fork copies every ref and object of src into a new repository dst;
	// core.ErrNotFound when src is missing, core.ErrConflict when dst exists.
	Fork(ctx context.Context, src, dst string) error
	// Exists reports whether the repository is there.
	Exists(ctx context.Context, repo string) (bool, error)
	// Stats returns the repository's size in bytes and the number of commits
	// reachable from ref (0 for an empty repository or unknown ref).
	Stats(ctx context.Context, repo, ref string) (size int64, commits int, err error)
}

// RepoReader reads refs and objects. A revision ("rev") is a full or
// abbreviated (at least 4 hex digits) commit SHA, a branch name, a tag name
// or a full ref name; a branch wins over a tag of the same name. Unknown
// revisions, paths and objects are core.ErrNotFound.
type RepoReader interface {
	// DefaultBranch is the branch HEAD names (it may not exist yet).
	DefaultBranch(ctx context.Context, repo string) (string, error)
	// IsEmpty reports whether the repository has no refs at all.
	IsEmpty(ctx context.Context, repo string) (bool, error)
	// Resolve returns the commit SHA rev names (tags are peeled).
	Resolve(ctx context.Context, repo, rev string) (string, error)
	// Branches lists every branch sorted by name (byte order), with its commit.
	Branches(ctx context.Context, repo string) ([]domain.Branch, error)
	// Branch reads one branch by its short name.
	Branch(ctx context.Context, repo, name string) (domain.Branch, error)
	// Tags lists every tag sorted by name (byte order), peeled to commits.
	Tags(ctx context.Context, repo string) ([]domain.Tag, error)
	// Tag reads one tag by its short name.
	Tag(ctx context.Context, repo, name string) (domain.Tag, error)
	// Commit reads the commit rev resolves to.
	Commit(ctx context.Context, repo, rev string) (domain.Commit, error)
	// Log lists commits reachable from q.Ref, newest first, honouring
	// Exclude, Path, Since, Until, Skip and Limit. An unknown Ref is
	// core.ErrNotFound; an empty result is not an error.
	Log(ctx context.Context, repo string, q domain.LogQuery) ([]domain.Commit, error)
	// CountCommits counts what Log would list without Skip and Limit.
	CountCommits(ctx context.Context, repo string, q domain.LogQuery) (int, error)
	// Contributors groups the newest limit (0 = all) non-merge commits
	// reachable from rev, in Log's order, by author (domain.ContributorTally):
	// git log --no-merges --max-count=limit. The history streams through
	// the tally; it is never held whole. An unknown rev is core.ErrNotFound.
	Contributors(ctx context.Context, repo, rev string, limit int) ([]domain.Contributor, error)
	// Stats of one commit against its first parent.
	CommitStats(ctx context.Context, repo, sha string) (domain.CommitStats, error)
	// Tree lists the tree at path ("" = root) of rev, directories first then
	// files, each group sorted by name; recursive lists every descendant
	// (trees included) in the same order, depth first. A path that is not
	// a directory is core.ErrNotFound.
	Tree(ctx context.Context, repo, rev, path string, recursive bool) ([]domain.TreeEntry, error)
	// File reads the blob at path of rev (core.ErrNotFound when path is
	// missing or a directory).
	File(ctx context.Context, repo, rev, path string) (domain.File, error)
	// Blob reads a blob by its full or abbreviated object name.
	Blob(ctx context.Context, repo, sha string) (domain.Blob, error)
	// Diff compares two commits (from "" = to's first parent, or the empty
	// tree for a root commit), sorted by new path (old path for deletions).
	Diff(ctx context.Context, repo, from, to string) ([]domain.FileDiff, error)
	// MergeBase is the best common ancestor of a and b ("" when unrelated).
	MergeBase(ctx context.Context, repo, a, b string) (string, error)
	// IsAncestor reports whether ancestor is reachable from descendant (a
	// commit is its own ancestor).
	IsAncestor(ctx context.Context, repo, ancestor, descendant string) (bool, error)
	// MergedBranches lists, sorted by name, the branches whose heads are
	// reachable from rev (git for-each-ref --merged): one walk for all
	// branches, where IsAncestor per branch would walk once per branch.
	MergedBranches(ctx context.Context, repo, rev string) ([]string, error)
	// Archive writes the tree of rev as format "tar.gz", "tar.bz2", "tar"
	// or "zip" (core.ErrInvalid otherwise), every path under prefix + "/".
	Archive(ctx context.Context, repo, rev, format, prefix string, w io.Writer) error
}

// RepoWriter writes objects and moves refs. Moving a ref is always a
// compare-and-swap: when the ref does not hold the expected old value the
// write is core.ErrStale and nothing moved.
type RepoWriter interface {
	// SetDefaultBranch points HEAD at an existing branch (core.ErrNotFound).
	SetDefaultBranch(ctx context.Context, repo, branch string) error
	// UpdateRef moves the full ref name ("refs/heads/x", "refs/tags/x") from
	// oldID (domain.ZeroID: must not exist) to newID (domain.ZeroID:
	// delete). Branches must point at commits (core.ErrInvalid otherwise);
	// an unknown newID is core.ErrNotFound.
	UpdateRef(ctx context.Context, repo, ref, newID, oldID string) error
	// CommitFiles writes one commit applying every action to the branch
	// head, and moves the branch to it, or does nothing. Errors carry
	// GitLab's messages as core.ErrInvalid: "A file with this name already
	// exists" (create, or move onto an existing path), "A file with this
	// name doesn't exist" (update, delete, move of a missing path), "You can
	// only create or edit files when you are on a branch" (unknown branch
	// in a non-empty repository without StartBranch). A branch that moved
	// meanwhile is core.ErrStale. The new commit is returned.
	CommitFiles(ctx context.Context, repo string, req domain.CommitFiles) (domain.Commit, error)
	// CreateTag makes refs/tags/name point at target (a rev); a non-empty
	// message makes an annotated tag signed by tagger. An existing tag is
	// core.ErrConflict.
	CreateTag(ctx context.Context, repo, name, target, message string, tagger domain.Signature) (domain.Tag, error)
	// Merge writes a merge commit of req.Theirs into req.Ours (parents in
	// that order) without moving any ref. Conflicts are not an error: they
	// come back in the result and nothing is written.
	Merge(ctx context.Context, repo string, req domain.MergeSpec) (domain.MergeResult, error)
	// CherryPick writes a commit applying the change of sha (against its
	// first parent; merge commits are core.ErrInvalid) on top of onto,
	// keeping the author and message, with committer as committer. No ref
	// moves. Conflicts, or a change already present (empty result), come
	// back as Conflicts / core.ErrInvalid respectively.
	CherryPick(ctx context.Context, repo, sha, onto string, committer domain.Signature) (domain.MergeResult, error)
}

// RepoTransport serves git's smart protocol (stateless RPC, as over HTTP).
// service is "git-upload-pack" or "git-receive-pack" (core.ErrInvalid
// otherwise); protocol is the client's Git-Protocol header ("" or
// "version=2"). A backend that cannot serve a service returns
// core.ErrNotAllowed with a message saying so.
type RepoTransport interface {
	// AdvertiseRefs writes the ref advertisement of service (the body of
	// GET info/refs after the "# service=" packet and flush, which the
	// caller writes).
	AdvertiseRefs(ctx context.Context, repo, service, protocol string, w io.Writer) error
	// ServeRPC runs one stateless request of service: in is the request body
	// (already gunzipped), the response is written to w.
	ServeRPC(ctx context.Context, repo, service, protocol string, in io.Reader, w io.Writer) error
}

// CheckedReceiver is implemented by backends that can hold a push between
// the arrival of its objects and the moving of its refs, which is where
// protected-branch rules that need the new objects (no force-push) are
// decided. The git HTTP handler uses it when the backend offers it.
type CheckedReceiver interface {
	// ReceivePack runs one stateless git-receive-pack request like
	// ServeRPC, calling check once with every ref update after the pushed
	// objects are stored (in quarantine) and before any ref moves. A non-nil
	// error from check rejects the whole push: no ref moves and the error's
	// message reaches the git client.
	ReceivePack(ctx context.Context, repo, protocol string, in io.Reader, w io.Writer, check PushCheck) error
}

// PushCheck decides whether a push may move its refs.
type PushCheck func(ctx context.Context, updates []domain.RefUpdate) error
