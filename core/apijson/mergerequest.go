package apijson

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
	"github.com/hearth-forge/hearth/core/ports"
)

// Milestone is GitLab's milestone entity.
type Milestone struct {
	ID          int64       `json:"id"`
	IID         int64       `json:"iid"`
	ProjectID   int64       `json:"project_id"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	State       string      `json:"state"`
	CreatedAt   httpx.Time  `json:"created_at"`
	UpdatedAt   httpx.Time  `json:"updated_at"`
	DueDate     *httpx.Date `json:"due_date"`
	StartDate   *httpx.Date `json:"start_date"`
}

// MilestoneOf renders m.
func MilestoneOf(m *domain.Milestone) *Milestone {
	if m == nil {
		return nil
	}
	return &Milestone{ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title, Description: m.Description,
		State: m.State, CreatedAt: httpx.TimeOf(m.CreatedAt), UpdatedAt: httpx.TimeOf(m.UpdatedAt),
		DueDate: httpx.DatePtr(m.DueDate), StartDate: httpx.DatePtr(m.StartDate)}
}

// MergeRequest is GitLab 9.x's merge request entity.
type MergeRequest struct {
	ID                        int64       `json:"id"`
	IID                       int64       `json:"iid"`
	ProjectID                 int64       `json:"project_id"`
	Title                     string      `json:"title"`
	Description               string      `json:"description"`
	State                     string      `json:"state"`
	CreatedAt                 httpx.Time  `json:"created_at"`
	UpdatedAt                 httpx.Time  `json:"updated_at"`
	TargetBranch              string      `json:"target_branch"`
	SourceBranch              string      `json:"source_branch"`
	Upvotes                   int         `json:"upvotes"`
	Downvotes                 int         `json:"downvotes"`
	Author                    *UserBasic  `json:"author"`
	Assignee                  *UserBasic  `json:"assignee"`
	SourceProjectID           int64       `json:"source_project_id"`
	TargetProjectID           int64       `json:"target_project_id"`
	Labels                    []string    `json:"labels"`
	WorkInProgress            bool        `json:"work_in_progress"`
	Milestone                 *Milestone  `json:"milestone"`
	MergeWhenPipelineSucceeds bool        `json:"merge_when_pipeline_succeeds"`
	MergeStatus               string      `json:"merge_status"`
	SHA                       string      `json:"sha"`
	MergeCommitSHA            *string     `json:"merge_commit_sha"`
	UserNotesCount            int         `json:"user_notes_count"`
	ShouldRemoveSourceBranch  bool        `json:"should_remove_source_branch"`
	ForceRemoveSourceBranch   bool        `json:"force_remove_source_branch"`
	WebURL                    string      `json:"web_url"`
	Subscribed                bool        `json:"subscribed"`
	MergedAt                  *httpx.Time `json:"merged_at"`
	ClosedAt                  *httpx.Time `json:"closed_at"`
}

// MergeRequestSimple is the view=simple entity.
type MergeRequestSimple struct {
	ID          int64      `json:"id"`
	IID         int64      `json:"iid"`
	ProjectID   int64      `json:"project_id"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	State       string     `json:"state"`
	CreatedAt   httpx.Time `json:"created_at"`
	UpdatedAt   httpx.Time `json:"updated_at"`
	WebURL      string     `json:"web_url"`
}

// MergeRequestPresenter renders merge requests with what they embed in a
// constant number of queries per list.
type MergeRequestPresenter struct{ Embeds }

// load loads what list embeds; simple lists embed only their projects.
func (p *MergeRequestPresenter) load(ctx context.Context, caller *domain.Caller, list []domain.MergeRequest, simple bool, known []*domain.Project, nss []domain.Namespace) (*embedded, error) {
	refs := make([]embedRef, 0, len(list))
	for _, m := range list {
		refs = append(refs, embedRef{id: m.ID, projectID: m.ProjectID, authorID: m.AuthorID,
			assigneeID: m.AssigneeID, milestoneID: m.MilestoneID})
	}
	return p.Embeds.load(ctx, caller, domain.TargetMergeRequest, "merge requests", refs, simple, known, nss)
}

// Subscribed applies GitLab's subscription rule to a merge request.
func Subscribed(explicit map[int64]bool, m *domain.MergeRequest, userID int64) bool {
	return issuable.Subscribed(choice(explicit, m.ID), m.AuthorID, m.AssigneeID, userID)
}

// MergeRequestURL links to a merge request under its project's web URL.
func MergeRequestURL(projectWebURL string, iid int64) string {
	return projectWebURL + "/merge_requests/" + strconv.FormatInt(iid, 10)
}

