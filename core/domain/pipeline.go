package domain

import "time"

// CIStatus is the status of a job, a stage or a pipeline, as GitLab names
// it (HasStatus).
type CIStatus string

const (
	CICreated  CIStatus = "created"
	CIPending  CIStatus = "pending"
	CIRunning  CIStatus = "running"
	CISuccess  CIStatus = "success"
	CIFailed   CIStatus = "failed"
	CICanceled CIStatus = "canceled"
	CISkipped  CIStatus = "skipped"
	CIManual   CIStatus = "manual"
)

// Valid reports whether s is one of the eight statuses.
func (s CIStatus) Valid() bool {
	switch s {
	case CICreated, CIPending, CIRunning, CISuccess, CIFailed, CICanceled, CISkipped, CIManual:
		return true
	}
	return false
}

// Completed reports whether s is final (success, failed, canceled, skipped).
func (s CIStatus) Completed() bool {
	return s == CISuccess || s == CIFailed || s == CICanceled || s == CISkipped
}

// Active reports whether s is pending or running.
func (s CIStatus) Active() bool { return s == CIPending || s == CIRunning }

// Pipeline sources (what created the pipeline).
const (
	SourcePush     = "push"
	SourceWeb      = "web"
	SourceAPI      = "api"
	SourceTrigger  = "trigger"
	SourceExternal = "external" // commit statuses posted by another system
)

// Pipeline is one run of a project's CI configuration (or the holder of
// external commit statuses) for one commit of a ref.
type Pipeline struct {
	ID         int64
	ProjectID  int64
	Ref        string // branch or tag short name
	Tag        bool
	SHA        string
	BeforeSHA  string // the ref's previous head (ZeroID for a new ref)
	Status     CIStatus
	Source     string
	UserID     *int64 // who pushed or asked; nil for none
	YAMLErrors string // the configuration's error; the pipeline then failed
	// ConfigPath is where the configuration was read (ci_config_path).
	ConfigPath  string
	Coverage    *float64
	CreatedAt   time.Time
	UpdatedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
	CommittedAt *time.Time
	// Duration is the seconds the pipeline's jobs ran, once finished.
	Duration *int
}

// PipelineFilter selects a project's pipelines (GitLab 9.x's
// PipelinesFinder). Zero values mean no filter.
type PipelineFilter struct {
	ProjectID int64
	// IDs keeps only these pipelines (nil: no filter): the pipelines a
	// page of jobs embeds, read in one query.
	IDs []int64
	// Scope is running, pending, finished, branches or tags (branches and
	// tags: the latest pipeline of each ref).
	Scope      string
	Status     CIStatus
	Ref        string
	SHA        string
	YAMLErrors *bool
	Username   string
	// Name is the pipeline user's full name (GitLab's by_name).
	Name      string
	OrderBy   string // id (default), status, ref or user_id
	Ascending bool   // default newest first
	Page      Page
}

// PipelineEvent is published inside the transaction that changed a
// pipeline's status (and when one is created), with what GitLab's
// Pipeline Hook carries: the pipeline and its jobs.
type PipelineEvent struct {
	Pipeline Pipeline
	Jobs     []Job
	// Previous is the status before the change ("" when created).
	Previous CIStatus
	Actor    int64
}

func (PipelineEvent) EventName() string { return "pipeline.event" }

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
