package domain

import "time"

// Trigger is a project's pipeline trigger: a token that runs pipelines as
// its owner (GitLab's Ci::Trigger). Only the digest of the token is kept;
// the token is shown once, when the trigger is created.
type Trigger struct {
	ID        int64
	ProjectID int64
	// OwnerID is the user the trigger's pipelines run as; nil for a
	// legacy trigger, which runs without a user on unprotected refs only.
	OwnerID     *int64
	Description string
	TokenDigest string // TokenDigest of the token
	// TokenHint is the token's first characters after its prefix, which
	// lists show in place of the token (as later GitLab does).
	TokenHint  string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	LastUsedAt *time.Time
}

// TriggerRequest is one use of a trigger: the pipeline it created and the
// variables it passed, which the pipeline's jobs receive after every other
// variable (GitLab's Ci::TriggerRequest).
type TriggerRequest struct {
	ID int64
	// TriggerID is nil once the trigger was deleted; the pipeline keeps
	// its variables.
	TriggerID  *int64
	PipelineID int64
	Variables  []TriggerVariable
	CreatedAt  time.Time
}

// TriggerVariable is one variables[KEY]=value of a trigger request.
type TriggerVariable struct {
	Key   string
	Value string
}
