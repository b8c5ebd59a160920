package domain

import "time"

// CommitComment is a note on a commit, optionally on one line of a file.
type CommitComment struct {
	ID        int64
	ProjectID int64
	CommitID  string // full SHA
	AuthorID  int64
	Note      string
	Path      *string
	Line      *int
	LineType  *string // "new" or "old"
	CreatedAt time.Time
}

// CommitCommentCreated is published inside the transaction that stored a
// comment on a commit (webhooks send it as a note on a commit). It is not
// a NoteEvent: commit comments are no notes, and the feed does not record
// them.
type CommitCommentCreated struct {
	Comment CommitComment
	Actor   int64
}

func (CommitCommentCreated) EventName() string { return "commit_comment.created" }
