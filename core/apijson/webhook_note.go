package apijson

import (
	"strconv"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// ObjectKindNote is the note hook's object_kind.
const ObjectKindNote = "note"

// HookUTCTime renders as webhooks.md shows the timestamps of note,
// pipeline and job payloads: Ruby's Time#to_s in UTC ("2015-05-17
// 18:08:09 UTC"), which is how a Time comes out of the hook data once it
// is serialized for its Sidekiq job. The issue and merge request examples
// use HookTime's form instead; each payload follows its own example.
type HookUTCTime struct{ time.Time }

const hookUTCTimeLayout = "2006-01-02 15:04:05 UTC"

func (t HookUTCTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(hookUTCTimeLayout) + `"`), nil
}

// hookUTCTimePtr is nil (null) for no time.
func hookUTCTimePtr(t *time.Time) *HookUTCTime {
	if t == nil {
		return nil
	}
	return &HookUTCTime{*t}
}

// NoteHookInput is one new note. Exactly one of Commit, MergeRequest,
// Issue and Snippet is set: the noteable, which the payload embeds.
type NoteHookInput struct {
	Project HookProjectInput
	Author  domain.User // the note's author: the payload's user
	Note    domain.Note
	// LineCode and StDiff place a note on a line of a commit's diff; both
	// are null otherwise.
	LineCode string
	StDiff   *HookNoteDiff

	Commit       *domain.Commit
	MergeRequest *NoteHookMergeRequestInput
	Issue        *domain.Issue
	Snippet      *domain.Snippet
}

// NoteHookMergeRequestInput is the merge request a note is on, with what
// its block embeds.
type NoteHookMergeRequestInput struct {
	MergeRequest domain.MergeRequest
	Source       *HookProjectInput // nil: the note's project
	LastCommit   *domain.Commit
	Assignee     *domain.User
}

// NoteHook is GitLab 9.x's note payload.
type NoteHook struct {
	ObjectKind       string                `json:"object_kind"`
	User             HookUser              `json:"user"`
	ProjectID        int64                 `json:"project_id"`
	Project          HookProject           `json:"project"`
	Repository       HookRepository        `json:"repository"`
	ObjectAttributes NoteHookAttributes    `json:"object_attributes"`
	Commit           *HookGitCommit        `json:"commit,omitempty"`
	MergeRequest     *NoteHookMergeRequest `json:"merge_request,omitempty"`
	Issue            *NoteHookIssue        `json:"issue,omitempty"`
	Snippet          *NoteHookSnippet      `json:"snippet,omitempty"`
}

// NoteHookAttributes is the note's object_attributes.
type NoteHookAttributes struct {
	ID           int64         `json:"id"`
	Note         string        `json:"note"`
	NoteableType string        `json:"noteable_type"`
	AuthorID     int64         `json:"author_id"`
	CreatedAt    HookUTCTime   `json:"created_at"`
	UpdatedAt    HookUTCTime   `json:"updated_at"`
	ProjectID    int64         `json:"project_id"`
	Attachment   *string       `json:"attachment"`
	LineCode     *string       `json:"line_code"`
	CommitID     string        `json:"commit_id"`
	NoteableID   *int64        `json:"noteable_id"`
	System       bool          `json:"system"`
	StDiff       *HookNoteDiff `json:"st_diff"`
	URL          string        `json:"url"`
}

// HookNoteDiff is a commit line note's st_diff: the file diff it was
// written on.
type HookNoteDiff struct {
	Diff        string `json:"diff"`
	NewPath     string `json:"new_path"`
	OldPath     string `json:"old_path"`
	AMode       string `json:"a_mode"`
	BMode       string `json:"b_mode"`
	NewFile     bool   `json:"new_file"`
	RenamedFile bool   `json:"renamed_file"`
	DeletedFile bool   `json:"deleted_file"`
}

// NoteHookMergeRequest is the merge_request block of a note payload.
type NoteHookMergeRequest struct {
	ID              int64          `json:"id"`
	TargetBranch    string         `json:"target_branch"`
	SourceBranch    string         `json:"source_branch"`
	SourceProjectID int64          `json:"source_project_id"`
	AuthorID        int64          `json:"author_id"`
	AssigneeID      *int64         `json:"assignee_id"`
	Title           string         `json:"title"`
	CreatedAt       HookUTCTime    `json:"created_at"`
	UpdatedAt       HookUTCTime    `json:"updated_at"`
	MilestoneID     *int64         `json:"milestone_id"`
	State           string         `json:"state"`
	MergeStatus     string         `json:"merge_status"`
	TargetProjectID int64          `json:"target_project_id"`
	IID             int64          `json:"iid"`
	Description     string         `json:"description"`
	Position        int            `json:"position"`
	Source          HookProject    `json:"source"`
	Target          HookProject    `json:"target"`
	LastCommit      *HookGitCommit `json:"last_commit"`
	WorkInProgress  bool           `json:"work_in_progress"`
	Assignee        *HookUser      `json:"assignee,omitempty"`
}

// NoteHookIssue is the issue block of a note payload.
type NoteHookIssue struct {
	ID          int64       `json:"id"`
	Title       string      `json:"title"`
	AssigneeIDs []int64     `json:"assignee_ids"`
	AssigneeID  *int64      `json:"assignee_id"`
	AuthorID    int64       `json:"author_id"`
	ProjectID   int64       `json:"project_id"`
	CreatedAt   HookUTCTime `json:"created_at"`
	UpdatedAt   HookUTCTime `json:"updated_at"`
	Position    int         `json:"position"`
	BranchName  *string     `json:"branch_name"`
	Description string      `json:"description"`
	MilestoneID *int64      `json:"milestone_id"`
	State       string      `json:"state"`
	IID         int64       `json:"iid"`
}

