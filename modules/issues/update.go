package issues

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Update edits issue iid: its author, its assignee and reporters may edit
// the text and the state; only reporters set assignee, milestone, labels,
// confidentiality and due date (others' values are dropped). The edit,
// its system notes, event and todos commit together; an edit that
// changes nothing saves nothing.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, in UpdateInput) (*domain.Issue, access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadIssue)
	if err != nil {
		return nil, t, err
	}
	if err := issuable.FirstError(in.Invalid, in.validate()); err != nil {
		return nil, t, err
	}
	is, err := s.issue(ctx, t, iid)
	if err != nil {
		return nil, t, err
	}
	if err := t.Require(access.UpdateIssue, access.OnIssue(is)); err != nil {
		return nil, t, err
	}
	if in.Title != nil {
		if err := issuable.ValidTitle(*in.Title); err != nil {
			return nil, t, err
		}
	}
	c := changes{in: in, admin: t.Can(access.AdminIssue)}
	if c.due, err = parseDate("due_date", in.DueDate); err != nil {
		return nil, t, err
	}
	if c.admin {
		if a := assigneeOf(in.AssigneeID, in.AssigneeIDs); a != nil {
			if c.assignee, err = s.activity.Assignee(ctx, t.Project, a, access.ReadIssue); err != nil {
				return nil, t, err
			}
		}
		if in.MilestoneID != nil {
			if c.milestone, err = s.activity.Milestone(ctx, t.Project.ID, in.MilestoneID); err != nil {
				return nil, t, err
			}
		}
	}
	var out *domain.Issue
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if c.admin && in.Labels != nil {
			if err := s.activity.EnsureLabels(ctx, is.ProjectID, issuable.NormalizeLabels(*in.Labels)); err != nil {
				return err
			}
		}
		var before domain.Issue
		var action string
		var err error
		out, err = s.p.Issues.Update(ctx, is.ProjectID, is.IID, func(cur *domain.Issue) error {
			before = *cur
			before.Labels = append([]string(nil), cur.Labels...)
			action = c.apply(cur, s.now())
			if !changed(&before, cur) {
				return errUnchanged
			}
			cur.UpdatedAt = s.now()
			return nil
		})
		if errors.Is(err, errUnchanged) {
			if out, err = s.p.Issues.Get(ctx, is.ProjectID, is.IID); err != nil {
				return core.StoreError(err, "Issue", "read issue")
			}
			return nil
		}
		if err != nil {
			return core.StoreError(err, "Issue", "update issue")
		}
		if action == "" {
			// An edit: webhooks send it as "update"; the feed shows none.
			action = domain.ActionUpdated
		}
		return s.activity.Record(ctx, issuable.Change{Project: t.Project, Before: issuable.IssueItem(&before),
			After: issuable.IssueItem(out), Actor: caller.UserID()}, action, s.changeNotes(ctx, &before, out), s.publisher(out, caller.UserID()))
	})
	if err != nil {
		return nil, t, err
	}
	return out, t, nil
}

// changes are an update's resolved values (nil: unchanged).
type changes struct {
	in        UpdateInput
	assignee  *int64
	milestone *int64
	due       *time.Time
	admin     bool // reporter+: may set assignee, milestone, labels, confidential, due date
}

// apply sets the asked values on cur and returns the event action of a
// state change ("" when the state stays: closing a closed issue or
// reopening an open one changes nothing, as in GitLab).
func (c changes) apply(cur *domain.Issue, now time.Time) string {
	in := c.in
	if in.Title != nil {
		cur.Title = strings.TrimSpace(*in.Title)
	}
	if in.Description != nil {
		cur.Description = *in.Description
	}
	if c.admin {
		if assigneeOf(in.AssigneeID, in.AssigneeIDs) != nil {
			cur.AssigneeID = c.assignee
		}
		if in.MilestoneID != nil {
			cur.MilestoneID = c.milestone
		}
		if in.Labels != nil {
			cur.Labels = issuable.NormalizeLabels(*in.Labels)
		}
		if in.Confidential != nil {
			cur.Confidential = *in.Confidential
		}
		if in.DueDate != nil {
			cur.DueDate = c.due
		}
	}
	if in.StateEvent == nil {
		return ""
	}
	switch *in.StateEvent {
	case "close":
		if cur.Close(now) == nil {
			return domain.ActionClosed
		}
	case "reopen":
		if cur.Reopen() == nil {
			return domain.ActionReopened
		}
	}
	return "" // an invalid transition: GitLab changes nothing
}

// errUnchanged stops an update that changes nothing: GitLab saves
// nothing then, and updated_at stays.
var errUnchanged = errors.New("issue unchanged")

// changed reports whether an edit changed anything stored.
func changed(before, after *domain.Issue) bool {
	return before.Title != after.Title || before.Description != after.Description || before.State != after.State ||
		!issuable.SameID(before.AssigneeID, after.AssigneeID) || !issuable.SameID(before.MilestoneID, after.MilestoneID) ||
		!slices.Equal(before.Labels, after.Labels) || before.Confidential != after.Confidential ||
		!issuable.SameDate(before.DueDate, after.DueDate)
}
