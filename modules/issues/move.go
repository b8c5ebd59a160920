package issues

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// GitLab's MoveService refusals, answered as 400s.
const (
	errMovePermission  = "Cannot move issue due to insufficient permissions!"
	errMoveSameProject = "Cannot move issue to project it originates from!"
)

// movedToPrefix starts the system note a moved issue gets; Hearth keeps
// no moved_to column, so this note is what marks an issue as moved.
const movedToPrefix = "moved to "

// Move moves issue iid to the project in.ToProjectID as GitLab's
// Issues::MoveService does: a new issue there with the same text, author,
// assignee (when they may see the target), confidentiality, due date, the
// labels and milestone the target has by the same titles, copies of the
// notes and awards, "moved from"/"moved to" system notes, and the
// original closed. It takes reporter rights on both projects; an issue
// moved once cannot move again. Everything commits together.
func (s *Service) Move(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, in MoveInput) (*domain.Issue, access.Target, error) {
	from, old, err := s.writable(ctx, caller, ref, iid)
	if err != nil {
		return nil, from, err
	}
	if in.Invalid != nil {
		return nil, from, in.Invalid
	}
	if in.ToProjectID <= 0 {
		return nil, from, core.NotFound("Project")
	}
	// A project the caller may not see answers like an unknown one.
	to, err := s.p.Policy.Resolve(ctx, caller, domain.IDOrPath{ID: in.ToProjectID}, access.ReadIssue)
	if err != nil {
		return nil, from, err
	}
	if !from.Can(access.AdminIssue) || !to.Can(access.AdminIssue) {
		return nil, from, core.BadRequest(errMovePermission)
	}
	if to.Project.ID == from.Project.ID {
		return nil, from, core.BadRequest(errMoveSameProject)
	}
	fresh, err := s.movedCopy(ctx, old, to)
	if err != nil {
		return nil, from, err
	}
	actor := caller.UserID()
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		// The original first, under its row lock: a concurrent move of the
		// same issue waits here, then finds the "moved to" note.
		closing, notes, err := s.lockForMove(ctx, old)
		if err != nil {
			return err
		}
		is := *fresh
		is.Labels = append([]string(nil), fresh.Labels...)
		if err := s.p.Issues.Create(ctx, &is); err != nil {
			return core.StoreError(err, "Project", "create moved issue")
		}
		if err := s.activity.Record(ctx, issuable.Change{Project: to.Project, After: issuable.IssueItem(&is), Actor: actor},
			domain.ActionCreated, nil, s.publisher(&is, actor)); err != nil {
			return err
		}
		if err := s.copyDiscussion(ctx, old, &is, notes); err != nil {
			return err
		}
		if err := s.activity.SystemNotes(ctx, issuable.IssueItem(&is), actor,
			"moved from "+s.fullPath(ctx, from.Project.ID)+"#"+strconv.FormatInt(old.IID, 10)); err != nil {
			return err
		}
		if err := s.activity.SystemNotes(ctx, issuable.IssueItem(old), actor,
			movedToPrefix+s.fullPath(ctx, to.Project.ID)+"#"+strconv.FormatInt(is.IID, 10)); err != nil {
			return err
		}
		if closing != nil {
			if err := s.activity.Record(ctx, issuable.Change{Project: from.Project, Before: issuable.IssueItem(&closing.before),
				After: issuable.IssueItem(closing.after), Actor: actor}, domain.ActionClosed, nil, s.publisher(closing.after, actor)); err != nil {
				return err
			}
		}
		out, err := s.p.Issues.Get(ctx, is.ProjectID, is.IID)
		if err != nil {
			return core.StoreError(err, "Issue", "read moved issue")
		}
		fresh = out
		return nil
	})
	if err != nil {
		return nil, from, err
	}
	return fresh, to, nil
}

// moved reports whether an issue's notes say it was moved already.
func moved(notes []domain.Note) bool {
	for _, n := range notes {
		if n.System && strings.HasPrefix(n.Body, movedToPrefix) {
			return true
		}
	}
	return false
}

