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

// Issue is GitLab 9.x's issue entity.
type Issue struct {
	ID             int64        `json:"id"`
	IID            int64        `json:"iid"`
	ProjectID      int64        `json:"project_id"`
	Title          string       `json:"title"`
	Description    string       `json:"description"`
	State          string       `json:"state"`
	CreatedAt      httpx.Time   `json:"created_at"`
	UpdatedAt      httpx.Time   `json:"updated_at"`
	ClosedAt       *httpx.Time  `json:"closed_at"`
	Labels         []string     `json:"labels"`
	Milestone      *Milestone   `json:"milestone"`
	Assignees      []*UserBasic `json:"assignees"`
	Assignee       *UserBasic   `json:"assignee"`
	Author         *UserBasic   `json:"author"`
	UserNotesCount int          `json:"user_notes_count"`
	Upvotes        int          `json:"upvotes"`
	Downvotes      int          `json:"downvotes"`
	DueDate        *httpx.Date  `json:"due_date"`
	Confidential   bool         `json:"confidential"`
	WebURL         string       `json:"web_url"`
	Subscribed     bool         `json:"subscribed"`
}

// IssuePresenter renders issues with what they embed (users, milestones,
// the caller's subscriptions, project URLs) in a constant number of
// queries per list, like MergeRequestPresenter.
type IssuePresenter struct {
	Users         ports.UserStore
	Projects      ports.ProjectStore
	Presenter     *ProjectPresenter
	Subscriptions ports.SubscriptionStore
	// Milestones may be nil: issues then show no milestone.
	Milestones ports.MilestoneReader
}

// IssueURL links to an issue under its project's web URL.
func IssueURL(projectWebURL string, iid int64) string {
	return projectWebURL + "/issues/" + strconv.FormatInt(iid, 10)
}

// IssueSubscribed applies GitLab's subscription rule to an issue.
func IssueSubscribed(explicit map[int64]bool, is *domain.Issue, userID int64) bool {
	return issuable.Subscribed(choice(explicit, is.ID), is.AuthorID, is.AssigneeID, userID)
}

// Render renders a list of issues for caller.
func (p *IssuePresenter) Render(ctx context.Context, caller *domain.Caller, list []domain.Issue) ([]Issue, error) {
	out := make([]Issue, 0, len(list))
	if len(list) == 0 {
		return out, nil
	}
	var userIDs, projectIDs, milestoneIDs, ids []int64
	for _, is := range list {
		ids = append(ids, is.ID)
		projectIDs = append(projectIDs, is.ProjectID)
		userIDs = append(userIDs, is.AuthorID)
		if is.AssigneeID != nil {
			userIDs = append(userIDs, *is.AssigneeID)
		}
		if is.MilestoneID != nil {
			milestoneIDs = append(milestoneIDs, *is.MilestoneID)
		}
	}
	projects, err := p.Projects.GetMany(ctx, projectIDs)
	if err != nil {
		return nil, fmt.Errorf("load projects of issues: %w", err)
	}
	basics, err := p.Presenter.Basics(ctx, projects)
	if err != nil {
		return nil, fmt.Errorf("render projects of issues: %w", err)
	}
	users, err := p.Users.GetMany(ctx, userIDs)
	if err != nil {
		return nil, fmt.Errorf("load users of issues: %w", err)
	}
	byID := make(map[int64]*domain.User, len(users))
	for i := range users {
		byID[users[i].ID] = &users[i]
	}
	milestones := map[int64]*domain.Milestone{}
	if p.Milestones != nil && len(milestoneIDs) > 0 {
		ms, err := p.Milestones.GetMany(ctx, milestoneIDs)
		if err != nil {
			return nil, fmt.Errorf("load milestones of issues: %w", err)
		}
		for i := range ms {
			milestones[ms[i].ID] = &ms[i]
		}
	}
	explicit := map[int64]bool{}
	uid := caller.UserID()
	if uid != 0 {
		if explicit, err = p.Subscriptions.OfUser(ctx, uid, domain.TargetIssue, ids); err != nil {
			return nil, fmt.Errorf("load subscriptions: %w", err)
		}
	}
	base := p.Presenter.BaseURL
	user := func(id *int64) *UserBasic {
		if id == nil || byID[*id] == nil {
			return nil
		}
		b := UserBasicOf(base, byID[*id])
		return &b
	}
	for i := range list {
		is := &list[i]
		labels := is.Labels
		if labels == nil {
			labels = []string{}
		}
		var milestone *Milestone
		if is.MilestoneID != nil {
			milestone = MilestoneOf(milestones[*is.MilestoneID])
		}
		author := is.AuthorID
		assignee := user(is.AssigneeID)
		assignees := []*UserBasic{}
		if assignee != nil {
			assignees = append(assignees, assignee)
		}
		out = append(out, Issue{
			ID: is.ID, IID: is.IID, ProjectID: is.ProjectID, Title: is.Title, Description: is.Description,
			State: is.State, CreatedAt: httpx.TimeOf(is.CreatedAt), UpdatedAt: httpx.TimeOf(is.UpdatedAt),
			ClosedAt: httpx.TimePtr(is.ClosedAt), Labels: labels, Milestone: milestone,
			Assignees: assignees, Assignee: assignee, Author: user(&author),
			UserNotesCount: is.UserNotesCount, Upvotes: is.Upvotes, Downvotes: is.Downvotes,
			DueDate: httpx.DatePtr(is.DueDate), Confidential: is.Confidential,
			WebURL:     IssueURL(basics[is.ProjectID].WebURL, is.IID),
			Subscribed: IssueSubscribed(explicit, is, uid),
		})
	}
	return out, nil
}

// One renders a single issue.
func (p *IssuePresenter) One(ctx context.Context, caller *domain.Caller, is *domain.Issue) (*Issue, error) {
	out, err := p.Render(ctx, caller, []domain.Issue{*is})
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}
