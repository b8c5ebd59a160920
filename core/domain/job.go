package domain

import (
	"fmt"
	"time"
)

// JobKind tells CI jobs, which runners run, from commit statuses that
// another system reports (GitLab's Ci::Build and GenericCommitStatus,
// which share the pipeline).
type JobKind string

const (
	JobBuild    JobKind = "build"
	JobExternal JobKind = "external"
)

// When a job runs, relative to the stages before it.
const (
	WhenOnSuccess = "on_success"
	WhenOnFailure = "on_failure"
	WhenAlways    = "always"
	WhenManual    = "manual"
)

// Failure reasons (GitLab's failure_reason).
const (
	FailureUnknown        = "unknown_failure"
	FailureScript         = "script_failure"
	FailureAPI            = "api_failure"
	FailureStuckOrTimeout = "stuck_or_timeout_failure"
	FailureRunnerSystem   = "runner_system_failure"
	FailureMissingDeps    = "missing_dependency_failure"
	FailureJobExecTimeout = "job_execution_timeout"
)

// Job is one job of a pipeline: a CI job from the configuration, or a
// commit status posted through the API.
type Job struct {
	ID         int64
	ProjectID  int64
	PipelineID int64
	Kind       JobKind
	Name       string
	Stage      string
	StageIdx   int
	Status     CIStatus
	Ref        string
	Tag        bool
	SHA        string
	// Protected: the ref was protected when the job was created (runners
	// with access level ref_protected take only such jobs; protected
	// variables reach only them).
	Protected bool
	When      string
	// AllowFailure: a failure does not fail the pipeline.
	AllowFailure bool
	UserID       *int64 // who created, retried or played it
	RunnerID     *int64 // the runner it was handed to
	// TokenDigest is the digest of the job token (domain.TokenDigest); the
	// token itself goes to the runner once, with the job.
	TokenDigest string
	// Tags a runner must carry to take the job.
	Tags []string
	// Spec is what the runner needs to run it (CI jobs only).
	Spec          JobSpec
	Coverage      *float64
	Description   string // commit statuses
	TargetURL     string // commit statuses
	FailureReason string
	// TraceSize is the length of the trace so far (the offset the next
	// append must start at).
	TraceSize int64
	// ArtifactsExpireAt is when the artifacts go, unless kept (nil: never).
	ArtifactsExpireAt *time.Time
	ErasedAt          *time.Time
	ErasedBy          *int64
	// Retried marks a job superseded by its retry: lists and statuses
	// count only the latest.
	Retried bool
	// Attempt is how many times this job has been retried automatically
	// (the retry keyword).
	Attempt int
	// RunnerFinished: the runner reported the job's end. A job canceled
	// while it runs is canceled at once, but its runner goes on (it runs
	// after_script and sends its trace) until it reports the end.
	RunnerFinished bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
	QueuedAt       *time.Time
	StartedAt      *time.Time
	FinishedAt     *time.Time
}

// JobSpec is what a CI job asks of the runner, from the configuration.
type JobSpec struct {
	Image        *Image
	Services     []Image
	BeforeScript []string
	Script       []string
	AfterScript  []string
	Variables    []Variable // the job's and the configuration's own variables
	Artifacts    *ArtifactsSpec
	Cache        *CacheSpec
	// Dependencies names the jobs of earlier stages whose artifacts the job
	// downloads; nil means every job of every earlier stage.
	Dependencies []string
	// Retry is how many times a failed job is retried automatically (0-2).
	Retry int
	// Timeout in seconds; 0 uses the runner's or the project's default.
	Timeout int
	// CoverageRegex extracts coverage from the trace.
	CoverageRegex string
	// Environment is passed through to the runner (CI_ENVIRONMENT_NAME).
	Environment string
}

// Image is a container image, with an entrypoint and alias where given.
type Image struct {
	Name       string
	Entrypoint []string
	Alias      string
	Command    []string
}

// ArtifactsSpec is a job's artifacts keyword.
type ArtifactsSpec struct {
	Name      string
	Paths     []string
	Untracked bool
	When      string // on_success (default), on_failure, always
	ExpireIn  string // "1 week", as written
}

// CacheSpec is a job's cache keyword, passed through to the runner.
type CacheSpec struct {
	Key       string
	Paths     []string
	Untracked bool
	Policy    string // pull-push (default), pull, push
}

// JobFilter selects jobs. Zero values mean no filter.
type JobFilter struct {
	ProjectID  int64
	PipelineID int64
	Kind       JobKind    // "" both
	Statuses   []CIStatus // the scope; empty: every status
	// Latest leaves out jobs superseded by a retry.
	Latest bool
	SHA    string
	Ref    string
	Name   string
	Stage  string
	// RunnerID keeps the jobs handed to this runner (GET /runners/:id/jobs).
	RunnerID int64
	Page     Page // ordered by ID, newest first
}

// JobEvent is published inside the transaction that changed a job's
// status, with what GitLab's Job Hook carries.
type JobEvent struct {
	Job      Job
	Previous CIStatus // "" when created
	Actor    int64
}

func (JobEvent) EventName() string { return "job.event" }

// Artifact is a file a job uploaded: its archive (artifact_type
// "archive", usually a zip), its metadata, or reports (junit ...).
type Artifact struct {
	ID        int64
	JobID     int64
	ProjectID int64
	Type      string // archive, metadata, trace, junit ...
	Format    string // zip, gzip, raw
	Filename  string
	Size      int64
	// Key names the file in the BlobStore.
	Key       string
	SHA256    string
	ExpireAt  *time.Time
	CreatedAt time.Time
}

// Variable is a CI variable: a project's (protected: only for protected
// refs; masked: hidden in traces), or one of the configuration's.
type Variable struct {
	ProjectID int64
	Key       string
	Value     string
	Protected bool
	Masked    bool
	// Public variables may be shown (the runner's "public" flag).
	Public bool
}

// TraceKey is where a finished job's trace is archived in the BlobStore.
func TraceKey(projectID, jobID int64) string {
	return fmt.Sprintf("projects/%d/jobs/%d/trace.log", projectID, jobID)
}

// ArtifactKey is where one artifact file of a job is kept in the
// BlobStore (one per artifact type).
func ArtifactKey(projectID, jobID int64, artifactType string) string {
	return fmt.Sprintf("projects/%d/jobs/%d/artifacts/%s", projectID, jobID, artifactType)
}
