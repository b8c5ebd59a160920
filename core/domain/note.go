package domain

import "time"

// NoteEvent is published inside the transaction that created a user
// note (GitLab's "commented on"). Confidential is set for notes on
// confidential issues, so feeds can hide them.
type NoteEvent struct {
	Note         Note
	Actor        int64
	Confidential bool
}

func (NoteEvent) EventName() string { return "note.created" }

// Note is a comment, or a system note recording a change, on an issue,
// merge request, snippet or commit.
type Note struct {
	ID           int64
	ProjectID    *int64
	NoteableType string // TargetIssue, TargetMergeRequest, TargetSnippet, "Commit"
	NoteableID   int64
	AuthorID     int64
	Body         string
	System       bool
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// NoteQuery selects one page of a noteable's notes in an order.
type NoteQuery struct {
	NoteableType string
	NoteableID   int64
	ByUpdated    bool // order by updated_at instead of created_at
	Descending   bool
	Page         Page
}
