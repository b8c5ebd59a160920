package mergerequests

import (
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// createParams are POST /projects/:id/merge_requests's parameters.
type createParams struct {
	SourceBranch       string    `param:"source_branch,required"`
	TargetBranch       string    `param:"target_branch,required"`
	Title              string    `param:"title,required"`
	AssigneeID         *int64    `param:"assignee_id"`
	Description        string    `param:"description"`
	TargetProjectID    *int64    `param:"target_project_id"`
	Labels             *[]string `param:"labels"`
	MilestoneID        *int64    `param:"milestone_id"`
	RemoveSourceBranch bool      `param:"remove_source_branch"`
}

// updateParams are PUT /projects/:id/merge_requests/:iid's parameters; at
// least one must be given.
type updateParams struct {
	TargetBranch       *string   `param:"target_branch"`
	Title              *string   `param:"title"`
	AssigneeID         *int64    `param:"assignee_id"`
	Description        *string   `param:"description"`
	StateEvent         *string   `param:"state_event"`
	Labels             *[]string `param:"labels"`
	MilestoneID        *int64    `param:"milestone_id"`
	RemoveSourceBranch *bool     `param:"remove_source_branch"`
}

func (in updateParams) validate() error {
	if in.TargetBranch == nil && in.Title == nil && in.AssigneeID == nil && in.Description == nil &&
		in.StateEvent == nil && in.Labels == nil && in.MilestoneID == nil && in.RemoveSourceBranch == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "target_branch, title, assignee_id, description, state_event, labels, milestone_id, remove_source_branch are missing, at least one parameter must be provided"}
	}
	if in.StateEvent != nil && *in.StateEvent != "close" && *in.StateEvent != "reopen" {
		return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "state_event does not have a valid value"}
	}
	return nil
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

type diffJSON = apijson.Diff

func newDiffsJSON(fd []domain.FileDiff) []diffJSON { return apijson.DiffsOf(fd) }

// changesJSON is the merge request with its changes.
type changesJSON struct {
	*apijson.MergeRequest
	Changes []diffJSON `json:"changes"`
}
