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

// MilestoneEvent is published inside the transaction that created,
// closed, reopened or destroyed a milestone.
type MilestoneEvent struct {
	Milestone Milestone
	Action    string
	Actor     int64
}

func (MilestoneEvent) EventName() string { return "milestone.event" }
