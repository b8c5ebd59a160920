package domain

import (
	"errors"
	"fmt"
	"regexp"
	"time"
)

// MergeRequestState is the state of a merge request as GitLab names it.
type MergeRequestState string

const (
	MROpened   MergeRequestState = "opened"
	MRReopened MergeRequestState = "reopened"
	MRClosed   MergeRequestState = "closed"
	MRMerged   MergeRequestState = "merged"
)

// Open reports whether the state still takes merges and updates.
func (s MergeRequestState) Open() bool { return s == MROpened || s == MRReopened }

// Merge statuses.
const (
	MergeUnchecked      = "unchecked"
	MergeCanBeMerged    = "can_be_merged"
	MergeCannotBeMerged = "cannot_be_merged"
)

// MergeRequest asks to merge SourceBranch of SourceProjectID into
// TargetBranch of TargetProjectID. ProjectID is the target project, where
// the IID is unique.
type MergeRequest struct {
	ID              int64
	IID             int64
	ProjectID       int64 // = TargetProjectID
	SourceProjectID int64
	TargetProjectID int64
	Title           string
	Description     string
	State           MergeRequestState
	SourceBranch    string
	TargetBranch    string
	AuthorID        int64
	AssigneeID      *int64
	MilestoneID     *int64
	Labels          []string // sorted, unique

	// MergeStatus is can_be_merged, cannot_be_merged or unchecked; it was
	// computed for SourceSHA merged into TargetSHA.
	MergeStatus string
	// SourceSHA is the source branch head the merge request shows (GitLab's
	// diff_head_sha, rendered as "sha"); frozen once merged or closed.
	SourceSHA string
	// TargetSHA is the target head MergeStatus was computed against.
	TargetSHA string
	// BaseSHA is the merge base of SourceSHA and TargetSHA, where the
	// merge request's changes start.
	BaseSHA string

	MergeWhenPipelineSucceeds bool
	MergeUserID               *int64 // who asked for the (deferred) merge
	// MergeCommitMessage is kept for a deferred merge.
	MergeCommitMessage string
	// ShouldRemoveSourceBranch is asked at merge time;
	// ForceRemoveSourceBranch is the author's wish at creation.
	ShouldRemoveSourceBranch bool
	ForceRemoveSourceBranch  bool
	// PipelineSucceededSHA is the last source commit a pipeline succeeded on.
	PipelineSucceededSHA string

	// MergeCommitSHA is set once merged (nil when the source was merged
	// into the target outside the merge request).
	MergeCommitSHA *string
	// InFlightSHA is the merge commit written but not yet recorded: the
	// intent a repair finishes or drops. LockedAt is when it was taken.
	InFlightSHA string
	LockedAt    *time.Time

	Upvotes, Downvotes int
	UserNotesCount     int // maintained from notes; read-only for stores' callers
	// TimeStats are filled by every read and written only through
	// ports.TimeTrackingStore.
	TimeStats TimeStats

	CreatedAt time.Time
	UpdatedAt time.Time
	MergedAt  *time.Time
	ClosedAt  *time.Time
}

// ErrBeingMerged: a merge request whose merge is under way (LockedAt set)
// changes state only through that merge.
var ErrBeingMerged = errors.New("the merge request is being merged")

// Close closes an open merge request at now; a deferred merge is
// dropped with it.
func (m *MergeRequest) Close(now time.Time) error {
	if m.LockedAt != nil {
		return ErrBeingMerged
	}
	if !m.State.Open() {
		return fmt.Errorf("close a %s merge request: %w", m.State, ErrInvalidTransition)
	}
	m.State, m.ClosedAt = MRClosed, &now
	m.MergeWhenPipelineSucceeds = false
	return nil
}

// Reopen reopens a closed merge request (a merged one stays merged); its
// mergeability must be checked again.
func (m *MergeRequest) Reopen() error {
	if m.LockedAt != nil {
		return ErrBeingMerged
	}
	if m.State != MRClosed {
		return fmt.Errorf("reopen a %s merge request: %w", m.State, ErrInvalidTransition)
	}
	m.State, m.ClosedAt = MRReopened, nil
	m.MergeStatus = MergeUnchecked
	return nil
}

// Lock claims an open merge request for a merge by actor at now: one
// merge at a time, whoever asks.
func (m *MergeRequest) Lock(now time.Time, actor int64) error {
	if !m.State.Open() {
		return fmt.Errorf("merge a %s merge request: %w", m.State, ErrInvalidTransition)
	}
	if m.LockedAt != nil {
		return ErrBeingMerged
	}
	m.LockedAt, m.MergeUserID = &now, &actor
	return nil
}

// MarkMerged records the merge at now: commit is the merge commit (nil
// when the source reached the target outside the merge request) and
// actor who merged, unless someone asked for the merge before. The lock
// and any deferred merge are released.
func (m *MergeRequest) MarkMerged(now time.Time, commit *string, actor int64) error {
	if m.State == MRMerged {
		return fmt.Errorf("merge a merged merge request: %w", ErrInvalidTransition)
	}
	m.State = MRMerged
	m.MergeCommitSHA = commit
	m.MergedAt = &now
	m.LockedAt, m.InFlightSHA = nil, ""
	m.MergeWhenPipelineSucceeds = false
	m.MergeStatus = MergeCanBeMerged
	if m.MergeUserID == nil {
		m.MergeUserID = &actor
	}
	return nil
}

// wipPattern is GitLab's work-in-progress title prefix.
var wipPattern = regexp.MustCompile(`(?i)\A\s*(\[WIP\]\s*|WIP:\s*|WIP\s+)+\s*`)

// WorkInProgress reports whether the title marks the merge request as
// not ready ("WIP: ...", "[WIP] ...").
func (m *MergeRequest) WorkInProgress() bool { return wipPattern.MatchString(m.Title) }

// WIPTitle strips a WIP prefix from title.
func WIPTitle(title string) string { return wipPattern.ReplaceAllString(title, "") }

// MergeRequestFilter selects merge requests. Zero values mean no filter.
type MergeRequestFilter struct {
	ProjectID int64
	// Readable limits to projects the reader may read merge requests of
	// (used when ProjectID is 0).
	Readable ReadScope
	// EnabledOnly leaves out projects whose merge requests are turned off
	// (the API's lists across projects; ProjectID 0 only).
	EnabledOnly bool
	IIDs        []int64
	States      []MergeRequestState // empty: all
	AuthorID    int64
	AssigneeID  int64
	// MilestoneID filters by milestone; NoMilestone asks for none.
	MilestoneIDs  []int64
	NoMilestone   bool
	Labels        []string // every one of them
	NoLabels      bool
	SourceBranch  string
	TargetBranch  string
	CreatedAfter  *time.Time // inclusive
	CreatedBefore *time.Time // inclusive
	OrderBy       string     // created_at (default) or updated_at
	Ascending     bool
	Page          Page
}

// MergeRequestEvent is published inside the transaction that changed a
// merge request's state: Action is ActionCreated (opened), ActionClosed,
// ActionReopened, ActionMerged or ActionUpdated.
type MergeRequestEvent struct {
	MergeRequest MergeRequest
	Action       string
	Actor        int64
	// Closes lists the issues a merge closes (merged events only).
	Closes []IssueKey
}

func (MergeRequestEvent) EventName() string { return "merge_request.event" }
