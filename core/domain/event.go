package domain

import "time"

// Event actions, as GitLab's action_name and the `action` filter use them.
const (
	ActionCreated   = "created"
	ActionUpdated   = "updated"
	ActionClosed    = "closed"
	ActionReopened  = "reopened"
	ActionPushed    = "pushed"
	ActionCommented = "commented"
	ActionMerged    = "merged"
	ActionJoined    = "joined"
	ActionLeft      = "left"
	ActionDestroyed = "destroyed"
	ActionExpired   = "expired"
)

// Event target types as GitLab names them in responses.
const (
	TargetIssue        = "Issue"
	TargetMilestone    = "Milestone"
	TargetMergeRequest = "MergeRequest"
	TargetNote         = "Note"
	TargetProject      = "Project"
	TargetSnippet      = "Snippet"
	TargetUser         = "User"
)

// Event is one entry of the activity feed.
type Event struct {
	ID          int64
	ProjectID   *int64
	AuthorID    int64
	Action      string
	TargetID    *int64
	TargetType  string // "" when the event has no target
	TargetTitle string
	Title       string
	// Data is the JSON payload of push events (nil otherwise).
	Data []byte
	// NoteID links "commented on" events to their note.
	NoteID *int64
	// Confidential marks events about confidential issues (and notes on
	// them): feeds show them only to readers who may see the issue.
	Confidential bool
	CreatedAt    time.Time
}

// EventFilter selects feed events. Zero values mean "no filter". Before and
// After are exclusive bounds on CreatedAt, as in GitLab's events finder.
// Lists are ordered by CreatedAt then ID, newest first unless Ascending.
type EventFilter struct {
	AuthorID   int64
	ProjectID  int64
	Action     string
	TargetType string // GitLab name, e.g. "MergeRequest"
	Before     *time.Time
	After      *time.Time
	Ascending  bool
	// Readable limits project events to projects the reader may read
	// (joined against the projects table). Events without a project are
	// always included.
	Readable ReadScope
	// Viewer hides confidential events the reader may not see.
	Viewer IssueViewer
	// Code limits events that show code or merge requests (pushes, merge
	// requests and notes on them) to projects whose code the reader may
	// read: guests of private projects do not see them. Ignored when
	// Readable.All; nil means no such limit.
	Code *ReadScope
	Page Page
}
