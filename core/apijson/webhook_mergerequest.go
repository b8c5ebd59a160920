package apijson

import (
	"strconv"

	"github.com/hearth-forge/hearth/core/domain"
)

// ObjectKindMergeRequest is the merge request hook's object_kind.
const ObjectKindMergeRequest = "merge_request"

// Merge request hook actions (object_attributes.action).
const (
	MergeRequestActionOpen   = "open"
	MergeRequestActionUpdate = "update"
	MergeRequestActionClose  = "close"
	MergeRequestActionReopen = "reopen"
	MergeRequestActionMerge  = "merge"
)

// MergeRequestHookInput is one change of a merge request.
type MergeRequestHookInput struct {
	// Project is the target project, the merge request's own.
	Project HookProjectInput
	// Source is the source project; nil means the target project (a
	// merge request between branches of one project).
	Source       *HookProjectInput
	Actor        domain.User // who made the change: the payload's user
	MergeRequest domain.MergeRequest
	// LastCommit is the source head (MergeRequest.SourceSHA) read from the
	// repository; nil sends null.
	LastCommit *domain.Commit
	// Assignee is the user MergeRequest.AssigneeID names, nil when unassigned.
	Assignee *domain.User
	// Labels are the merge request's labels (MergeRequest.Labels resolved).
	Labels []domain.Label
	Action string // MergeRequestActionOpen ... MergeRequestActionMerge
}

// MergeRequestHook is GitLab 9.x's merge request payload. Unlike issues,
// 9.x sends one assignee and no assignees list.
type MergeRequestHook struct {
	ObjectKind       string                     `json:"object_kind"`
	User             HookUser                   `json:"user"`
	Project          HookProject                `json:"project"`
	Repository       HookRepository             `json:"repository"`
	ObjectAttributes MergeRequestHookAttributes `json:"object_attributes"`
	Labels           []HookLabel                `json:"labels"`
	Assignee         *HookUser                  `json:"assignee,omitempty"`
}

// MergeRequestHookAttributes is the merge request's object_attributes.
type MergeRequestHookAttributes struct {
	ID              int64          `json:"id"`
	TargetBranch    string         `json:"target_branch"`
	SourceBranch    string         `json:"source_branch"`
	SourceProjectID int64          `json:"source_project_id"`
	AuthorID        int64          `json:"author_id"`
	AssigneeID      *int64         `json:"assignee_id"`
	Title           string         `json:"title"`
	CreatedAt       HookTime       `json:"created_at"`
	UpdatedAt       HookTime       `json:"updated_at"`
	MilestoneID     *int64         `json:"milestone_id"`
	State           string         `json:"state"`
	MergeStatus     string         `json:"merge_status"`
	TargetProjectID int64          `json:"target_project_id"`
	IID             int64          `json:"iid"`
	Description     string         `json:"description"`
	Source          HookProject    `json:"source"`
	Target          HookProject    `json:"target"`
	LastCommit      *HookGitCommit `json:"last_commit"`
	WorkInProgress  bool           `json:"work_in_progress"`
	URL             string         `json:"url"`
	Action          string         `json:"action"`
}

// HookGitCommit is GitLab 9.x's Commit#hook_attrs without changed files
// (a merge request's last_commit, a note's or a pipeline's commit).
type HookGitCommit struct {
	ID        string           `json:"id"`
	Message   string           `json:"message"`
	Timestamp string           `json:"timestamp"`
	URL       string           `json:"url"`
	Author    HookCommitAuthor `json:"author"`
}

// MergeRequestPayload builds the merge request payload.
func MergeRequestPayload(in MergeRequestHookInput) MergeRequestHook {
	mr := in.MergeRequest
	proj := hookProject(in.Project)
	source := proj
	if in.Source != nil {
		source = hookProject(*in.Source)
	}
	out := MergeRequestHook{
		ObjectKind: ObjectKindMergeRequest,
		User:       hookUser(&in.Actor),
		Project:    proj,
		Repository: HookRepository{Name: proj.Name, URL: proj.URL, Description: proj.Description, Homepage: proj.Homepage},
		ObjectAttributes: MergeRequestHookAttributes{
			ID: mr.ID, TargetBranch: mr.TargetBranch, SourceBranch: mr.SourceBranch,
			SourceProjectID: mr.SourceProjectID, AuthorID: mr.AuthorID, AssigneeID: mr.AssigneeID,
			Title: mr.Title, CreatedAt: HookTime{mr.CreatedAt}, UpdatedAt: HookTime{mr.UpdatedAt},
			MilestoneID: mr.MilestoneID, State: string(mr.State), MergeStatus: mr.MergeStatus,
			TargetProjectID: mr.TargetProjectID, IID: mr.IID, Description: mr.Description,
			Source: source, Target: proj,
			LastCommit:     hookGitCommit(in.Project.WebURL, in.LastCommit),
			WorkInProgress: mr.WorkInProgress(),
			URL:            mergeRequestURL(in.Project.WebURL, mr.IID),
			Action:         in.Action,
		},
		Labels: hookLabels(in.Labels),
	}
	if in.Assignee != nil {
		a := hookUser(in.Assignee)
		out.Assignee = &a
	}
	return out
}

func mergeRequestURL(webURL string, iid int64) string {
	return webURL + "/merge_requests/" + strconv.FormatInt(iid, 10)
}

// hookGitCommit is nil for no commit: GitLab sends null.
func hookGitCommit(webURL string, c *domain.Commit) *HookGitCommit {
	if c == nil {
		return nil
	}
	return &HookGitCommit{
		// GitLab's Commit#timestamp is the committer's date.
		ID: c.ID, Message: c.Message, Timestamp: c.Committer.When.Format(commitTimestampLayout),
		URL:    webURL + "/commit/" + c.ID,
		Author: HookCommitAuthor{Name: c.Author.Name, Email: c.Author.Email},
	}
}

func hookLabels(labels []domain.Label) []HookLabel {
	out := make([]HookLabel, 0, len(labels))
	for _, l := range labels {
		out = append(out, HookLabel{
			ID: l.ID, Title: l.Name, Color: l.Color, ProjectID: l.ProjectID,
			CreatedAt: HookTime{l.CreatedAt}, UpdatedAt: HookTime{l.UpdatedAt},
			Description: l.Description, Type: "ProjectLabel",
		})
	}
	return out
}
