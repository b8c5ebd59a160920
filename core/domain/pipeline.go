package domain

import "time"

// PipelineSucceeded is published by CI when every job of a pipeline on SHA
// of Ref passed. Merge requests waiting for it merge then.
type PipelineSucceeded struct {
	ProjectID  int64
	PipelineID int64
	Ref        string // branch short name
	SHA        string
	At         time.Time
}

func (PipelineSucceeded) EventName() string { return "pipeline.succeeded" }
