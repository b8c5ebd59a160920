package domain

import (
	"errors"
	"fmt"
	"time"
)

// Issue states (reopened counts as opened in filters).
const (
	IssueOpened   = "opened"
	IssueReopened = "reopened"
	IssueClosed   = "closed"
)

// Issue is an issue of a project's tracker.
type Issue struct {
	ID             int64
	IID            int64
	ProjectID      int64
	Title          string
	Description    string
	State          string // IssueOpened, IssueReopened or IssueClosed
	AuthorID       int64
	AssigneeID     *int64
	MilestoneID    *int64
	Labels         []string // sorted, unique
	Confidential   bool
	DueDate        *time.Time
	UserNotesCount int // filled by every read, like Upvotes and Downvotes
	Upvotes        int
	Downvotes      int
	// TimeStats are filled by every read and written only through
	// ports.TimeTrackingStore.
	TimeStats TimeStats
	CreatedAt time.Time
	UpdatedAt time.Time
	ClosedAt  *time.Time
}

// Open reports whether the issue is opened or reopened.
func (i *Issue) Open() bool { return i.State == IssueOpened || i.State == IssueReopened }

// ErrInvalidTransition is a state change the current state does not
// allow: closing what is closed, reopening what is open or merged. GitLab
// answers such a state_event by changing nothing.
var ErrInvalidTransition = errors.New("invalid state transition")

// Close closes an open issue at now.
func (i *Issue) Close(now time.Time) error {
	if !i.Open() {
		return fmt.Errorf("close a %s issue: %w", i.State, ErrInvalidTransition)
	}
	i.State, i.ClosedAt = IssueClosed, &now
	return nil
}

// Reopen reopens a closed issue.
func (i *Issue) Reopen() error {
	if i.State != IssueClosed {
		return fmt.Errorf("reopen a %s issue: %w", i.State, ErrInvalidTransition)
	}
	i.State, i.ClosedAt = IssueReopened, nil
	return nil
}

// IssueViewer says which confidential issues a reader may see: all of
// them (admins), those in projects where they are reporter or above
// (directly or through groups), and those they wrote or are assigned.
type IssueViewer struct {
	All          bool
	UserID       int64
	ProjectIDs   []int64
	NamespaceIDs []int64
}

// IssueFilter selects issues. Zero values mean no filter.
type IssueFilter struct {
	ProjectID int64
	// Readable limits to projects the reader may read issues of (used
	// when ProjectID is 0); projects with issues disabled are left out.
	Readable ReadScope
	// NamespaceIDs, when set, keeps the issues of projects directly in
	// these namespaces (a group and its subgroups; used when ProjectID is 0).
	NamespaceIDs []int64
	// Viewer hides the confidential issues the reader may not see.
	Viewer       IssueViewer
	IIDs         []int64
	States       []string // empty: all
	AuthorID     int64
	AssigneeID   int64
	MilestoneIDs []int64
	NoMilestone  bool
	// MilestoneTitle, when set, keeps issues whose milestone has this
	// title, whatever its project (lists across projects).
	MilestoneTitle string
	Labels         []string // every one of them
	NoLabels       bool
	Search         string // in title or description
	CreatedAfter   *time.Time
	CreatedBefore  *time.Time
	OrderBy        string // created_at (default) or updated_at
	Ascending      bool
	Page           Page
}

// IssueEvent is published inside the transaction that changed an issue:
// ActionCreated (opened), ActionClosed, ActionReopened, or ActionUpdated
// for an edit that left the state alone.
type IssueEvent struct {
	Issue  Issue
	Action string
	Actor  int64
}

func (IssueEvent) EventName() string { return "issue.event" }

// IssueKey names one issue of one project.
type IssueKey struct {
	ProjectID int64
	IID       int64
}

// IssueRef names an issue from text: "#4" (Project "") or "group/project#4".
type IssueRef struct {
	Project string
	IID     int64
}
