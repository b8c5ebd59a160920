package domain

import "time"

// Milestone states.
const (
	MilestoneActive = "active"
	MilestoneClosed = "closed"
)

// Milestone groups issues and merge requests of a project toward a date.
type Milestone struct {
	ID          int64
	IID         int64
	ProjectID   int64
	Title       string
	Description string
	State       string // MilestoneActive or MilestoneClosed
	DueDate     *time.Time
	StartDate   *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// MilestoneFilter selects a project's milestones.
type MilestoneFilter struct {
	ProjectID int64
	IIDs      []int64
	State     string // "" = any
	Title     string // exact
	Search    string // in title or description
	Page      Page
}

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
	CreatedAt      time.Time
	UpdatedAt      time.Time
	ClosedAt       *time.Time
}

// Open reports whether the issue is opened or reopened.
func (i *Issue) Open() bool { return i.State == IssueOpened || i.State == IssueReopened }

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
	// Viewer hides the confidential issues the reader may not see.
	Viewer        IssueViewer
	IIDs          []int64
	States        []string // empty: all
	AuthorID      int64
	AssigneeID    int64
	MilestoneIDs  []int64
	NoMilestone   bool
	Labels        []string // every one of them
	NoLabels      bool
	Search        string // in title or description
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
	OrderBy       string // created_at (default) or updated_at
	Ascending     bool
	Page          Page
}

// Label is a project's label; issues and merge requests carry labels by
// name.
type Label struct {
	ID          int64
	ProjectID   int64
	Name        string
	Color       string // "#RRGGBB"
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// LabelCounts are how many issues and merge requests carry a label.
type LabelCounts struct {
	OpenIssues, ClosedIssues, OpenMergeRequests int
}

// Award is an emoji a user gave an issue, merge request or note
// ("thumbsup" and "thumbsdown" are the votes).
type Award struct {
	ID            int64
	Name          string
	UserID        int64
	AwardableType string // TargetIssue, TargetMergeRequest, TargetNote, TargetSnippet
	AwardableID   int64
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Snippet is a project's snippet of code.
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

// SnippetFilter selects a project's snippets a reader may see: those
// with one of Visibilities, plus the reader's own (AuthorID).
type SnippetFilter struct {
	ProjectID    int64
	Visibilities []Visibility
	AuthorID     int64
	Page         Page
}

// IssueEvent is published inside the transaction that changed an issue's
// state: ActionCreated (opened), ActionClosed, ActionReopened.
type IssueEvent struct {
	Issue  Issue
	Action string
	Actor  int64
}

func (IssueEvent) EventName() string { return "issue.event" }

// MilestoneEvent is published inside the transaction that created,
// closed, reopened or destroyed a milestone.
type MilestoneEvent struct {
	Milestone Milestone
	Action    string
	Actor     int64
}

func (MilestoneEvent) EventName() string { return "milestone.event" }

// NoteEvent is published inside the transaction that created a user
// note (GitLab's "commented on"). Confidential is set for notes on
// confidential issues, so feeds can hide them.
type NoteEvent struct {
	Note         Note
	Actor        int64
	Confidential bool
}

func (NoteEvent) EventName() string { return "note.created" }
