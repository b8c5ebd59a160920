package apijson

import (
	"strconv"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// ObjectKindIssue is the issue hook's object_kind.
const ObjectKindIssue = "issue"

// Issue hook actions (object_attributes.action).
const (
	IssueActionOpen   = "open"
	IssueActionUpdate = "update"
	IssueActionClose  = "close"
	IssueActionReopen = "reopen"
)

// IssueHookInput is one change of an issue.
type IssueHookInput struct {
	Project HookProjectInput
	Actor   domain.User // who made the change: the payload's user
	Issue   domain.Issue
	// Assignee is the user Issue.AssigneeID names, nil when unassigned.
	Assignee *domain.User
	// Labels are the issue's labels (Issue.Labels resolved).
	Labels []domain.Label
	Action string // IssueActionOpen, ...Update, ...Close or ...Reopen
}

// IssueHook is GitLab 9.x's issue payload.
type IssueHook struct {
	ObjectKind       string              `json:"object_kind"`
	User             HookUser            `json:"user"`
	Project          HookProject         `json:"project"`
	Repository       HookRepository      `json:"repository"`
	ObjectAttributes IssueHookAttributes `json:"object_attributes"`
	Assignees        []HookUser          `json:"assignees,omitempty"`
	Assignee         *HookUser           `json:"assignee,omitempty"`
	Labels           []HookLabel         `json:"labels"`
}

// IssueHookAttributes is the issue's object_attributes.
type IssueHookAttributes struct {
	ID           int64       `json:"id"`
	Title        string      `json:"title"`
	AssigneeIDs  []int64     `json:"assignee_ids"`
	AssigneeID   *int64      `json:"assignee_id"`
	AuthorID     int64       `json:"author_id"`
	ProjectID    int64       `json:"project_id"`
	CreatedAt    HookTime    `json:"created_at"`
	UpdatedAt    HookTime    `json:"updated_at"`
	Position     int         `json:"position"`
	BranchName   *string     `json:"branch_name"`
	Description  string      `json:"description"`
	MilestoneID  *int64      `json:"milestone_id"`
	State        string      `json:"state"`
	IID          int64       `json:"iid"`
	Confidential bool        `json:"confidential"`
	DueDate      *httpx.Date `json:"due_date"`
	URL          string      `json:"url"`
	Action       string      `json:"action"`
}

// HookLabel is GitLab 9.x's Label#hook_attrs (the label's record).
type HookLabel struct {
	ID          int64    `json:"id"`
	Title       string   `json:"title"`
	Color       string   `json:"color"`
	ProjectID   int64    `json:"project_id"`
	CreatedAt   HookTime `json:"created_at"`
	UpdatedAt   HookTime `json:"updated_at"`
	Template    bool     `json:"template"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	GroupID     *int64   `json:"group_id"`
}

// IssuePayload builds the issue payload.
func IssuePayload(in IssueHookInput) IssueHook {
	is := in.Issue
	proj := hookProject(in.Project)
	out := IssueHook{
		ObjectKind: ObjectKindIssue,
		User:       hookUser(&in.Actor),
		Project:    proj,
		Repository: HookRepository{Name: proj.Name, URL: proj.URL, Description: proj.Description, Homepage: proj.Homepage},
		ObjectAttributes: IssueHookAttributes{
			ID: is.ID, Title: is.Title, AssigneeIDs: []int64{}, AssigneeID: is.AssigneeID,
			AuthorID: is.AuthorID, ProjectID: is.ProjectID,
			CreatedAt: HookTime{is.CreatedAt}, UpdatedAt: HookTime{is.UpdatedAt},
			Description: is.Description, MilestoneID: is.MilestoneID, State: is.State, IID: is.IID,
			Confidential: is.Confidential, DueDate: httpx.DatePtr(is.DueDate),
			URL:    in.Project.WebURL + "/issues/" + strconv.FormatInt(is.IID, 10),
			Action: in.Action,
		},
		Labels: make([]HookLabel, 0, len(in.Labels)),
	}
	if in.Assignee != nil {
		a := hookUser(in.Assignee)
		out.Assignee, out.Assignees = &a, []HookUser{a}
		out.ObjectAttributes.AssigneeIDs = []int64{in.Assignee.ID}
	}
	for _, l := range in.Labels {
		out.Labels = append(out.Labels, HookLabel{
			ID: l.ID, Title: l.Name, Color: l.Color, ProjectID: l.ProjectID,
			CreatedAt: HookTime{l.CreatedAt}, UpdatedAt: HookTime{l.UpdatedAt},
			Description: l.Description, Type: "ProjectLabel",
		})
	}
	return out
}
