package issues

import (
	"time"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Every input carries Invalid, what the handler found wrong while
// decoding it: a use case reports it once the caller's access is known
// (401, then 404, then 400), so outsiders learn nothing from validation.

// CreateInput is POST /projects/:id/issues's parameters.
type CreateInput struct {
	Title        string     `param:"title,required"`
	Description  string     `param:"description"`
	AssigneeID   *int64     `param:"assignee_id"`
	AssigneeIDs  *[]int64   `param:"assignee_ids"`
	MilestoneID  *int64     `param:"milestone_id"`
	Labels       *[]string  `param:"labels"`
	Confidential bool       `param:"confidential"`
	DueDate      *string    `param:"due_date"`
	CreatedAt    *time.Time `param:"created_at"`
	Invalid      error
}

// UpdateInput is PUT /projects/:id/issues/:issue_iid's parameters; at
// least one must be given.
type UpdateInput struct {
	Title        *string   `param:"title"`
	Description  *string   `param:"description"`
	AssigneeID   *int64    `param:"assignee_id"`
	AssigneeIDs  *[]int64  `param:"assignee_ids"`
	MilestoneID  *int64    `param:"milestone_id"`
	Labels       *[]string `param:"labels"`
	StateEvent   *string   `param:"state_event"`
	DueDate      *string   `param:"due_date"`
	Confidential *bool     `param:"confidential"`
	Invalid      error
}

// MoveInput is POST /projects/:id/issues/:issue_iid/move's parameters.
type MoveInput struct {
	ToProjectID int64 `param:"to_project_id,required"`
	Invalid     error
}

// ListInput is an issue list's filters and page.
type ListInput struct {
	issuable.ListParams
	Search string `param:"search"`
	issuable.PageInput
}

// MilestoneCreateInput is POST /projects/:id/milestones's parameters.
type MilestoneCreateInput struct {
	Title       string  `param:"title,required"`
	Description string  `param:"description"`
	DueDate     *string `param:"due_date"`
	StartDate   *string `param:"start_date"`
	Invalid     error
}

// MilestoneUpdateInput is PUT /projects/:id/milestones/:milestone_id's
// parameters; at least one must be given.
type MilestoneUpdateInput struct {
	Title       *string `param:"title"`
	Description *string `param:"description"`
	DueDate     *string `param:"due_date"`
	StartDate   *string `param:"start_date"`
	StateEvent  *string `param:"state_event"`
	Invalid     error
}

// MilestoneListInput is GET /projects/:id/milestones's filters and page.
type MilestoneListInput struct {
	IIDs   []int64 `param:"iids"`
	State  string  `param:"state"`
	Search string  `param:"search"`
	issuable.PageInput
}

// LabelCreateInput is POST /projects/:id/labels's parameters.
type LabelCreateInput struct {
	Name        string `param:"name,required"`
	Color       string `param:"color,required"`
	Description string `param:"description"`
	Invalid     error
}

// LabelUpdateInput is PUT /projects/:id/labels's parameters.
type LabelUpdateInput struct {
	Name        string  `param:"name,required"`
	NewName     *string `param:"new_name"`
	Color       *string `param:"color"`
	Description *string `param:"description"`
	Invalid     error
}

// LabelDeleteInput is DELETE /projects/:id/labels's parameters.
type LabelDeleteInput struct {
	Name    string `param:"name,required"`
	Invalid error
}

// labelJSON is GitLab 9.x's label entity; counts are what the caller may
// see.
type labelJSON struct {
	ID                     int64   `json:"id"`
	Name                   string  `json:"name"`
	Color                  string  `json:"color"`
	Description            *string `json:"description"`
	OpenIssuesCount        int     `json:"open_issues_count"`
	ClosedIssuesCount      int     `json:"closed_issues_count"`
	OpenMergeRequestsCount int     `json:"open_merge_requests_count"`
	Priority               *int    `json:"priority"`
	Subscribed             bool    `json:"subscribed"`
}

func newLabelJSON(l *domain.Label, c domain.LabelCounts) labelJSON {
	return labelJSON{ID: l.ID, Name: l.Name, Color: l.Color, Description: apijson.NullString(l.Description),
		OpenIssuesCount: c.OpenIssues, ClosedIssuesCount: c.ClosedIssues, OpenMergeRequestsCount: c.OpenMergeRequests}
}
