package domain

import "time"

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
