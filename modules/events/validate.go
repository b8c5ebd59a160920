package events

import (
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// filter checks the values of the feed's filters (Grape's 400 for one
// outside its values) and turns them into the store's filter.
func (in FeedInput) filter() (domain.EventFilter, error) {
	f := domain.EventFilter{Before: in.Before, After: in.After, Page: in.Page}
	if in.Action != "" {
		if !actions[in.Action] {
			return f, invalidValue("action")
		}
		f.Action = in.Action
	}
	if in.TargetType != "" {
		t, ok := targetTypes[in.TargetType]
		if !ok {
			return f, invalidValue("target_type")
		}
		f.TargetType = t
	}
	switch in.Sort {
	case "", "desc":
	case "asc":
		f.Ascending = true
	default:
		return f, invalidValue("sort")
	}
	return f, nil
}

func invalidValue(name string) error {
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: name + " does not have a valid value"}
}

// targetTypes maps the lowercase filter values to stored GitLab names.
var targetTypes = map[string]string{
	"issue":         domain.TargetIssue,
	"milestone":     domain.TargetMilestone,
	"merge_request": domain.TargetMergeRequest,
	"note":          domain.TargetNote,
	"project":       domain.TargetProject,
	"snippet":       domain.TargetSnippet,
	"user":          domain.TargetUser,
}

var actions = map[string]bool{
	domain.ActionCreated: true, domain.ActionUpdated: true, domain.ActionClosed: true,
	domain.ActionReopened: true, domain.ActionPushed: true, domain.ActionCommented: true,
	domain.ActionMerged: true, domain.ActionJoined: true, domain.ActionLeft: true,
	domain.ActionDestroyed: true, domain.ActionExpired: true,
}
