package domain

import "time"

// Snippet is a project's snippet of code, or a user's personal one
// (ProjectID 0).
type Snippet struct {
	ID          int64
	ProjectID   int64
	Title       string
	FileName    string
	Description string
	Content     string
	Visibility  Visibility
	AuthorID    int64
	ExpiresAt   *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// Recorded at creation for spam checks (user_agent_detail).
	UserAgent        string
	IPAddress        string
	AkismetSubmitted bool
}

// SnippetFilter selects a project's snippets (the personal ones when
// ProjectID is 0) a reader may see: those with one of Visibilities, plus
// the reader's own (AuthorID).
type SnippetFilter struct {
	ProjectID    int64
	Visibilities []Visibility
	AuthorID     int64
	Page         Page
}
