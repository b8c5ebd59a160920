package events

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// subscribeTx runs fn inside the publisher's transaction for every E
// published.
func subscribeTx[E domain.BusEvent](bus ports.EventBus, fn func(context.Context, E) error) {
	var zero E
	bus.SubscribeTx(zero.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return fn(ctx, ev.(E))
	})
}

// subscribe records feed entries inside the publisher's transaction, so a
// committed change always has its event and a rolled-back one never does.
func (s *Service) subscribe() {
	bus := s.p.Bus
	subscribeTx(bus, func(ctx context.Context, e domain.UserCreated) error {
		u := e.User
		return s.Record(ctx, &domain.Event{AuthorID: u.ID, Action: domain.ActionJoined, TargetID: &u.ID,
			TargetType: domain.TargetUser, TargetTitle: u.Username})
	})
	project := func(ctx context.Context, action string, p domain.Project, actor int64) error {
		id := p.ID
		return s.Record(ctx, &domain.Event{ProjectID: &id, AuthorID: actor, Action: action})
	}
	subscribeTx(bus, func(ctx context.Context, e domain.ProjectCreated) error {
		return project(ctx, domain.ActionCreated, e.Project, e.Actor)
	})
	subscribeTx(bus, func(ctx context.Context, e domain.ProjectUpdated) error {
		return project(ctx, domain.ActionUpdated, e.Project, e.Actor)
	})
	subscribeTx(bus, func(ctx context.Context, e domain.ProjectDestroyed) error {
		return project(ctx, domain.ActionDestroyed, e.Project, e.Actor)
	})
	// Membership events are the member's own, as GitLab records them; group
	// memberships have no project.
	subscribeTx(bus, func(ctx context.Context, e domain.MemberJoined) error {
		return s.Record(ctx, &domain.Event{ProjectID: e.ProjectID, AuthorID: e.Member.UserID, Action: domain.ActionJoined})
	})
	subscribeTx(bus, func(ctx context.Context, e domain.MemberLeft) error {
		return s.Record(ctx, &domain.Event{ProjectID: e.ProjectID, AuthorID: e.Member.UserID, Action: domain.ActionLeft})
	})
	// A push records its event and moves the project's and the pusher's
	// activity.
	subscribeTx(bus, s.recordPush)
	subscribeTx(bus, s.recordMergeRequest)
	subscribeTx(bus, s.recordIssue)
	subscribeTx(bus, s.recordMilestone)
	subscribeTx(bus, s.recordNote)
}

// mergeRequestActions are the merge request changes the feed shows; GitLab
// records no event for edits (ActionUpdated).
var mergeRequestActions = map[string]bool{
	domain.ActionCreated: true, domain.ActionClosed: true, domain.ActionReopened: true, domain.ActionMerged: true,
}

// issueActions are the issue changes the feed shows.
var issueActions = map[string]bool{domain.ActionCreated: true, domain.ActionClosed: true, domain.ActionReopened: true}

// milestoneActions are the milestone changes the feed shows.
var milestoneActions = map[string]bool{
	domain.ActionCreated: true, domain.ActionClosed: true, domain.ActionReopened: true, domain.ActionDestroyed: true,
}

// recordTarget records actor's action on a target of a project when the
// feed shows that action (shown), and moves the project's last activity,
// as every project event does in GitLab.
func (s *Service) recordTarget(ctx context.Context, shown map[string]bool, action string, actor int64, e domain.Event) error {
	if !shown[action] {
		return nil
	}
	e.Action, e.AuthorID = action, actor
	return s.recordProjectEvent(ctx, &e)
}

// target is the event of a project's issue, merge request or milestone.
func target(projectID, id int64, typ, title string) domain.Event {
	return domain.Event{ProjectID: &projectID, TargetID: &id, TargetType: typ, TargetTitle: title}
}

// recordMergeRequest records a merge request's opening, closing, reopening
// or merge by its actor.
func (s *Service) recordMergeRequest(ctx context.Context, ev domain.MergeRequestEvent) error {
	m := ev.MergeRequest
	return s.recordTarget(ctx, mergeRequestActions, ev.Action, ev.Actor, target(m.ProjectID, m.ID, domain.TargetMergeRequest, m.Title))
}

// recordIssue records an issue's opening, closing or reopening; events of
// confidential issues are confidential.
func (s *Service) recordIssue(ctx context.Context, ev domain.IssueEvent) error {
	is := ev.Issue
	e := target(is.ProjectID, is.ID, domain.TargetIssue, is.Title)
	e.Confidential = is.Confidential
	return s.recordTarget(ctx, issueActions, ev.Action, ev.Actor, e)
}

// recordMilestone records a milestone's creation, closing, reopening or
// deletion.
func (s *Service) recordMilestone(ctx context.Context, ev domain.MilestoneEvent) error {
	m := ev.Milestone
	return s.recordTarget(ctx, milestoneActions, ev.Action, ev.Actor, target(m.ProjectID, m.ID, domain.TargetMilestone, m.Title))
}

// recordNote records GitLab's "commented on": the note is the target
// (and NoteID), its noteable's title the target title. Notes on
// confidential issues are confidential.
func (s *Service) recordNote(ctx context.Context, ev domain.NoteEvent) error {
	n := ev.Note
	if n.System || n.ProjectID == nil {
		return nil
	}
	title, err := s.noteableTitle(ctx, n)
	if err != nil {
		return fmt.Errorf("record note event: %w", err)
	}
	pid, id := *n.ProjectID, n.ID
	return s.recordProjectEvent(ctx, &domain.Event{ProjectID: &pid, AuthorID: ev.Actor, Action: domain.ActionCommented,
		TargetID: &id, TargetType: domain.TargetNote, TargetTitle: title, NoteID: &id, Confidential: ev.Confidential})
}

// noteableTitle is the title of what n comments on ("" when it is gone).
func (s *Service) noteableTitle(ctx context.Context, n domain.Note) (string, error) {
	var title string
	var err error
	switch n.NoteableType {
	case domain.TargetMergeRequest:
		var m *domain.MergeRequest
		if m, err = s.p.MergeRequests.GetByID(ctx, n.NoteableID); err == nil {
			title = m.Title
		}
	case domain.TargetIssue:
		var list []domain.Issue
		if list, err = s.p.Issues.GetMany(ctx, []int64{n.NoteableID}); err == nil && len(list) == 1 {
			title = list[0].Title
		}
	case domain.TargetSnippet:
		var sn *domain.Snippet
		if sn, err = s.p.Snippets.Get(ctx, *n.ProjectID, n.NoteableID); err == nil {
			title = sn.Title
		}
	}
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		return "", fmt.Errorf("title of %s %d: %w", n.NoteableType, n.NoteableID, err)
	}
	return title, nil
}
