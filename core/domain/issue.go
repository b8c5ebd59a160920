package domain

import "time"

// Milestone groups issues and merge requests of a project toward a date.
type Milestone struct {
	ID          int64
	IID         int64
	ProjectID   int64
	Title       string
	Description string
	State       string // active or closed
	DueDate     *time.Time
	StartDate   *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Issue is an issue of a project's tracker, as far as merge requests need
// it (the issues module owns the rest).
type Issue struct {
	ID             int64
	IID            int64
	ProjectID      int64
	Title          string
	Description    string
	State          string // opened, closed, reopened
	AuthorID       int64
	AssigneeID     *int64
	MilestoneID    *int64
	Labels         []string
	UserNotesCount int
	Confidential   bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}
