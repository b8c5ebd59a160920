package mergerequests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// create opens a merge request: both branches must exist, the pair must
// not have another open request, and merge_status is known at once.
func (s *Service) create(ctx context.Context, t target, in createParams) (*domain.MergeRequest, error) {
	if !t.rights.AtLeast(domain.Developer) || t.project.Archived {
		return nil, core.Forbidden("")
	}
	if err := issuable.ValidTitle(in.Title); err != nil {
		return nil, err
	}
	if in.TargetProjectID != nil && *in.TargetProjectID != t.project.ID {
		return nil, core.Unprocessable("Merge requests between different projects are not supported")
	}
	if in.SourceBranch == in.TargetBranch {
		return nil, core.Unprocessable("You can not use same project/branch for source and target")
	}
	pid := t.project.ID
	m := &domain.MergeRequest{ProjectID: pid, SourceProjectID: pid, TargetProjectID: pid,
		Title: strings.TrimSpace(in.Title), Description: in.Description, State: domain.MROpened,
		SourceBranch: in.SourceBranch, TargetBranch: in.TargetBranch, AuthorID: t.caller.UserID(),
		ForceRemoveSourceBranch: in.RemoveSourceBranch, Labels: []string{}, CreatedAt: s.now(), UpdatedAt: s.now()}
	h, err := s.headsOf(ctx, m)
	if err != nil {
		return nil, err
	}
	missing := map[string][]string{}
	if h.source == "" {
		missing["source_branch"] = []string{fmt.Sprintf("Source branch %q does not exist", in.SourceBranch)}
	}
	if h.target == "" {
		missing["target_branch"] = []string{fmt.Sprintf("Target branch %q does not exist", in.TargetBranch)}
	}
	if len(missing) > 0 {
		return nil, core.Validation(missing)
	}
	if in.Labels != nil {
		m.Labels = issuable.NormalizeLabels(*in.Labels)
	}
	if m.AssigneeID, err = s.assignee(ctx, t.project, in.AssigneeID); err != nil {
		return nil, err
	}
	if m.MilestoneID, err = s.milestone(ctx, t.project, in.MilestoneID); err != nil {
		return nil, err
	}
	st, err := s.status(ctx, repoOf(pid), h)
	if err != nil {
		return nil, err
	}
	m.SourceSHA, m.TargetSHA, m.BaseSHA, m.MergeStatus = h.source, h.target, st.base, st.status
	actor := t.caller.UserID()
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.ensureLabels(ctx, pid, m.Labels); err != nil {
			return err
		}
		if err := s.p.MergeRequests.Create(ctx, m); err != nil {
			if errors.Is(err, core.ErrConflict) || errors.Is(err, core.ErrNotFound) {
				return err
			}
			return fmt.Errorf("create merge request: %w", err)
		}
		if err := s.publish(ctx, m, domain.ActionCreated, actor, nil); err != nil {
			return err
		}
		if m.AssigneeID != nil && *m.AssigneeID != actor {
			if err := s.addTodo(ctx, m, *m.AssigneeID, actor, domain.TodoAssigned); err != nil {
				return err
			}
		}
		return s.mentionTodos(ctx, t, m, actor, m.Title+"\n"+m.Description, "")
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// defaultLabelColor is GitLab's color for labels created by naming them.
const defaultLabelColor = "#428BCA"

// ensureLabels creates the project labels an issuable names that do not
// exist yet, as GitLab does.
func (s *Service) ensureLabels(ctx context.Context, projectID int64, names []string) error {
	if len(names) == 0 {
		return nil
	}
	if err := s.p.Labels.Ensure(ctx, projectID, names, defaultLabelColor); err != nil {
		return fmt.Errorf("create labels: %w", err)
	}
	return nil
}

// assignee applies GitLab's filter: an assignee who does not exist or may
// not read the project is dropped rather than refused. 0 means none.
func (s *Service) assignee(ctx context.Context, p *domain.Project, id *int64) (*int64, error) {
	if id == nil || *id <= 0 {
		return nil, nil
	}
	u, err := s.p.Users.Get(ctx, *id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read assignee: %w", err)
	}
	rights, err := s.p.Policy.Project(ctx, &domain.Caller{User: u}, p)
	if err != nil {
		return nil, fmt.Errorf("assignee's access: %w", err)
	}
	if !(target{project: p, rights: rights}).canRead() {
		return nil, nil
	}
	out := u.ID
	return &out, nil
}

// milestone checks that a milestone of the project exists; 0 means none.
// Until a module provides milestones there are none to name.
func (s *Service) milestone(ctx context.Context, p *domain.Project, id *int64) (*int64, error) {
	if id == nil || *id <= 0 {
		return nil, nil
	}
	if s.p.Milestones == nil {
		return nil, core.NotFound("Milestone")
	}
	ms, err := s.p.Milestones.GetMany(ctx, []int64{*id})
	if err != nil {
		return nil, fmt.Errorf("read milestone: %w", err)
	}
	if len(ms) == 0 || ms[0].ProjectID != p.ID {
		return nil, core.NotFound("Milestone")
	}
	out := ms[0].ID
	return &out, nil
}

// addTodo puts a pending todo on userID's list.
func (s *Service) addTodo(ctx context.Context, m *domain.MergeRequest, userID, actor int64, action string) error {
	_, _, err := issuable.AddTodo(ctx, s.p.Todos, subject(m), m.ProjectID, userID, actor, action, m.Title, s.now())
	return err
}

// mentionTodos gives every user newly mentioned in text (not in before)
// who may read the merge request a "mentioned" todo.
func (s *Service) mentionTodos(ctx context.Context, t target, m *domain.MergeRequest, actor int64, text, before string) error {
	for _, name := range issuable.NewMentions(text, before) {
		u, err := s.p.Users.GetByUsername(ctx, name)
		if err != nil || u.ID == actor || u.State != domain.UserActive {
			continue
		}
		rights, err := s.p.Policy.Project(ctx, &domain.Caller{User: u}, t.project)
		if err != nil || !(target{project: t.project, rights: rights}).canRead() {
			continue
		}
		if err := s.addTodo(ctx, m, u.ID, actor, domain.TodoMentioned); err != nil {
			return err
		}
	}
	return nil
}

// update applies an edit with its system notes, events and todos in one
// transaction.
func (s *Service) update(ctx context.Context, t target, m *domain.MergeRequest, in updateParams) (*domain.MergeRequest, error) {
	actor := t.caller.UserID()
	if in.Title != nil {
		if err := issuable.ValidTitle(*in.Title); err != nil {
			return nil, err
		}
	}
	var newAssignee, newMilestone *int64
	var err error
	if in.AssigneeID != nil {
		if newAssignee, err = s.assignee(ctx, t.project, in.AssigneeID); err != nil {
			return nil, err
		}
	}
	if in.MilestoneID != nil {
		if newMilestone, err = s.milestone(ctx, t.project, in.MilestoneID); err != nil {
			return nil, err
		}
	}
	retarget := in.TargetBranch != nil && *in.TargetBranch != m.TargetBranch && m.State.Open()
	if retarget {
		if *in.TargetBranch == m.SourceBranch {
			return nil, core.Unprocessable("You can not use same project/branch for source and target")
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
	var notes []string
	var action string
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var before domain.MergeRequest
		var err error
		if in.Labels != nil {
			if err := s.ensureLabels(ctx, m.ProjectID, issuable.NormalizeLabels(*in.Labels)); err != nil {
				return err
			}
		}
		out, err = s.p.MergeRequests.Update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			before = *cur
			notes, action = nil, ""
			if in.Title != nil {
				cur.Title = strings.TrimSpace(*in.Title)
			}
			if in.Description != nil {
				cur.Description = *in.Description
			}
			if in.AssigneeID != nil {
				cur.AssigneeID = newAssignee
			}
			if in.MilestoneID != nil {
				cur.MilestoneID = newMilestone
			}
			if in.Labels != nil {
				cur.Labels = issuable.NormalizeLabels(*in.Labels)
			}
			if in.RemoveSourceBranch != nil {
				cur.ForceRemoveSourceBranch = *in.RemoveSourceBranch
			}
			if retarget && cur.State.Open() {
				cur.TargetBranch = *in.TargetBranch
				cur.MergeStatus = domain.MergeUnchecked
			}
			if in.StateEvent != nil {
				var err error
				if action, err = s.transition(cur, *in.StateEvent); err != nil {
					return err
				}
			}
			notes = changeNotes(&before, cur, s.usernames(ctx, before.AssigneeID, cur.AssigneeID), s.milestoneRef(ctx))
			return nil
		})
		if err != nil {
			return err
		}
		for _, body := range notes {
			if err := s.systemNote(ctx, out, actor, body); err != nil {
				return err
			}
		}
		if action != "" {
			if err := s.publish(ctx, out, action, actor, nil); err != nil {
				return err
			}
			if action == domain.ActionClosed {
				if _, err := s.p.Todos.MarkTargetDone(ctx, actor, subject(out)); err != nil {
					return fmt.Errorf("mark todos done: %w", err)
				}
			}
		}
		if out.AssigneeID != nil && *out.AssigneeID != actor && !sameID(before.AssigneeID, out.AssigneeID) {
			if err := s.addTodo(ctx, out, *out.AssigneeID, actor, domain.TodoAssigned); err != nil {
				return err
			}
		}
		return s.mentionTodos(ctx, t, out, actor, out.Title+"\n"+out.Description, before.Title+"\n"+before.Description)
	})
	if err != nil {
		return nil, err
	}
	if retarget || action == domain.ActionReopened {
		return s.refresh(ctx, out, actor)
	}
	return out, nil
}

