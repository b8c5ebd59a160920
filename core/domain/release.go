package domain

import "time"

// Release is the description stored with a tag.
type Release struct {
	ProjectID   int64
	TagName     string
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}