// NoteHookSnippet is the snippet block of a note payload.
type NoteHookSnippet struct {
	ID              int64        `json:"id"`
	Title           string       `json:"title"`
	Content         string       `json:"content"`
	AuthorID        int64        `json:"author_id"`
	ProjectID       int64        `json:"project_id"`
	CreatedAt       HookUTCTime  `json:"created_at"`
	UpdatedAt       HookUTCTime  `json:"updated_at"`
	FileName        string       `json:"file_name"`
	ExpiresAt       *HookUTCTime `json:"expires_at"`
	Type            string       `json:"type"`
	VisibilityLevel int          `json:"visibility_level"`
}

// NotePayload builds the note payload.
func NotePayload(in NoteHookInput) NoteHook {
	n := in.Note
	proj := hookProject(in.Project)
	web := in.Project.WebURL
	attrs := NoteHookAttributes{
		ID: n.ID, Note: n.Body, NoteableType: n.NoteableType, AuthorID: n.AuthorID,
		CreatedAt: HookUTCTime{n.CreatedAt}, UpdatedAt: HookUTCTime{n.UpdatedAt},
		ProjectID: in.Project.Project.ID, LineCode: nonEmpty(in.LineCode), System: n.System,
		StDiff: in.StDiff,
	}
	out := NoteHook{
		ObjectKind: ObjectKindNote,
		User:       hookUser(&in.Author),
		ProjectID:  in.Project.Project.ID,
		Project:    proj,
		Repository: HookRepository{Name: proj.Name, URL: proj.URL, Description: proj.Description, Homepage: proj.Homepage},
	}
	anchor := "#note_" + strconv.FormatInt(n.ID, 10)
	// A commit is no record: its note names it by commit_id and has no
	// noteable_id; the others send commit_id "".
	noteableID := n.NoteableID
	switch {
	case in.Commit != nil:
		attrs.NoteableType, attrs.CommitID = "Commit", in.Commit.ID
		attrs.URL = web + "/commit/" + in.Commit.ID + anchor
		out.Commit = hookGitCommit(web, in.Commit)
	case in.MergeRequest != nil:
		mr := in.MergeRequest.MergeRequest
		attrs.NoteableType, attrs.NoteableID = domain.TargetMergeRequest, &noteableID
		attrs.URL = mergeRequestURL(web, mr.IID) + anchor
		out.MergeRequest = noteHookMergeRequest(in.Project, in.MergeRequest)
	case in.Issue != nil:
		is := in.Issue
		attrs.NoteableType, attrs.NoteableID = domain.TargetIssue, &noteableID
		attrs.URL = web + "/issues/" + strconv.FormatInt(is.IID, 10) + anchor
		out.Issue = &NoteHookIssue{
			ID: is.ID, Title: is.Title, AssigneeIDs: []int64{}, AssigneeID: is.AssigneeID,
			AuthorID: is.AuthorID, ProjectID: is.ProjectID,
			CreatedAt: HookUTCTime{is.CreatedAt}, UpdatedAt: HookUTCTime{is.UpdatedAt},
			Description: is.Description, MilestoneID: is.MilestoneID, State: is.State, IID: is.IID,
		}
		if is.AssigneeID != nil {
			out.Issue.AssigneeIDs = []int64{*is.AssigneeID}
		}
	case in.Snippet != nil:
		s := in.Snippet
		attrs.NoteableType, attrs.NoteableID = domain.TargetSnippet, &noteableID
		attrs.URL = web + "/snippets/" + strconv.FormatInt(s.ID, 10) + anchor
		out.Snippet = &NoteHookSnippet{
			ID: s.ID, Title: s.Title, Content: s.Content, AuthorID: s.AuthorID, ProjectID: s.ProjectID,
			CreatedAt: HookUTCTime{s.CreatedAt}, UpdatedAt: HookUTCTime{s.UpdatedAt},
			FileName: s.FileName, ExpiresAt: hookUTCTimePtr(s.ExpiresAt),
			Type: "ProjectSnippet", VisibilityLevel: VisibilityLevel(s.Visibility),
		}
	}
	out.ObjectAttributes = attrs
	return out
}

func noteHookMergeRequest(project HookProjectInput, in *NoteHookMergeRequestInput) *NoteHookMergeRequest {
	mr := in.MergeRequest
	target := hookProject(project)
	source := target
	if in.Source != nil {
		source = hookProject(*in.Source)
	}
	out := &NoteHookMergeRequest{
		ID: mr.ID, TargetBranch: mr.TargetBranch, SourceBranch: mr.SourceBranch,
		SourceProjectID: mr.SourceProjectID, AuthorID: mr.AuthorID, AssigneeID: mr.AssigneeID,
		Title: mr.Title, CreatedAt: HookUTCTime{mr.CreatedAt}, UpdatedAt: HookUTCTime{mr.UpdatedAt},
		MilestoneID: mr.MilestoneID, State: string(mr.State), MergeStatus: mr.MergeStatus,
		TargetProjectID: mr.TargetProjectID, IID: mr.IID, Description: mr.Description,
		Source: source, Target: target, LastCommit: hookGitCommit(project.WebURL, in.LastCommit),
		WorkInProgress: mr.WorkInProgress(),
	}
	if in.Assignee != nil {
		a := hookUser(in.Assignee)
		out.Assignee = &a
	}
	return out
}
