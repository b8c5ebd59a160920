package jobs

import (
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// ListInput is a job list's query: scope (a string or an array) and page.
type ListInput struct {
	Scope []string `param:"scope"`
	Page  domain.Page
	// Invalid is a decoding failure, answered after the access checks.
	Invalid error
}

// RunnerJobsInput is GET /runners/:id/jobs's query.
type RunnerJobsInput struct {
	Status string `param:"status"`
	Page   domain.Page
	// Invalid is a decoding failure, answered after the access checks.
	Invalid error
}

// DownloadInput is GET /projects/:id/jobs/artifacts/:ref_name/download's query.
type DownloadInput struct {
	Job     string `param:"job"`
	Invalid error
}

// StatusesInput filters a commit's statuses.
type StatusesInput struct {
	Ref   string `param:"ref"`
	Stage string `param:"stage"`
	Name  string `param:"name"`
	All   bool   `param:"all"`
	Page  domain.Page
	// Invalid is a decoding failure, answered after the access checks.
	Invalid error
}

// StatusInput is a posted commit status.
type StatusInput struct {
	State       string   `param:"state"`
	Ref         string   `param:"ref"`
	Name        string   `param:"name"`
	Context     string   `param:"context"`
	TargetURL   *string  `param:"target_url"`
	Description *string  `param:"description"`
	Coverage    *float64 `param:"coverage"`
	// Invalid is a decoding failure, answered after the access checks.
	Invalid error
}

// commitStatusJSON is GitLab's CommitStatus entity.
type commitStatusJSON struct {
	ID           int64              `json:"id"`
	SHA          string             `json:"sha"`
	Ref          *string            `json:"ref"`
	Status       string             `json:"status"`
	Name         string             `json:"name"`
	TargetURL    *string            `json:"target_url"`
	Description  *string            `json:"description"`
	CreatedAt    httpx.Time         `json:"created_at"`
	StartedAt    *httpx.Time        `json:"started_at"`
	FinishedAt   *httpx.Time        `json:"finished_at"`
	AllowFailure bool               `json:"allow_failure"`
	Coverage     *float64           `json:"coverage"`
	Author       *apijson.UserBasic `json:"author"`
}

func newCommitStatusJSON(j domain.Job, author *apijson.UserBasic) commitStatusJSON {
	return commitStatusJSON{
		ID: j.ID, SHA: j.SHA, Ref: apijson.NullString(j.Ref), Status: string(j.Status), Name: j.Name,
		TargetURL: apijson.NullString(j.TargetURL), Description: apijson.NullString(j.Description),
		CreatedAt: httpx.TimeOf(j.CreatedAt), StartedAt: httpx.TimePtr(j.StartedAt), FinishedAt: httpx.TimePtr(j.FinishedAt),
		AllowFailure: j.AllowFailure, Coverage: j.Coverage, Author: author,
	}
}

// actionJSON is a job as cancel, retry, erase, keep and play answer it:
// without its pipeline; erase and keep add download_url.
type actionJSON struct {
	apijson.Job
	DownloadURL *string `json:"download_url"`
}
