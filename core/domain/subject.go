package domain

// Subject names a thing users subscribe to (an issue, a merge request).
type Subject struct {
	Type string // TargetIssue or TargetMergeRequest
	ID   int64
}
