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

// MergeRequestPresenter renders merge requests with what they embed
// (users, milestones, the caller's subscription, project URLs) in a
// constant number of queries per list.
type MergeRequestPresenter struct {
	Users         ports.UserStore
	Projects      ports.ProjectStore
	Presenter     *ProjectPresenter
	Subscriptions ports.SubscriptionStore
	// Milestones is nil until a module provides milestones.
	Milestones ports.MilestoneReader
}

// mrContext is what a list of merge requests embeds.
type mrContext struct {
	base       string
	users      map[int64]*domain.User
	projects   map[int64]ProjectBasic
	milestones map[int64]*domain.Milestone
	subscribed map[int64]bool
}

func (p *MergeRequestPresenter) load(ctx context.Context, caller *domain.Caller, list []domain.MergeRequest, simple bool) (*mrContext, error) {
	mc := &mrContext{base: p.Presenter.BaseURL, users: map[int64]*domain.User{}, projects: map[int64]ProjectBasic{},
		milestones: map[int64]*domain.Milestone{}, subscribed: map[int64]bool{}}
	if len(list) == 0 {
		return mc, nil
	}
	var userIDs, projectIDs, milestoneIDs, ids []int64
	for _, m := range list {
		ids = append(ids, m.ID)
		projectIDs = append(projectIDs, m.ProjectID)
		userIDs = append(userIDs, m.AuthorID)
		if m.AssigneeID != nil {
			userIDs = append(userIDs, *m.AssigneeID)
		}
		if m.MilestoneID != nil {
			milestoneIDs = append(milestoneIDs, *m.MilestoneID)
		}
	}
	projects, err := p.Projects.GetMany(ctx, projectIDs)
	if err != nil {
		return nil, fmt.Errorf("load projects of merge requests: %w", err)
	}
	if mc.projects, err = p.Presenter.Basics(ctx, projects); err != nil {
		return nil, fmt.Errorf("render projects of merge requests: %w", err)
	}
	if simple {
		return mc, nil
	}
	users, err := p.Users.GetMany(ctx, userIDs)
	if err != nil {
		return nil, fmt.Errorf("load users of merge requests: %w", err)
	}
	for i := range users {
		mc.users[users[i].ID] = &users[i]
	}
	if p.Milestones != nil && len(milestoneIDs) > 0 {
		ms, err := p.Milestones.GetMany(ctx, milestoneIDs)
		if err != nil {
			return nil, fmt.Errorf("load milestones of merge requests: %w", err)
		}
		for i := range ms {
			mc.milestones[ms[i].ID] = &ms[i]
		}
	}
	if uid := caller.UserID(); uid != 0 {
		explicit, err := p.Subscriptions.OfUser(ctx, uid, domain.TargetMergeRequest, ids)
		if err != nil {
			return nil, fmt.Errorf("load subscriptions: %w", err)
		}
		for _, m := range list {
			mc.subscribed[m.ID] = Subscribed(explicit, &m, uid)
		}
	}
	return mc, nil
}

// Subscribed applies GitLab's subscription rule to a merge request.
func Subscribed(explicit map[int64]bool, m *domain.MergeRequest, userID int64) bool {
	return issuable.Subscribed(choice(explicit, m.ID), m.AuthorID, m.AssigneeID, userID)
}

// choice is the explicit subscription of id in a map of them, if any.
func choice(explicit map[int64]bool, id int64) *bool {
	if s, ok := explicit[id]; ok {
		return &s
	}
	return nil
}

// WebURL links to a merge request under its project's web URL.
func MergeRequestURL(projectWebURL string, iid int64) string {
	return projectWebURL + "/merge_requests/" + strconv.FormatInt(iid, 10)
}

func (mc *mrContext) user(id *int64) *UserBasic {
	if id == nil {
		return nil
	}
	u := mc.users[*id]
	if u == nil {
		return nil
	}
	b := UserBasicOf(mc.base, u)
	return &b
}

