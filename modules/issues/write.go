package issues

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// create opens an issue. Fields only reporters may set are dropped for
// others, as GitLab's filter_params does.
func (s *Service) create(ctx context.Context, t target, in createParams) (*domain.Issue, error) {
	if !t.canCreate() {
		return nil, core.Forbidden("")
	}
	if err := issuable.ValidTitle(in.Title); err != nil {
		return nil, err
	}
	due, err := parseDate("due_date", in.DueDate)
	if err != nil {
		return nil, err
	}
	actor := t.caller.UserID()
	is := &domain.Issue{ProjectID: t.project.ID, Title: strings.TrimSpace(in.Title), Description: in.Description,
		State: domain.IssueOpened, AuthorID: actor, Labels: []string{}, CreatedAt: s.now(), UpdatedAt: s.now()}
	if in.CreatedAt != nil && t.rights.AtLeast(domain.Owner) {
		is.CreatedAt = in.CreatedAt.UTC().Truncate(time.Millisecond)
	}
	if t.canAdmin() {
		is.Confidential, is.DueDate = in.Confidential, due
		if in.Labels != nil {
			is.Labels = issuable.NormalizeLabels(*in.Labels)
		}
		if is.MilestoneID, err = s.milestone(ctx, t.project, in.MilestoneID); err != nil {
			return nil, err
		}
		if is.AssigneeID, err = s.assignee(ctx, t.project, is, assigneeOf(in.AssigneeID, in.AssigneeIDs)); err != nil {
			return nil, err
		}
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.ensureLabels(ctx, is.ProjectID, is.Labels); err != nil {
			return err
		}
		if err := s.p.Issues.Create(ctx, is); err != nil {
			return notFound(err, "Project", "create issue")
		}
		if err := s.publish(ctx, is, domain.ActionCreated, actor); err != nil {
			return err
		}
		if is.AssigneeID != nil && *is.AssigneeID != actor {
			if err := s.addTodo(ctx, is, *is.AssigneeID, actor, domain.TodoAssigned); err != nil {
				return err
			}
		}
		return s.mentionTodos(ctx, t, is, actor, is.Title+"\n"+is.Description, "")
	})
	if err != nil {
		return nil, err
	}
	return is, nil
}

// defaultLabelColor is GitLab's color for labels created by naming them.
const defaultLabelColor = "#428BCA"

// ensureLabels creates the project labels an issue names that do not
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
// not read the issue is dropped rather than refused. 0 means none.
func (s *Service) assignee(ctx context.Context, p *domain.Project, is *domain.Issue, id *int64) (*int64, error) {
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
	t, err := s.rightsOf(ctx, u, p)
	if err != nil {
		return nil, err
	}
	candidate := *is
	candidate.AssigneeID = &u.ID
	if !t.canReadIssue(&candidate) {
		return nil, nil
	}
	out := u.ID
	return &out, nil
}

// milestone checks that a milestone of the project exists; 0 means none.
func (s *Service) milestone(ctx context.Context, p *domain.Project, id *int64) (*int64, error) {
	if id == nil || *id <= 0 {
		return nil, nil
	}
	m, err := s.p.Milestones.Get(ctx, p.ID, *id)
	if err != nil {
		return nil, notFound(err, "Milestone", "read milestone")
	}
	out := m.ID
	return &out, nil
}

// publish announces a state change inside the caller's transaction (the
// events feed records it there).
func (s *Service) publish(ctx context.Context, is *domain.Issue, action string, actor int64) error {
	if err := s.p.Bus.Publish(ctx, domain.IssueEvent{Issue: *is, Action: action, Actor: actor}); err != nil {
		return fmt.Errorf("publish issue %s: %w", action, err)
	}
	return nil
}

// systemNote records a change on the issue's discussion, in the caller's
// transaction.
func (s *Service) systemNote(ctx context.Context, is *domain.Issue, actor int64, body string) error {
	pid := is.ProjectID
	n := &domain.Note{ProjectID: &pid, NoteableType: domain.TargetIssue, NoteableID: is.ID,
		AuthorID: actor, Body: body, System: true, CreatedAt: s.now(), UpdatedAt: s.now()}
	if err := s.p.Notes.Create(ctx, n); err != nil {
		return fmt.Errorf("system note: %w", err)
	}
	return nil
}

