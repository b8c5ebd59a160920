package domain

import (
	"strings"
	"time"
)

// PushEvent is published after refs of a project moved, by git over HTTP
// or through the API (branch and tag creation and deletion, commits,
// cherry-picks, merges). One event per ref. Before is ZeroID for a new ref,
// After is ZeroID for a deleted one. Commits are the newest first, at most
// 20 of them (GitLab's push data limit); TotalCommits counts them all.
type PushEvent struct {
	ProjectID    int64
	Actor        int64
	Ref          string // full name: refs/heads/x or refs/tags/x
	Before       string
	After        string
	Commits      []PushCommit
	TotalCommits int
	At           time.Time
}

func (PushEvent) EventName() string { return "repository.push" }

// ZeroID is git's all-zero object name: as an expected old value it means
// "the ref must not exist", as a new value "delete the ref".
const ZeroID = "0000000000000000000000000000000000000000"

// Ref name prefixes.
const (
	BranchPrefix = "refs/heads/"
	TagPrefix    = "refs/tags/"
)

// Signature is an author, committer or tagger line.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a commit object.
type Commit struct {
	ID        string
	TreeID    string
	ParentIDs []string // never nil: [] for a root commit
	Author    Signature
	Committer Signature
	Message   string // the full message, as stored
}

// Title is the first line of the message, as GitLab shows it.
func (c Commit) Title() string {
	t, _, _ := strings.Cut(c.Message, "\n")
	return strings.TrimRight(t, "\r")
}

// ShortID is GitLab's 8-character abbreviation.
func (c Commit) ShortID() string {
	if len(c.ID) < 8 {
		return c.ID
	}
	return c.ID[:8]
}

// CommitStats counts changed lines against the first parent (the empty
// tree for a root commit), as `git diff --numstat`; binary files count 0.
type CommitStats struct {
	Additions int
	Deletions int
}

// Branch is a ref under refs/heads/ and the commit it points at.
type Branch struct {
	Name   string // without refs/heads/
	Commit Commit
}

// Tag is a ref under refs/tags/. Annotated tags carry a tag object.
type Tag struct {
	Name     string // without refs/tags/
	TargetID string // what the ref points at: the tag object, or the commit
	// Message is the annotation of an annotated tag (nil for a lightweight
	// one), without the trailing newline git stores.
	Message *string
	Tagger  *Signature
	Commit  Commit // the commit the tag peels to
}

// TreeEntry is one entry of a tree listing.
type TreeEntry struct {
	ID   string
	Name string // base name
	Path string // full path from the repository root
	Type string // "blob", "tree" or "commit" (submodule)
	Mode string // octal, as git prints it: "100644", "040000", "160000", ...
}

// File is a blob read at a path of a revision.
type File struct {
	Path         string
	Name         string
	BlobID       string
	Mode         string
	Size         int64
	Content      []byte
	CommitID     string // the commit the revision resolved to
	LastCommitID string // the newest commit reachable from CommitID that changed Path
}

// Blob is a blob read by its object name.
type Blob struct {
	ID      string
	Size    int64
	Content []byte
}

// FileDiff is one file of a diff between two commits, in GitLab's shape:
// Diff is the unified text from the first "@@" hunk header on, as git
// prints it with default context (3 lines), rename detection (50%) and
// "Binary files a/x and b/y differ" for binary content; empty for a pure
// rename or mode change.
type FileDiff struct {
	OldPath     string
	NewPath     string
	AMode       string // "0" for a new file
	BMode       string // "0" for a deleted file
	NewFile     bool
	RenamedFile bool
	DeletedFile bool
	Binary      bool
	Diff        string
	Additions   int
	Deletions   int
}

// LogQuery selects commits for Log and CountCommits, newest first in
// git's default (reverse chronological, topology-respecting) order.
type LogQuery struct {
	Ref     string   // revision to start from (branch, tag, SHA)
	Exclude []string // revisions whose history is left out (the "^x" of rev-list)
	Path    string   // only commits touching this path ("" = all)
	Since   *time.Time
	Until   *time.Time // inclusive bounds on the committer date
	Skip    int
	Limit   int // 0 = no limit
}

// FileAction is one change of a multi-file commit.
type FileAction struct {
	Action       string // FileCreate, FileUpdate, FileDelete, FileMove
	Path         string
	PreviousPath string // FileMove only
	// Content is the new content (already base64-decoded); nil with
	// FileMove keeps the moved file's content.
	Content []byte
}

// File actions of a multi-file commit.
const (
	FileCreate = "create"
	FileUpdate = "update"
	FileDelete = "delete"
	FileMove   = "move"
)

// CommitFiles asks a backend for one commit applying Actions to Branch.
type CommitFiles struct {
	Branch string // without refs/heads/
	// StartBranch, when Branch does not exist yet, is the branch it starts
	// from ("" = Branch must exist, unless the repository is empty).
	StartBranch string
	// ExpectedHead, when set, is the head Branch must still have (ZeroID:
	// Branch must not exist); otherwise the head read at the start is used
	// as the compare-and-swap value.
	ExpectedHead string
	Message      string
	Author       Signature
	Committer    Signature
	Actions      []FileAction
}

// MergeSpec asks a backend to merge Theirs into Ours without a worktree.
type MergeSpec struct {
	Ours      string // commit SHA (the target)
	Theirs    string // commit SHA (the source)
	Message   string
	Author    Signature
	Committer Signature
	// DryRun only reports conflicts; no object is written.
	DryRun bool
}

// MergeResult is the outcome of a merge or cherry-pick. When Conflicts is
// not empty nothing was written and CommitID is "".
type MergeResult struct {
	CommitID  string
	TreeID    string
	Conflicts []string // paths in conflict, sorted, each once
}

// PushCommit is one commit of a push event's payload.
type PushCommit struct {
	ID        string
	Message   string
	Timestamp time.Time
	Author    Signature
}

// RefUpdate is one ref a push asks to move. OldID is ZeroID for a new ref,
// NewID ZeroID for a deletion. FastForward tells whether OldID is an
// ancestor of NewID (true for creations, false for deletions).
type RefUpdate struct {
	Ref         string
	OldID       string
	NewID       string
	FastForward bool
}