func (mc *mrContext) render(m *domain.MergeRequest) MergeRequest {
	labels := m.Labels
	if labels == nil {
		labels = []string{}
	}
	var milestone *Milestone
	if m.MilestoneID != nil {
		milestone = MilestoneOf(mc.milestones[*m.MilestoneID])
	}
	author := m.AuthorID
	status := m.MergeStatus
	if status == domain.MergeUnchecked || status == "" {
		status = domain.MergeCanBeMerged // GitLab 9.x shows unchecked as mergeable until checked
	}
	return MergeRequest{
		ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title, Description: m.Description,
		State: string(m.State), CreatedAt: httpx.TimeOf(m.CreatedAt), UpdatedAt: httpx.TimeOf(m.UpdatedAt),
		TargetBranch: m.TargetBranch, SourceBranch: m.SourceBranch, Upvotes: m.Upvotes, Downvotes: m.Downvotes,
		Author: mc.user(&author), Assignee: mc.user(m.AssigneeID),
		SourceProjectID: m.SourceProjectID, TargetProjectID: m.TargetProjectID, Labels: labels,
		WorkInProgress: m.WorkInProgress(), Milestone: milestone,
		MergeWhenPipelineSucceeds: m.MergeWhenPipelineSucceeds, MergeStatus: status, SHA: m.SourceSHA,
		MergeCommitSHA: m.MergeCommitSHA, UserNotesCount: m.UserNotesCount,
		ShouldRemoveSourceBranch: m.ShouldRemoveSourceBranch, ForceRemoveSourceBranch: m.ForceRemoveSourceBranch,
		WebURL:     MergeRequestURL(mc.projects[m.ProjectID].WebURL, m.IID),
		Subscribed: mc.subscribed[m.ID], MergedAt: httpx.TimePtr(m.MergedAt), ClosedAt: httpx.TimePtr(m.ClosedAt),
	}
}

// Render renders a list of merge requests.
func (p *MergeRequestPresenter) Render(ctx context.Context, caller *domain.Caller, list []domain.MergeRequest) ([]MergeRequest, error) {
	mc, err := p.load(ctx, caller, list, false)
	if err != nil {
		return nil, err
	}
	out := make([]MergeRequest, 0, len(list))
	for i := range list {
		out = append(out, mc.render(&list[i]))
	}
	return out, nil
}

// RenderSimple renders a list in the view=simple shape.
func (p *MergeRequestPresenter) RenderSimple(ctx context.Context, list []domain.MergeRequest) ([]MergeRequestSimple, error) {
	mc, err := p.load(ctx, nil, list, true)
	if err != nil {
		return nil, err
	}
	out := make([]MergeRequestSimple, 0, len(list))
	for _, m := range list {
		out = append(out, MergeRequestSimple{ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title,
			Description: m.Description, State: string(m.State), CreatedAt: httpx.TimeOf(m.CreatedAt),
			UpdatedAt: httpx.TimeOf(m.UpdatedAt), WebURL: MergeRequestURL(mc.projects[m.ProjectID].WebURL, m.IID)})
	}
	return out, nil
}

// One renders a single merge request.
func (p *MergeRequestPresenter) One(ctx context.Context, caller *domain.Caller, m *domain.MergeRequest) (*MergeRequest, error) {
	out, err := p.Render(ctx, caller, []domain.MergeRequest{*m})
	if err != nil {
		return nil, err
	}
	return &out[0], nil
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
	users, err := p.Render.Users.GetMany(ctx, userIDs)
	if err != nil {
		return nil, fmt.Errorf("load todo authors: %w", err)
	}
	authors := make(map[int64]*domain.User, len(users))
	for i := range users {
		authors[users[i].ID] = &users[i]
	}
	projects, err := p.Render.Projects.GetMany(ctx, projectIDs)
	if err != nil {
		return nil, fmt.Errorf("load todo projects: %w", err)
	}
	basics, err := p.Render.Presenter.Basics(ctx, projects)
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
		if m := targets[t.TargetID]; m != nil && t.TargetType == domain.TargetMergeRequest {
			td.Target = m
			td.TargetURL = m.WebURL
			if td.Body == "" {
				td.Body = m.Title
			}
		}
		if is := issues[t.TargetID]; is != nil && t.TargetType == domain.TargetIssue {
			td.Target = is
			td.TargetURL = is.WebURL
			if td.Body == "" {
				td.Body = is.Title
			}
		}
		out = append(out, td)
	}
	return out, nil
}

// mergeRequests renders the merge requests todos point at, by ID.
func (p *TodoPresenter) mergeRequests(ctx context.Context, caller *domain.Caller, ids []int64) (map[int64]*MergeRequest, error) {
	out := map[int64]*MergeRequest{}
	if len(ids) == 0 {
		return out, nil
	}
	mrs, err := p.MergeRequests.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load todo targets: %w", err)
	}
	rendered, err := p.Render.Render(ctx, caller, mrs)
	if err != nil {
		return nil, err
	}
	for i := range rendered {
		out[rendered[i].ID] = &rendered[i]
	}
	return out, nil
}

// issues renders the issues todos point at, by ID.
func (p *TodoPresenter) issues(ctx context.Context, caller *domain.Caller, ids []int64) (map[int64]*Issue, error) {
	out := map[int64]*Issue{}
	if len(ids) == 0 || p.Issues == nil || p.RenderIssues == nil {
		return out, nil
	}
	list, err := p.Issues.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load todo issues: %w", err)
	}
	rendered, err := p.RenderIssues.Render(ctx, caller, list)
	if err != nil {
		return nil, err
	}
	for i := range rendered {
		out[rendered[i].ID] = &rendered[i]
	}
	return out, nil
}
