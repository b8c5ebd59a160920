package domain

import "time"

// Todo actions (action_name).
const (
	TodoAssigned          = "assigned"
	TodoMentioned         = "mentioned"
	TodoBuildFailed       = "build_failed"
	TodoMarked            = "marked"
	TodoApprovalRequired  = "approval_required"
	TodoUnmergeable       = "unmergeable"
	TodoDirectlyAddressed = "directly_addressed"
)

// Todo states.
const (
	TodoPending = "pending"
	TodoDone    = "done"
)

// Todo is an item on a user's to-do list about an issue or merge request.
type Todo struct {
	ID         int64
	UserID     int64 // whose list
	ProjectID  int64
	AuthorID   int64  // who caused it
	TargetType string // TargetIssue or TargetMergeRequest
	TargetID   int64
	Action     string
	State      string
	Body       string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// TodoFilter selects a user's todos.
type TodoFilter struct {
	UserID     int64
	Action     string
	AuthorID   int64
	ProjectID  int64
	State      string // "" = pending, as GitLab's default
	TargetType string
	Page       Page
}