// transition applies state_event; a close of a closed request, a reopen
// of an open one and any event on a merged one change nothing, as in
// GitLab. It returns the event action, "" when nothing changed.
func (s *Service) transition(m *domain.MergeRequest, event string) (string, error) {
	if m.LockedAt != nil {
		return "", core.Conflict("The merge request is being merged")
	}
	now := s.now()
	switch {
	case event == "close" && m.State.Open():
		m.State, m.ClosedAt = domain.MRClosed, &now
		m.MergeWhenPipelineSucceeds = false
		return domain.ActionClosed, nil
	case event == "reopen" && m.State == domain.MRClosed:
		m.State, m.ClosedAt = domain.MRReopened, nil
		m.MergeStatus = domain.MergeUnchecked
		return domain.ActionReopened, nil
	}
	return "", nil
}

func sameID(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// usernames maps the given user IDs to usernames, for notes.
func (s *Service) usernames(ctx context.Context, ids ...*int64) map[int64]string {
	var want []int64
	for _, id := range ids {
		if id != nil {
			want = append(want, *id)
		}
	}
	out := map[int64]string{}
	if len(want) == 0 {
		return out
	}
	users, err := s.p.Users.GetMany(ctx, want)
	if err != nil {
		s.log.Warn("usernames for notes", zap.Error(err))
		return out
	}
	for _, u := range users {
		out[u.ID] = u.Username
	}
	return out
}

// milestoneRef renders a milestone as GitLab references it ("%<iid>").
func (s *Service) milestoneRef(ctx context.Context) func(id int64) string {
	return func(id int64) string {
		if s.p.Milestones != nil {
			if ms, err := s.p.Milestones.GetMany(ctx, []int64{id}); err == nil && len(ms) == 1 {
				return fmt.Sprintf("%%%d", ms[0].IID)
			}
		}
		return fmt.Sprintf("%%%d", id)
	}
}

// changeNotes are GitLab's system notes for an edit.
func changeNotes(before, after *domain.MergeRequest, names map[int64]string, milestone func(id int64) string) []string {
	var out []string
	if before.State != after.State {
		out = append(out, string(after.State))
	}
	if before.Title != after.Title {
		out = append(out, fmt.Sprintf("changed title from **%s** to **%s**", before.Title, after.Title))
		if wasWIP, isWIP := before.WorkInProgress(), after.WorkInProgress(); wasWIP != isWIP {
			if isWIP {
				out = append(out, "marked as a **Work In Progress**")
			} else {
				out = append(out, "unmarked as a **Work In Progress**")
			}
		}
	}
	if before.Description != after.Description {
		out = append(out, "changed the description")
	}
	if !sameID(before.AssigneeID, after.AssigneeID) {
		if after.AssigneeID == nil {
			out = append(out, "removed assignee")
		} else {
			out = append(out, "assigned to @"+names[*after.AssigneeID])
		}
	}
	if !sameID(before.MilestoneID, after.MilestoneID) {
		if after.MilestoneID == nil {
			out = append(out, "removed milestone")
		} else {
			out = append(out, "changed milestone to "+milestone(*after.MilestoneID))
		}
	}
	if before.TargetBranch != after.TargetBranch {
		out = append(out, fmt.Sprintf("changed target branch from `%s` to `%s`", before.TargetBranch, after.TargetBranch))
	}
	added, removed := labelDiff(before.Labels, after.Labels)
	if len(added) > 0 || len(removed) > 0 {
		var parts []string
		if len(added) > 0 {
			parts = append(parts, "added "+labelRefs(added)+plural(" label", len(added)))
		}
		if len(removed) > 0 {
			parts = append(parts, "removed "+labelRefs(removed)+plural(" label", len(removed)))
		}
		out = append(out, strings.Join(parts, " and "))
	}
	return out
}

func labelDiff(before, after []string) (added, removed []string) {
	for _, l := range after {
		if !slices.Contains(before, l) {
			added = append(added, l)
		}
	}
	for _, l := range before {
		if !slices.Contains(after, l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}

func labelRefs(labels []string) string {
	refs := make([]string, len(labels))
	for i, l := range labels {
		refs[i] = "~" + fmt.Sprintf("%q", l)
	}
	return strings.Join(refs, " ")
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// delete removes a merge request; the store takes what hangs on it
// (notes, awards, todos, subscriptions) in the same transaction.
func (s *Service) delete(ctx context.Context, m *domain.MergeRequest) error {
	if err := s.p.MergeRequests.Delete(ctx, m.ProjectID, m.IID); err != nil {
		return notFound(err, "Merge Request", "delete merge request")
	}
	return nil
}
