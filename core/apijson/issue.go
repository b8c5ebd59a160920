package apijson

import (
	"context"
	"strconv"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
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

// IssuePresenter renders issues with what they embed in a constant number
// of queries per list, like MergeRequestPresenter.
type IssuePresenter struct{ Embeds }

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
	return p.render(ctx, caller, list, nil, nil)
}

// RenderIn renders a list of issues of proj, which the caller's access
// check already loaded with namespaces nss (access.Target): neither is
// read again.
func (p *IssuePresenter) RenderIn(ctx context.Context, caller *domain.Caller, proj *domain.Project, nss []domain.Namespace, list []domain.Issue) ([]Issue, error) {
	return p.render(ctx, caller, list, []*domain.Project{proj}, nss)
}

func (p *IssuePresenter) render(ctx context.Context, caller *domain.Caller, list []domain.Issue, known []*domain.Project, nss []domain.Namespace) ([]Issue, error) {
	refs := make([]embedRef, 0, len(list))
	for _, is := range list {
		refs = append(refs, embedRef{id: is.ID, projectID: is.ProjectID, authorID: is.AuthorID,
			assigneeID: is.AssigneeID, milestoneID: is.MilestoneID})
	}
	em, err := p.load(ctx, caller, domain.TargetIssue, "issues", refs, false, known, nss)
	if err != nil {
		return nil, err
	}
	out := make([]Issue, 0, len(list))
	for i := range list {
		is := &list[i]
		author := is.AuthorID
		assignee := em.user(is.AssigneeID)
		assignees := []*UserBasic{}
		if assignee != nil {
			assignees = append(assignees, assignee)
		}
		out = append(out, Issue{
			ID: is.ID, IID: is.IID, ProjectID: is.ProjectID, Title: is.Title, Description: is.Description,
			State: is.State, CreatedAt: httpx.TimeOf(is.CreatedAt), UpdatedAt: httpx.TimeOf(is.UpdatedAt),
			ClosedAt: httpx.TimePtr(is.ClosedAt), Labels: labels(is.Labels), Milestone: em.milestone(is.MilestoneID),
			Assignees: assignees, Assignee: assignee, Author: em.user(&author),
			UserNotesCount: is.UserNotesCount, Upvotes: is.Upvotes, Downvotes: is.Downvotes,
			DueDate: httpx.DatePtr(is.DueDate), Confidential: is.Confidential,
			WebURL:     IssueURL(em.webURL(is.ProjectID), is.IID),
			Subscribed: IssueSubscribed(em.explicit, is, em.uid),
		})
	}
	return out, nil
}
