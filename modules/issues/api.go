package issues

import (
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/httpx"
)

// createParams are POST /projects/:id/issues's parameters.
type createParams struct {
	Title        string     `param:"title,required"`
	Description  string     `param:"description"`
	AssigneeID   *int64     `param:"assignee_id"`
	AssigneeIDs  *[]int64   `param:"assignee_ids"`
	MilestoneID  *int64     `param:"milestone_id"`
	Labels       *[]string  `param:"labels"`
	Confidential bool       `param:"confidential"`
	DueDate      *string    `param:"due_date"`
	CreatedAt    *time.Time `param:"created_at"`
}

// updateParams are PUT /projects/:id/issues/:issue_iid's parameters; at
// least one must be given.
type updateParams struct {
	Title        *string   `param:"title"`
	Description  *string   `param:"description"`
	AssigneeID   *int64    `param:"assignee_id"`
	AssigneeIDs  *[]int64  `param:"assignee_ids"`
	MilestoneID  *int64    `param:"milestone_id"`
	Labels       *[]string `param:"labels"`
	StateEvent   *string   `param:"state_event"`
	DueDate      *string   `param:"due_date"`
	Confidential *bool     `param:"confidential"`
}

func (in updateParams) validate() error {
	if in.Title == nil && in.Description == nil && in.AssigneeID == nil && in.AssigneeIDs == nil &&
		in.MilestoneID == nil && in.Labels == nil && in.StateEvent == nil && in.DueDate == nil && in.Confidential == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "title, description, assignee_ids, assignee_id, milestone_id, labels, due_date, confidential, state_event are missing, at least one parameter must be provided"}
	}
	if in.StateEvent != nil && *in.StateEvent != "close" && *in.StateEvent != "reopen" {
		return invalidValue("state_event")
	}
	return nil
}

// assigneeOf is the one assignee asked for: assignee_ids (GitLab CE takes
// at most one) wins over assignee_id; an empty list or 0 means none.
func assigneeOf(id *int64, ids *[]int64) *int64 {
	if ids != nil {
		none := int64(0)
		if len(*ids) == 0 {
			return &none
		}
		return &(*ids)[0]
	}
	return id
}

func invalidValue(name string) error {
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: name + " does not have a valid value"}
}

// parseDate reads an optional YYYY-MM-DD (or ISO 8601) date; "" clears it.
func parseDate(name string, raw *string) (*time.Time, error) {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return nil, nil
	}
	t, err := httpx.ParseTime(*raw)
	if err != nil {
		return nil, core.InvalidParam(name)
	}
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return &d, nil
}
