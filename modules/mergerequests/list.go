package mergerequests

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// List is one page of the merge requests of the project ref names,
// refreshed against git, their total, and the access target (rendering reuses
// what it read).
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ListInput) ([]domain.MergeRequest, int, access.Target, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return nil, 0, access.Target{}, err
	}
	f, err := in.filter()
	if err != nil {
		return nil, 0, access.Target{}, err
	}
	f.ProjectID = t.Project.ID
	list, total, err := s.list(ctx, f, in.Milestone)
	return list, total, t, err
}

// ListAll is one page of the caller's merge requests (scope: created by
// them by default, assigned to them, or all) across the projects whose
// merge requests they may read.
func (s *Service) ListAll(ctx context.Context, caller *domain.Caller, in ListInput) ([]domain.MergeRequest, int, error) {
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
	if f.Readable, err = s.p.Policy.ProjectScopeAt(ctx, caller, domain.Reporter); err != nil {
		return nil, 0, fmt.Errorf("readable projects: %w", err)
	}
	f.EnabledOnly = true // as the project list's 404: administrators too
	return s.list(ctx, f, in.Milestone)
}

// stateFilter maps the state parameter's values to the states each lists.
var stateFilter = map[string][]domain.MergeRequestState{
	"opened": {domain.MROpened, domain.MRReopened},
	"closed": {domain.MRClosed},
	"merged": {domain.MRMerged},
}

// filter checks the parameters into a store filter.
func (in ListInput) filter() (domain.MergeRequestFilter, error) {
	states, c, err := issuable.Check(in.ListParams, in.Invalid, stateFilter)
	if err != nil {
		return domain.MergeRequestFilter{}, err
	}
	if in.View != "" && in.View != "simple" {
		return domain.MergeRequestFilter{}, issuable.InvalidValue("view")
	}
	return domain.MergeRequestFilter{States: states, IIDs: c.IIDs, AuthorID: c.AuthorID, AssigneeID: c.AssigneeID,
		Labels: c.Labels, NoLabels: c.NoLabels, CreatedAfter: c.CreatedAfter, CreatedBefore: c.CreatedBefore,
		OrderBy: c.OrderBy, Ascending: c.Ascending, Page: in.Page}, nil
}

// list reads one page of f, with the milestone title filter resolved,
// and refreshes it against git.
func (s *Service) list(ctx context.Context, f domain.MergeRequestFilter, milestone *string) ([]domain.MergeRequest, int, error) {
	m, err := issuable.Milestones(ctx, s.p.Milestones, f.ProjectID, milestone)
	if err != nil || m.Nothing {
		return nil, 0, err
	}
	f.MilestoneIDs, f.NoMilestone = m.IDs, m.None
	list, total, err := s.p.MergeRequests.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list merge requests: %w", err)
	}
	return s.refreshList(ctx, list), total, nil
}
