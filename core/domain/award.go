package domain

import "time"

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
