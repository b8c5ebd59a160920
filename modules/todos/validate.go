package todos

import (
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// The values Grape accepts for each enumerated filter.
var (
	actions = map[string]bool{
		domain.TodoAssigned: true, domain.TodoMentioned: true, domain.TodoBuildFailed: true,
		domain.TodoMarked: true, domain.TodoApprovalRequired: true, domain.TodoUnmergeable: true,
		domain.TodoDirectlyAddressed: true,
	}
	states      = map[string]bool{domain.TodoPending: true, domain.TodoDone: true}
	targetTypes = map[string]bool{domain.TargetIssue: true, domain.TargetMergeRequest: true}
)

// filter checks the enumerated values, reporting every bad one in Grape's
// {"error":"a does not have a valid value, b ..."} shape.
func (in ListInput) filter(pg domain.Page) (domain.TodoFilter, error) {
	var bad []string
	check := func(name, v string, valid map[string]bool) {
		if v != "" && !valid[v] {
			bad = append(bad, name+" does not have a valid value")
		}
	}
	check("action", in.Action, actions)
	check("state", in.State, states)
	check("type", in.Type, targetTypes)
	if len(bad) > 0 {
		return domain.TodoFilter{}, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(bad, ", ")}
	}
	return domain.TodoFilter{Action: in.Action, AuthorID: in.AuthorID, ProjectID: in.ProjectID,
		State: in.State, TargetType: in.Type, Page: pg}, nil
}