func (em *embedded) mergeRequest(m *domain.MergeRequest) MergeRequest {
	author := m.AuthorID
	status := m.MergeStatus
	if status == domain.MergeUnchecked || status == "" {
		status = domain.MergeCanBeMerged // GitLab 9.x shows unchecked as mergeable until checked
	}
	return MergeRequest{
		ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title, Description: m.Description,
		State: string(m.State), CreatedAt: httpx.TimeOf(m.CreatedAt), UpdatedAt: httpx.TimeOf(m.UpdatedAt),
		TargetBranch: m.TargetBranch, SourceBranch: m.SourceBranch, Upvotes: m.Upvotes, Downvotes: m.Downvotes,
		Author: em.user(&author), Assignee: em.user(m.AssigneeID),
		SourceProjectID: m.SourceProjectID, TargetProjectID: m.TargetProjectID, Labels: labels(m.Labels),
		WorkInProgress: m.WorkInProgress(), Milestone: em.milestone(m.MilestoneID),
		MergeWhenPipelineSucceeds: m.MergeWhenPipelineSucceeds, MergeStatus: status, SHA: m.SourceSHA,
		MergeCommitSHA: m.MergeCommitSHA, UserNotesCount: m.UserNotesCount,
		ShouldRemoveSourceBranch: m.ShouldRemoveSourceBranch, ForceRemoveSourceBranch: m.ForceRemoveSourceBranch,
		WebURL:     MergeRequestURL(em.webURL(m.ProjectID), m.IID),
		Subscribed: Subscribed(em.explicit, m, em.uid), MergedAt: httpx.TimePtr(m.MergedAt), ClosedAt: httpx.TimePtr(m.ClosedAt),
	}
}

// Render renders a list of merge requests.
func (p *MergeRequestPresenter) Render(ctx context.Context, caller *domain.Caller, list []domain.MergeRequest) ([]MergeRequest, error) {
	return p.render(ctx, caller, list, nil, nil)
}

// RenderIn renders a list of merge requests of proj, which the caller's
// access check already loaded with namespaces nss (access.Target):
// neither is read again.
func (p *MergeRequestPresenter) RenderIn(ctx context.Context, caller *domain.Caller, proj *domain.Project, nss []domain.Namespace, list []domain.MergeRequest) ([]MergeRequest, error) {
	return p.render(ctx, caller, list, []*domain.Project{proj}, nss)
}

func (p *MergeRequestPresenter) render(ctx context.Context, caller *domain.Caller, list []domain.MergeRequest, known []*domain.Project, nss []domain.Namespace) ([]MergeRequest, error) {
	em, err := p.load(ctx, caller, list, false, known, nss)
	if err != nil {
		return nil, err
	}
	out := make([]MergeRequest, 0, len(list))
	for i := range list {
		out = append(out, em.mergeRequest(&list[i]))
	}
	return out, nil
}

// RenderSimple renders a list in the view=simple shape.
func (p *MergeRequestPresenter) RenderSimple(ctx context.Context, list []domain.MergeRequest) ([]MergeRequestSimple, error) {
	em, err := p.load(ctx, nil, list, true, nil, nil)
	if err != nil {
		return nil, err
	}
	out := make([]MergeRequestSimple, 0, len(list))
	for _, m := range list {
		out = append(out, MergeRequestSimple{ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title,
			Description: m.Description, State: string(m.State), CreatedAt: httpx.TimeOf(m.CreatedAt),
			UpdatedAt: httpx.TimeOf(m.UpdatedAt), WebURL: MergeRequestURL(em.webURL(m.ProjectID), m.IID)})
	}
	return out, nil
}

// One renders a single merge request.
func (p *MergeRequestPresenter) One(ctx context.Context, caller *domain.Caller, m *domain.MergeRequest) (*MergeRequest, error) {
	return one(ctx, caller, m, p.Render)
}

// TodoProject is the project object inside a todo.
type TodoProject struct {
	ID                int64  `json:"id"`
	Name              string `json:"name"`
	NameWithNamespace string `json:"name_with_namespace"`
	Path              string `json:"path"`
	PathWithNamespace string `json:"path_with_namespace"`
}

// Todo is GitLab's todo entity.
type Todo struct {
	ID         int64        `json:"id"`
	Project    *TodoProject `json:"project"`
	Author     *UserBasic   `json:"author"`
	ActionName string       `json:"action_name"`
	TargetType string       `json:"target_type"`
	Target     any          `json:"target"`
	TargetURL  string       `json:"target_url"`
	Body       string       `json:"body"`
	State      string       `json:"state"`
	CreatedAt  httpx.Time   `json:"created_at"`
}

