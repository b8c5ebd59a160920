package mergerequests

import (
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Every input carries Invalid, what the handler found wrong while
// decoding it: a use case reports it once the caller's access is known
// (401, then 404, then 400), so outsiders learn nothing from validation.

// CreateInput is POST /projects/:id/merge_requests's parameters.
type CreateInput struct {
	SourceBranch       string    `param:"source_branch,required"`
	TargetBranch       string    `param:"target_branch,required"`
	Title              string    `param:"title,required"`
	AssigneeID         *int64    `param:"assignee_id"`
	Description        string    `param:"description"`
	TargetProjectID    *int64    `param:"target_project_id"`
	Labels             *[]string `param:"labels"`
	MilestoneID        *int64    `param:"milestone_id"`
	RemoveSourceBranch bool      `param:"remove_source_branch"`
	Invalid            error
}

// UpdateInput is PUT /projects/:id/merge_requests/:iid's parameters; at
// least one must be given.
type UpdateInput struct {
	TargetBranch       *string   `param:"target_branch"`
	Title              *string   `param:"title"`
	AssigneeID         *int64    `param:"assignee_id"`
	Description        *string   `param:"description"`
	StateEvent         *string   `param:"state_event"`
	Labels             *[]string `param:"labels"`
	MilestoneID        *int64    `param:"milestone_id"`
	RemoveSourceBranch *bool     `param:"remove_source_branch"`
	Invalid            error
}

// MergeInput is PUT .../merge's parameters.
type MergeInput struct {
	Message      string `param:"merge_commit_message"`
	RemoveSource bool   `param:"should_remove_source_branch"`
	WhenPipeline bool   `param:"merge_when_pipeline_succeeds"`
	SHA          string `param:"sha"`
	Invalid      error
}

// ListInput is a merge request list's filters, view and page.
type ListInput struct {
	issuable.ListParams
	View string `param:"view"` // "simple": the short entity
	issuable.PageInput
}

// commitJSON is the merge request commit list's entry.
type commitJSON struct {
	ID          string     `json:"id"`
	ShortID     string     `json:"short_id"`
	Title       string     `json:"title"`
	AuthorName  string     `json:"author_name"`
	AuthorEmail string     `json:"author_email"`
	CreatedAt   httpx.Time `json:"created_at"`
	Message     string     `json:"message"`
}

func newCommitJSON(c domain.Commit) commitJSON {
	return commitJSON{ID: c.ID, ShortID: c.ShortID(), Title: c.Title(), AuthorName: c.Author.Name,
		AuthorEmail: c.Author.Email, CreatedAt: httpx.TimeOf(c.Committer.When), Message: c.Message}
}

// changesJSON is the merge request with its changes.
type changesJSON struct {
	*apijson.MergeRequest
	Changes []apijson.Diff `json:"changes"`
}
