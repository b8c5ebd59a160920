package mergerequests

import (
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/issuable"
)

func (in UpdateInput) validate() error {
	if in.TargetBranch == nil && in.Title == nil && in.AssigneeID == nil && in.Description == nil &&
		in.StateEvent == nil && in.Labels == nil && in.MilestoneID == nil && in.RemoveSourceBranch == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "target_branch, title, assignee_id, description, state_event, labels, milestone_id, remove_source_branch are missing, at least one parameter must be provided"}
	}
	if in.StateEvent != nil && *in.StateEvent != "close" && *in.StateEvent != "reopen" {
		return issuable.InvalidValue("state_event")
	}
	return nil
}

// sameBranch is GitLab's refusal of a merge request into its own source.
var sameBranch = core.Unprocessable("You can not use same project/branch for source and target")