// addTodo puts a pending todo on userID's list.
func (s *Service) addTodo(ctx context.Context, is *domain.Issue, userID, actor int64, action string) error {
	_, _, err := issuable.AddTodo(ctx, s.p.Todos, subject(is), is.ProjectID, userID, actor, action, is.Title, s.now())
	return err
}

// mentionTodos gives every user newly mentioned in text (not in before)
// who may read the issue a "mentioned" todo; confidential issues reach
// only those allowed to see them.
func (s *Service) mentionTodos(ctx context.Context, t target, is *domain.Issue, actor int64, text, before string) error {
	for _, name := range issuable.NewMentions(text, before) {
		u, err := s.p.Users.GetByUsername(ctx, name)
		if err != nil || u.ID == actor || u.State != domain.UserActive {
			continue
		}
		ut, err := s.rightsOf(ctx, u, t.project)
		if err != nil || !ut.canReadIssue(is) {
			continue
		}
		if err := s.addTodo(ctx, is, u.ID, actor, domain.TodoMentioned); err != nil {
			return err
		}
	}
	return nil
}

// changes are an update's resolved values (nil: unchanged).
type changes struct {
	in        updateParams
	assignee  *int64
	milestone *int64
	due       *time.Time
	admin     bool // reporter+: may set assignee, milestone, labels, confidential, due date
}

// update applies an edit with its system notes, events and todos in one
// transaction.
func (s *Service) update(ctx context.Context, t target, is *domain.Issue, in updateParams) (*domain.Issue, error) {
	actor := t.caller.UserID()
	if in.Title != nil {
		if err := issuable.ValidTitle(*in.Title); err != nil {
			return nil, err
		}
	}
	c := changes{in: in, admin: t.canAdmin()}
	var err error
	if c.due, err = parseDate("due_date", in.DueDate); err != nil {
		return nil, err
	}
	if c.admin {
		if a := assigneeOf(in.AssigneeID, in.AssigneeIDs); a != nil {
			if c.assignee, err = s.assignee(ctx, t.project, is, a); err != nil {
				return nil, err
			}
		}
		if in.MilestoneID != nil {
			if c.milestone, err = s.milestone(ctx, t.project, in.MilestoneID); err != nil {
				return nil, err
			}
		}
	}
	var out *domain.Issue
	var action string
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var before domain.Issue
		if c.admin && in.Labels != nil {
			if err := s.ensureLabels(ctx, is.ProjectID, issuable.NormalizeLabels(*in.Labels)); err != nil {
				return err
			}
		}
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
				return notFound(err, "Issue", "read issue")
			}
			return nil
		}
		if err != nil {
			return notFound(err, "Issue", "update issue")
		}
		for _, body := range s.changeNotes(ctx, &before, out) {
			if err := s.systemNote(ctx, out, actor, body); err != nil {
				return err
			}
		}
		if action != "" {
			if err := s.publish(ctx, out, action, actor); err != nil {
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
	return out, nil
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
	switch {
	case *in.StateEvent == "close" && cur.Open():
		cur.State, cur.ClosedAt = domain.IssueClosed, &now
		return domain.ActionClosed
	case *in.StateEvent == "reopen" && cur.State == domain.IssueClosed:
		cur.State, cur.ClosedAt = domain.IssueReopened, nil
		return domain.ActionReopened
	}
	return ""
}

// errUnchanged stops an update that changes nothing: GitLab saves
// nothing then, and updated_at stays.
var errUnchanged = errors.New("issue unchanged")

// changed reports whether an edit changed anything stored.
func changed(before, after *domain.Issue) bool {
	return before.Title != after.Title || before.Description != after.Description || before.State != after.State ||
		!sameID(before.AssigneeID, after.AssigneeID) || !sameID(before.MilestoneID, after.MilestoneID) ||
		!slices.Equal(before.Labels, after.Labels) || before.Confidential != after.Confidential ||
		!sameDate(before.DueDate, after.DueDate)
}

func sameID(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func sameDate(a, b *time.Time) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && a.Equal(*b))
}

// delete removes an issue; the store takes its labels, notes, awards,
// todos and subscriptions in the same transaction.
func (s *Service) delete(ctx context.Context, is *domain.Issue) error {
	if err := s.p.Issues.Delete(ctx, is.ProjectID, is.IID); err != nil {
		return notFound(err, "Issue", "delete issue")
	}
	return nil
}
