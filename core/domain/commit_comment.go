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