// TodoPresenter renders todos with their targets in a constant number of
// queries per list.
type TodoPresenter struct {
	MergeRequests ports.MergeRequestStore
	Render        *MergeRequestPresenter
	// Issues and RenderIssues render todos about issues; without them
	// those targets are null.
	Issues       ports.IssueStore
	RenderIssues *IssuePresenter
}

// Todos renders todos for caller (whose subscriptions the targets show).
// Targets that no longer exist render as null.
func (p *TodoPresenter) Todos(ctx context.Context, caller *domain.Caller, list []domain.Todo) ([]Todo, error) {
	out := make([]Todo, 0, len(list))
	if len(list) == 0 {
		return out, nil
	}
	var mrIDs, issueIDs, userIDs, projectIDs []int64
	for _, t := range list {
		userIDs = append(userIDs, t.AuthorID)
		projectIDs = append(projectIDs, t.ProjectID)
		switch t.TargetType {
		case domain.TargetMergeRequest:
			mrIDs = append(mrIDs, t.TargetID)
		case domain.TargetIssue:
			issueIDs = append(issueIDs, t.TargetID)
		}
	}
	targets, err := p.mergeRequests(ctx, caller, mrIDs)
	if err != nil {
		return nil, err
	}
	issues, err := p.issues(ctx, caller, issueIDs)
	if err != nil {
		return nil, err
	}
	authors, err := usersByID(ctx, p.Render.Users, userIDs, "todos")
	if err != nil {
		return nil, err
	}
	basics, err := p.Render.projectBasics(ctx, projectIDs, "todos", nil)
	if err != nil {
		return nil, err
	}
	base := p.Render.Presenter.BaseURL
	for _, t := range list {
		td := Todo{ID: t.ID, ActionName: t.Action, TargetType: t.TargetType, Body: t.Body, State: t.State,
			CreatedAt: httpx.TimeOf(t.CreatedAt)}
		if pb, ok := basics[t.ProjectID]; ok {
			td.Project = &TodoProject{ID: pb.ID, Name: pb.Name, NameWithNamespace: pb.NameWithNamespace,
				Path: pb.Path, PathWithNamespace: pb.PathWithNamespace}
		}
		if u := authors[t.AuthorID]; u != nil {
			b := UserBasicOf(base, u)
			td.Author = &b
		}
		switch m, is := targets[t.TargetID], issues[t.TargetID]; {
		case m != nil && t.TargetType == domain.TargetMergeRequest:
			td.pointAt(m, m.WebURL, m.Title)
		case is != nil && t.TargetType == domain.TargetIssue:
			td.pointAt(is, is.WebURL, is.Title)
		}
		out = append(out, td)
	}
	return out, nil
}

// pointAt sets the todo's target; a todo without a body shows the
// target's title.
func (td *Todo) pointAt(target any, url, title string) {
	td.Target, td.TargetURL = target, url
	if td.Body == "" {
		td.Body = title
	}
}

// mergeRequests renders the merge requests todos point at, by ID.
func (p *TodoPresenter) mergeRequests(ctx context.Context, caller *domain.Caller, ids []int64) (map[int64]*MergeRequest, error) {
	return renderByID(ctx, caller, ids, "merge requests", p.MergeRequests.GetMany, p.Render.Render,
		func(m *MergeRequest) int64 { return m.ID })
}

// issues renders the issues todos point at, by ID.
func (p *TodoPresenter) issues(ctx context.Context, caller *domain.Caller, ids []int64) (map[int64]*Issue, error) {
	if p.Issues == nil || p.RenderIssues == nil {
		return map[int64]*Issue{}, nil
	}
	return renderByID(ctx, caller, ids, "issues", p.Issues.GetMany, p.RenderIssues.Render,
		func(is *Issue) int64 { return is.ID })
}

// renderByID loads the todo targets ids name and renders them, by ID.
func renderByID[T, R any](ctx context.Context, caller *domain.Caller, ids []int64, what string,
	load func(context.Context, []int64) ([]T, error),
	render func(context.Context, *domain.Caller, []T) ([]R, error), idOf func(*R) int64) (map[int64]*R, error) {
	out := map[int64]*R{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := load(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load todo %s: %w", what, err)
	}
	rendered, err := render(ctx, caller, list)
	if err != nil {
		return nil, err
	}
	for i := range rendered {
		out[idOf(&rendered[i])] = &rendered[i]
	}
	return out, nil
}
