package mergerequests

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

// Update edits merge request iid (developers and its author): fields,
// target branch (rechecking mergeability) and state. The edit, its
// system notes, event and todos commit together.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, in UpdateInput) (*domain.MergeRequest, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return nil, err
	}
	if err := issuable.FirstError(in.Invalid, in.validate()); err != nil {
		return nil, err
	}
	m, err := s.fresh(ctx, t, iid)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.UpdateMergeRequest, access.OnMergeRequest(m)); err != nil {
		return nil, err
	}
	actor := caller.UserID()
	if in.Title != nil {
		if err := issuable.ValidTitle(*in.Title); err != nil {
			return nil, err
		}
	}
	c := changes{in: in}
	if in.AssigneeID != nil {
		if c.assignee, err = s.activity.Assignee(ctx, t.Project, in.AssigneeID, access.ReadMergeRequest); err != nil {
			return nil, err
		}
	}
	if in.MilestoneID != nil {
		if c.milestone, err = s.activity.Milestone(ctx, t.Project.ID, in.MilestoneID); err != nil {
			return nil, err
		}
	}
	c.retarget = in.TargetBranch != nil && *in.TargetBranch != m.TargetBranch && m.State.Open()
	if c.retarget {
		if *in.TargetBranch == m.SourceBranch {
			return nil, sameBranch
		}
		head, err := s.branchHead(ctx, m.TargetProjectID, *in.TargetBranch)
		if err != nil {
			return nil, err
		}
		if head == "" {
			return nil, core.FieldInvalid("target_branch", fmt.Sprintf("Target branch %q does not exist", *in.TargetBranch))
		}
	}
	var out *domain.MergeRequest
	var action string
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if in.Labels != nil {
			if err := s.activity.EnsureLabels(ctx, m.ProjectID, issuable.NormalizeLabels(*in.Labels)); err != nil {
				return err
			}
		}
		var before domain.MergeRequest
		var err error
		out, err = s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			before = *cur
			action, err = c.apply(cur, s.now())
			return err
		})
		if err != nil {
			return err
		}
		if action == "" {
			// An edit: webhooks send it as "update"; the feed shows none.
			action = domain.ActionUpdated
		}
		return s.activity.Record(ctx, issuable.Change{Project: t.Project, Before: issuable.MergeRequestItem(&before),
			After: issuable.MergeRequestItem(out), Actor: actor}, action, s.changeNotes(ctx, &before, out), s.publisher(out, actor))
	})
	if err != nil {
		return nil, err
	}
	if c.retarget || action == domain.ActionReopened {
		return s.refresh(ctx, out, actor)
	}
	return out, nil
}

// changes are an update's resolved values.
type changes struct {
	in                  UpdateInput
	assignee, milestone *int64
	retarget            bool // the target branch moves (checked to exist)
}

// apply sets the asked values on cur and applies state_event: closing a
// closed request, reopening an open one and any event on a merged one
// change nothing, as in GitLab; a request being merged refuses it. It
// returns the event action, "" when the state stays.
func (c changes) apply(cur *domain.MergeRequest, now time.Time) (string, error) {
	in := c.in
	if in.Title != nil {
		cur.Title = strings.TrimSpace(*in.Title)
	}
	if in.Description != nil {
		cur.Description = *in.Description
	}
	if in.AssigneeID != nil {
		cur.AssigneeID = c.assignee
	}
	if in.MilestoneID != nil {
		cur.MilestoneID = c.milestone
	}
	if in.Labels != nil {
		cur.Labels = issuable.NormalizeLabels(*in.Labels)
	}
	if in.RemoveSourceBranch != nil {
		cur.ForceRemoveSourceBranch = *in.RemoveSourceBranch
	}
	if c.retarget && cur.State.Open() {
		cur.TargetBranch = *in.TargetBranch
		cur.MergeStatus = domain.MergeUnchecked
	}
	if in.StateEvent == nil {
		return "", nil
	}
	var err error
	action := ""
	switch *in.StateEvent {
	case "close":
		err, action = cur.Close(now), domain.ActionClosed
	case "reopen":
		err, action = cur.Reopen(), domain.ActionReopened
	}
	switch {
	case errors.Is(err, domain.ErrBeingMerged):
		return "", core.Conflict("The merge request is being merged")
	case err != nil:
		return "", nil
	}
	return action, nil
}

// changeNotes are GitLab's system notes for an edit of a merge request:
// the shared fields, then the target branch and labels.
func (s *Service) changeNotes(ctx context.Context, before, after *domain.MergeRequest) []string {
	out := s.activity.ChangeNotes(ctx, fieldsOf(before), fieldsOf(after))
	if before.TargetBranch != after.TargetBranch {
		out = append(out, fmt.Sprintf("changed target branch from `%s` to `%s`", before.TargetBranch, after.TargetBranch))
	}
	if note := issuable.LabelsNote(before.Labels, after.Labels); note != "" {
		out = append(out, note)
	}
	return out
}

func fieldsOf(m *domain.MergeRequest) issuable.Fields {
	return issuable.Fields{State: string(m.State), Title: m.Title, Description: m.Description,
		AssigneeID: m.AssigneeID, MilestoneID: m.MilestoneID, WorkInProgress: m.WorkInProgress()}
}

// Delete removes a merge request (owners and administrators); the store
// takes what hangs on it (notes, awards, todos, subscriptions) in the
// same transaction.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) error {
	t, m, err := s.writable(ctx, caller, ref, iid)
	if err != nil {
		return err
	}
	if err := t.Require(access.DestroyMergeRequest); err != nil {
		return err
	}
	if err := s.p.MergeRequests.Delete(ctx, m.ProjectID, m.IID); err != nil {
		return core.StoreError(err, "Merge Request", "delete merge request")
	}
	return nil
}

// Subscribe records whether the caller follows the merge request; it
// returns the merge request, or core.ErrNotModified when that was so.
func (s *Service) Subscribe(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, want bool) (*domain.MergeRequest, error) {
	_, m, err := s.writable(ctx, caller, ref, iid)
	if err != nil {
		return nil, err
	}
	if err := s.activity.Subscribe(ctx, issuable.MergeRequestItem(m), caller.UserID(), want); err != nil {
		return nil, err
	}
	return m, nil
}

// MarkTodo puts the merge request on the caller's todo list ("marked");
// core.ErrNotModified when it is there already.
func (s *Service) MarkTodo(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (*domain.Todo, error) {
	_, m, err := s.writable(ctx, caller, ref, iid)
	if err != nil {
		return nil, err
	}
	return s.activity.MarkTodo(ctx, issuable.MergeRequestItem(m), caller.UserID())
}
