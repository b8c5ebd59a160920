package issues

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Milestones are read by whoever reads the project (GitLab 9.x's
// read_milestone does not depend on the issue tracker) and written by
// reporters and up (admin_milestone, as AdminIssue).

// ListMilestones is one page of the project's milestones and their total.
func (s *Service) ListMilestones(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in MilestoneListInput) ([]domain.Milestone, int, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref)
	if err != nil {
		return nil, 0, err
	}
	if in.Invalid != nil {
		return nil, 0, in.Invalid
	}
	f := domain.MilestoneFilter{ProjectID: t.Project.ID, IIDs: in.IIDs, Search: strings.TrimSpace(in.Search), Page: in.Page}
	switch in.State {
	case "":
	case domain.MilestoneActive, domain.MilestoneClosed:
		f.State = in.State
	default:
		return nil, 0, issuable.InvalidValue("state")
	}
	list, total, err := s.p.Milestones.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list milestones: %w", err)
	}
	return list, total, nil
}

// GetMilestone reads milestone id of the project (id 0 names none).
func (s *Service) GetMilestone(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Milestone, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	return s.milestone(ctx, t, id)
}

// CreateMilestone adds a milestone to the project.
func (s *Service) CreateMilestone(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in MilestoneCreateInput) (*domain.Milestone, error) {
	t, err := s.admin(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if err := issuable.FirstError(in.Invalid, issuable.ValidTitle(in.Title)); err != nil {
		return nil, err
	}
	m := &domain.Milestone{ProjectID: t.Project.ID, Title: strings.TrimSpace(in.Title), Description: in.Description,
		State: domain.MilestoneActive, CreatedAt: s.now(), UpdatedAt: s.now()}
	if m.DueDate, err = parseDate("due_date", in.DueDate); err != nil {
		return nil, err
	}
	if m.StartDate, err = parseDate("start_date", in.StartDate); err != nil {
		return nil, err
	}
	if err := checkDates(m); err != nil {
		return nil, err
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Milestones.Create(ctx, m); err != nil {
			return milestoneConflict(err, "create milestone")
		}
		return s.publishMilestone(ctx, m, domain.ActionCreated, caller.UserID())
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// UpdateMilestone edits milestone id; state_event closes or activates it.
func (s *Service) UpdateMilestone(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64, in MilestoneUpdateInput) (*domain.Milestone, error) {
	t, err := s.admin(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if err := issuable.FirstError(in.Invalid, in.validate()); err != nil {
		return nil, err
	}
	due, err := parseDate("due_date", in.DueDate)
	if err != nil {
		return nil, err
	}
	start, err := parseDate("start_date", in.StartDate)
	if err != nil {
		return nil, err
	}
	m, err := s.milestone(ctx, t, id)
	if err != nil {
		return nil, err
	}
	var out *domain.Milestone
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		action := ""
		var err error
		out, err = s.p.Milestones.Update(ctx, t.Project.ID, m.ID, func(cur *domain.Milestone) error {
			action = applyMilestone(cur, in, due, start)
			cur.UpdatedAt = s.now()
			return checkDates(cur)
		})
		if err != nil {
			return milestoneConflict(err, "update milestone")
		}
		if action == "" {
			return nil
		}
		return s.publishMilestone(ctx, out, action, caller.UserID())
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// applyMilestone sets the asked values and returns the event action of a
// state change ("" when the state stays).
func applyMilestone(cur *domain.Milestone, in MilestoneUpdateInput, due, start *time.Time) string {
	if in.Title != nil {
		cur.Title = strings.TrimSpace(*in.Title)
	}
	if in.Description != nil {
		cur.Description = *in.Description
	}
	if in.DueDate != nil {
		cur.DueDate = due
	}
	if in.StartDate != nil {
		cur.StartDate = start
	}
	switch {
	case in.StateEvent == nil:
	case *in.StateEvent == "close" && cur.State != domain.MilestoneClosed:
		cur.State = domain.MilestoneClosed
		return domain.ActionClosed
	case *in.StateEvent == "activate" && cur.State != domain.MilestoneActive:
		cur.State = domain.MilestoneActive
		return domain.ActionReopened
	}
	return ""
}

// DeleteMilestone removes milestone id; issues and merge requests lose it.
func (s *Service) DeleteMilestone(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) error {
	t, err := s.admin(ctx, caller, ref)
	if err != nil {
		return err
	}
	m, err := s.milestone(ctx, t, id)
	if err != nil {
		return err
	}
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Milestones.Delete(ctx, t.Project.ID, m.ID); err != nil {
			return core.StoreError(err, "Milestone", "delete milestone")
		}
		return s.publishMilestone(ctx, m, domain.ActionDestroyed, caller.UserID())
	})
}

// MilestoneIssues is one page of the milestone's issues the caller may
// see (none while the tracker is off).
func (s *Service) MilestoneIssues(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64, in issuable.PageInput) ([]domain.Issue, int, error) {
	t, m, err := s.milestonePage(ctx, caller, ref, id, in)
	if err != nil || !t.Can(access.ReadIssue) {
		return nil, 0, err
	}
	f := domain.IssueFilter{ProjectID: t.Project.ID, Viewer: t.IssueViewer(), MilestoneIDs: []int64{m.ID}, Page: in.Page}
	return s.list(ctx, f, nil)
}

// MilestoneMergeRequests is one page of the milestone's merge requests,
// when the caller may read merge requests (none otherwise).
func (s *Service) MilestoneMergeRequests(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64, in issuable.PageInput) ([]domain.MergeRequest, int, error) {
	t, m, err := s.milestonePage(ctx, caller, ref, id, in)
	if err != nil || !t.Can(access.ReadMergeRequest) {
		return nil, 0, err
	}
	f := domain.MergeRequestFilter{ProjectID: t.Project.ID, MilestoneIDs: []int64{m.ID}, Page: in.Page}
	list, total, err := s.p.MergeRequests.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list merge requests of milestone: %w", err)
	}
	return list, total, nil
}

// milestonePage resolves the project and the milestone of a list of its
// items, then reports a bad page.
func (s *Service) milestonePage(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64, in issuable.PageInput) (access.Target, *domain.Milestone, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref)
	if err != nil {
		return t, nil, err
	}
	m, err := s.milestone(ctx, t, id)
	if err != nil {
		return t, nil, err
	}
	return t, m, in.Invalid
}

// admin resolves the project for a write by a reporter or above: 401,
// 404, then 403.
func (s *Service) admin(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return t, err
	}
	return t, t.Require(access.AdminIssue)
}

// milestone reads milestone id of the target's project.
func (s *Service) milestone(ctx context.Context, t access.Target, id int64) (*domain.Milestone, error) {
	if id <= 0 {
		return nil, core.NotFound("Milestone")
	}
	m, err := s.p.Milestones.Get(ctx, t.Project.ID, id)
	if err != nil {
		return nil, core.StoreError(err, "Milestone", "read milestone")
	}
	return m, nil
}

// milestoneConflict gives a taken title GitLab's message.
func milestoneConflict(err error, doing string) error {
	if errors.Is(err, core.ErrConflict) {
		return core.Conflict("Milestone already exists")
	}
	return core.StoreError(err, "Milestone", doing)
}

// publishMilestone announces a milestone change inside the transaction.
func (s *Service) publishMilestone(ctx context.Context, m *domain.Milestone, action string, actor int64) error {
	if err := s.p.Bus.Publish(ctx, domain.MilestoneEvent{Milestone: *m, Action: action, Actor: actor}); err != nil {
		return fmt.Errorf("publish milestone %s: %w", action, err)
	}
	return nil
}
