package issues

import (
	"context"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Create opens an issue in the project ref names. Fields only reporters
// may set (assignee, milestone, labels, confidential, due date) are
// dropped for others, as GitLab's filter_params does; only owners may
// backdate created_at.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in CreateInput) (*domain.Issue, access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadIssue)
	if err != nil {
		return nil, t, err
	}
	if in.Invalid != nil {
		return nil, t, in.Invalid
	}
	if err := t.Require(access.CreateIssue); err != nil {
		return nil, t, err
	}
	if err := issuable.ValidTitle(in.Title); err != nil {
		return nil, t, err
	}
	due, err := parseDate("due_date", in.DueDate)
	if err != nil {
		return nil, t, err
	}
	actor := caller.UserID()
	is := &domain.Issue{ProjectID: t.Project.ID, Title: strings.TrimSpace(in.Title), Description: in.Description,
		State: domain.IssueOpened, AuthorID: actor, Labels: []string{}, CreatedAt: s.now(), UpdatedAt: s.now()}
	if in.CreatedAt != nil && t.Can(access.SetIssueCreatedAt) {
		is.CreatedAt = in.CreatedAt.UTC().Truncate(time.Millisecond)
	}
	if t.Can(access.AdminIssue) {
		is.Confidential, is.DueDate = in.Confidential, due
		if in.Labels != nil {
			is.Labels = issuable.NormalizeLabels(*in.Labels)
		}
		if is.MilestoneID, err = s.activity.Milestone(ctx, t.Project.ID, in.MilestoneID); err != nil {
			return nil, t, err
		}
		if is.AssigneeID, err = s.activity.Assignee(ctx, t.Project, assigneeOf(in.AssigneeID, in.AssigneeIDs), access.ReadIssue); err != nil {
			return nil, t, err
		}
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.activity.EnsureLabels(ctx, is.ProjectID, is.Labels); err != nil {
			return err
		}
		if err := s.p.Issues.Create(ctx, is); err != nil {
			return core.StoreError(err, "Project", "create issue")
		}
		return s.activity.Record(ctx, issuable.Change{Project: t.Project, After: issuable.IssueItem(is), Actor: actor},
			domain.ActionCreated, nil, s.publisher(is, actor))
	})
	if err != nil {
		return nil, t, err
	}
	return is, t, nil
}