// movedCopy is the new issue of a move, not yet stored: labels and the
// milestone are matched by title in the target (others are dropped), the
// assignee is kept when they may see the target's issues.
func (s *Service) movedCopy(ctx context.Context, old *domain.Issue, to access.Target) (*domain.Issue, error) {
	is := &domain.Issue{ProjectID: to.Project.ID, Title: old.Title, Description: old.Description,
		State: domain.IssueOpened, AuthorID: old.AuthorID, Labels: []string{}, Confidential: old.Confidential,
		DueDate: old.DueDate, CreatedAt: old.CreatedAt, UpdatedAt: s.now()}
	if len(old.Labels) > 0 {
		have, err := s.p.Labels.List(ctx, to.Project.ID)
		if err != nil {
			return nil, fmt.Errorf("read labels of project %d: %w", to.Project.ID, err)
		}
		for _, l := range have {
			for _, name := range old.Labels {
				if l.Name == name {
					is.Labels = append(is.Labels, name)
				}
			}
		}
		is.Labels = issuable.NormalizeLabels(is.Labels)
	}
	if old.MilestoneID != nil {
		ms, err := s.p.Milestones.GetMany(ctx, []int64{*old.MilestoneID})
		if err != nil {
			return nil, fmt.Errorf("read milestone: %w", err)
		}
		if len(ms) == 1 {
			ids, err := s.p.Milestones.IDsByTitle(ctx, to.Project.ID, ms[0].Title)
			if err != nil {
				return nil, fmt.Errorf("find milestone: %w", err)
			}
			if len(ids) > 0 {
				is.MilestoneID = &ids[0]
			}
		}
	}
	var err error
	if is.AssigneeID, err = s.activity.Assignee(ctx, to.Project, old.AssigneeID, access.ReadIssue); err != nil {
		return nil, err
	}
	return is, nil
}

// copyDiscussion copies the old issue's notes (with their authors and
// times, system notes too) and its award emoji to the new one.
func (s *Service) copyDiscussion(ctx context.Context, old, is *domain.Issue, notes []domain.Note) error {
	for _, n := range notes {
		pid := is.ProjectID
		c := &domain.Note{ProjectID: &pid, NoteableType: domain.TargetIssue, NoteableID: is.ID, AuthorID: n.AuthorID,
			Body: n.Body, System: n.System, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
		if err := s.p.Notes.Create(ctx, c); err != nil {
			return fmt.Errorf("copy note %d: %w", n.ID, err)
		}
	}
	if s.p.Awards == nil {
		return nil
	}
	awards, err := s.p.Awards.List(ctx, domain.TargetIssue, old.ID)
	if err != nil {
		return fmt.Errorf("read awards of issue %d: %w", old.ID, err)
	}
	for _, a := range awards {
		c := a
		c.ID, c.AwardableID = 0, is.ID
		if err := s.p.Awards.Create(ctx, &c); err != nil {
			return fmt.Errorf("copy award %d: %w", a.ID, err)
		}
	}
	return nil
}

// closed is the original of a move as it was and as the move closed it.
type closed struct {
	before domain.Issue
	after  *domain.Issue
}

// lockForMove locks the original of a move and, unless its notes say it
// moved already (a 400, as GitLab's can_move?), closes it: the close event
// and webhook follow, but no "closed" note, as in GitLab. An issue closed
// already is left as it is (nil). The notes read under the lock are the
// ones the move copies.
func (s *Service) lockForMove(ctx context.Context, old *domain.Issue) (*closed, []domain.Note, error) {
	var (
		c     closed
		notes []domain.Note
	)
	out, err := s.p.Issues.Update(ctx, old.ProjectID, old.IID, func(cur *domain.Issue) error {
		var err error
		if notes, _, err = s.p.Notes.List(ctx, domain.TargetIssue, cur.ID, domain.Page{}); err != nil {
			return fmt.Errorf("read notes of issue %d: %w", cur.ID, err)
		}
		if moved(notes) {
			return core.BadRequest(errMovePermission)
		}
		c.before = *cur
		c.before.Labels = append([]string(nil), cur.Labels...)
		if err := cur.Close(s.now()); err != nil {
			return errUnchanged
		}
		cur.UpdatedAt = s.now()
		return nil
	})
	switch {
	case errors.Is(err, errUnchanged):
		return nil, notes, nil
	case errors.Is(err, core.ErrInvalid):
		return nil, nil, err
	case err != nil:
		return nil, nil, core.StoreError(err, "Issue", "close moved issue")
	}
	c.after = out
	return &c, notes, nil
}
