package issues

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// List is one page of the issues of the project ref names that the
// caller may see, their total, and the access target (rendering reuses what it
// read).
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ListInput) ([]domain.Issue, int, access.Target, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadIssue)
	if err != nil {
		return nil, 0, access.Target{}, err
	}
	f, err := in.filter()
	if err != nil {
		return nil, 0, access.Target{}, err
	}
	f.ProjectID, f.Viewer = t.Project.ID, t.IssueViewer()
	list, total, err := s.list(ctx, f, in.Milestone)
	return list, total, t, err
}

// ListAll is one page of the caller's issues (scope: created by them by
// default, assigned to them, or all) across the projects whose issues
// they may read.
func (s *Service) ListAll(ctx context.Context, caller *domain.Caller, in ListInput) ([]domain.Issue, int, error) {
	if caller.UserID() == 0 {
		return nil, 0, core.Unauthenticated()
	}
	f, err := in.filter()
	if err != nil {
		return nil, 0, err
	}
	if err := issuable.Mine(in.Scope, caller.UserID(), &f.AuthorID, &f.AssigneeID); err != nil {
		return nil, 0, err
	}
	if f.Readable, err = s.p.Policy.ProjectScope(ctx, caller); err != nil {
		return nil, 0, fmt.Errorf("readable projects: %w", err)
	}
	if f.Viewer, err = s.p.Policy.IssueViewer(ctx, caller); err != nil {
		return nil, 0, err
	}
	return s.list(ctx, f, in.Milestone)
}

// ListGroup is one page of the issues of the projects in the group ref
// names and in its subgroups, of those projects whose issues the caller
// may read, without the confidential issues they may not see (GitLab
// 9.x's GET /groups/:id/issues: every state unless state says otherwise).
// The read scope and the namespaces apply in the store's query, so the
// total counts only what the caller sees.
func (s *Service) ListGroup(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ListInput) ([]domain.Issue, int, error) {
	if ref == (domain.IDOrPath{}) {
		return nil, 0, core.InvalidParam("id")
	}
	g, err := s.p.Policy.ResolveGroup(ctx, caller, ref)
	if err != nil {
		return nil, 0, err
	}
	f, err := in.filter()
	if err != nil {
		return nil, 0, err
	}
	sub, err := s.p.Namespaces.Descendants(ctx, []int64{g.Group.ID})
	if err != nil {
		return nil, 0, fmt.Errorf("subgroups of group %d: %w", g.Group.ID, err)
	}
	f.NamespaceIDs = append([]int64{g.Group.ID}, sub...)
	if f.Readable, err = s.p.Policy.ProjectScope(ctx, caller); err != nil {
		return nil, 0, fmt.Errorf("readable projects: %w", err)
	}
	if f.Viewer, err = s.p.Policy.IssueViewer(ctx, caller); err != nil {
		return nil, 0, err
	}
	switch {
	case in.Milestone == nil || *in.Milestone == "":
	case issuable.NoMilestone(*in.Milestone):
		f.NoMilestone = true
	default: // titles are matched in each project of the group
		f.MilestoneTitle = *in.Milestone
	}
	list, total, err := s.p.Issues.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list group issues: %w", err)
	}
	return list, total, nil
}

// stateFilter maps the state parameter's values to the states each lists.
var stateFilter = map[string][]string{
	"opened": {domain.IssueOpened, domain.IssueReopened},
	"closed": {domain.IssueClosed},
}

// filter checks the parameters into a store filter.
func (in ListInput) filter() (domain.IssueFilter, error) {
	states, c, err := issuable.Check(in.ListParams, in.Invalid, stateFilter)
	if err != nil {
		return domain.IssueFilter{}, err
	}
	return domain.IssueFilter{States: states, IIDs: c.IIDs, AuthorID: c.AuthorID, AssigneeID: c.AssigneeID,
		Labels: c.Labels, NoLabels: c.NoLabels, Search: strings.TrimSpace(in.Search),
		CreatedAfter: c.CreatedAfter, CreatedBefore: c.CreatedBefore, OrderBy: c.OrderBy, Ascending: c.Ascending,
		Page: in.Page}, nil
}

// list reads one page of f, with the milestone title filter resolved.
func (s *Service) list(ctx context.Context, f domain.IssueFilter, milestone *string) ([]domain.Issue, int, error) {
	m, err := issuable.Milestones(ctx, s.p.Milestones, f.ProjectID, milestone)
	if err != nil || m.Nothing {
		return nil, 0, err
	}
	if milestone != nil && *milestone != "" { // else f keeps the milestones it names
		f.MilestoneIDs, f.NoMilestone = m.IDs, m.None
	}
	list, total, err := s.p.Issues.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list issues: %w", err)
	}
	return list, total, nil
}
