package issues

import (
	"regexp"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

func (in UpdateInput) validate() error {
	if in.Title == nil && in.Description == nil && in.AssigneeID == nil && in.AssigneeIDs == nil &&
		in.MilestoneID == nil && in.Labels == nil && in.StateEvent == nil && in.DueDate == nil && in.Confidential == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "title, description, assignee_ids, assignee_id, milestone_id, labels, due_date, confidential, state_event are missing, at least one parameter must be provided"}
	}
	if in.StateEvent != nil && *in.StateEvent != "close" && *in.StateEvent != "reopen" {
		return issuable.InvalidValue("state_event")
	}
	return nil
}

func (in MilestoneUpdateInput) validate() error {
	if in.Title == nil && in.Description == nil && in.DueDate == nil && in.StartDate == nil && in.StateEvent == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "title, description, due_date, start_date, state_event are missing, at least one parameter must be provided"}
	}
	if in.StateEvent != nil && *in.StateEvent != "close" && *in.StateEvent != "activate" {
		return issuable.InvalidValue("state_event")
	}
	if in.Title != nil {
		return issuable.ValidTitle(*in.Title)
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

// checkDates is the model's rule on a milestone's dates.
func checkDates(m *domain.Milestone) error {
	if m.StartDate != nil && m.DueDate != nil && m.DueDate.Before(*m.StartDate) {
		return core.FieldInvalid("due_date", "must be greater than start date")
	}
	return nil
}

// colorPattern is GitLab 9.x's ColorValidator.
var colorPattern = regexp.MustCompile(`\A#(?:[0-9A-Fa-f]{3}){1,2}\z`)

// checkLabel is the model's validation of a label.
func checkLabel(l *domain.Label) error {
	fields := map[string][]string{}
	if !colorPattern.MatchString(l.Color) {
		fields["color"] = []string{"must be a valid color code"}
	}
	switch {
	case l.Name == "":
		fields["title"] = []string{"can't be blank"}
	case strings.Contains(l.Name, ","):
		fields["title"] = []string{"is invalid"}
	}
	if len(fields) > 0 {
		return core.Validation(fields)
	}
	return nil
}
