package events

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies.
type Params struct {
	fx.In
	Events ports.EventStore
	Users  ports.UserStore
	Bus    ports.EventBus
	Clock  ports.Clock
	Scoper ports.ProjectScoper `optional:"true"`
	Policy *access.Policy      `optional:"true"`
	// Projects and Namespaces describe pushed projects; Site's external
	// URL makes push data's links.
	Projects   ports.ProjectStore   `optional:"true"`
	Namespaces ports.NamespaceStore `optional:"true"`
	Site       httpx.Options        `optional:"true"`
	// MergeRequests, Issues and Milestones give events their target_iid
	// and note events their noteable's title, with Snippets.
	MergeRequests ports.MergeRequestStore `optional:"true"`
	Issues        ports.IssueStore        `optional:"true"`
	Milestones    ports.MilestoneStore    `optional:"true"`
	Snippets      ports.SnippetStore      `optional:"true"`
	// Notes embeds the note in "commented on" events.
	Notes ports.NoteStore `optional:"true"`
	Log   *zap.Logger
}

// Service records and lists feed events.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// subscribe records feed entries inside the publisher's transaction, so a
// committed change always has its event and a rolled-back one never does.
func (s *Service) subscribe() {
	on := func(ev domain.BusEvent, fn func(domain.BusEvent) *domain.Event) {
		s.p.Bus.SubscribeTx(ev.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
			return s.Record(ctx, fn(ev))
		})
	}
	on(domain.UserCreated{}, func(ev domain.BusEvent) *domain.Event {
		u := ev.(domain.UserCreated).User
		return &domain.Event{AuthorID: u.ID, Action: domain.ActionJoined, TargetID: &u.ID,
			TargetType: domain.TargetUser, TargetTitle: u.Username}
	})
	project := func(action string, p domain.Project, actor int64) *domain.Event {
		id := p.ID
		return &domain.Event{ProjectID: &id, AuthorID: actor, Action: action}
	}
	on(domain.ProjectCreated{}, func(ev domain.BusEvent) *domain.Event {
		e := ev.(domain.ProjectCreated)
		return project(domain.ActionCreated, e.Project, e.Actor)
	})
	on(domain.ProjectUpdated{}, func(ev domain.BusEvent) *domain.Event {
		e := ev.(domain.ProjectUpdated)
		return project(domain.ActionUpdated, e.Project, e.Actor)
	})
	on(domain.ProjectDestroyed{}, func(ev domain.BusEvent) *domain.Event {
		e := ev.(domain.ProjectDestroyed)
		return project(domain.ActionDestroyed, e.Project, e.Actor)
	})
	// Membership events are the member's own, as GitLab records them; group
	// memberships have no project.
	on(domain.MemberJoined{}, func(ev domain.BusEvent) *domain.Event {
		e := ev.(domain.MemberJoined)
		return &domain.Event{ProjectID: e.ProjectID, AuthorID: e.Member.UserID, Action: domain.ActionJoined}
	})
	on(domain.MemberLeft{}, func(ev domain.BusEvent) *domain.Event {
		e := ev.(domain.MemberLeft)
		return &domain.Event{ProjectID: e.ProjectID, AuthorID: e.Member.UserID, Action: domain.ActionLeft}
	})
	// A push records its event and moves the project's and the pusher's
	// activity.
	s.p.Bus.SubscribeTx(domain.PushEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.recordPush(ctx, ev.(domain.PushEvent))
	})
	s.p.Bus.SubscribeTx(domain.MergeRequestEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.recordMergeRequest(ctx, ev.(domain.MergeRequestEvent))
	})
	s.p.Bus.SubscribeTx(domain.IssueEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.recordIssue(ctx, ev.(domain.IssueEvent))
	})
	s.p.Bus.SubscribeTx(domain.MilestoneEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.recordMilestone(ctx, ev.(domain.MilestoneEvent))
	})
	s.p.Bus.SubscribeTx(domain.NoteEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.recordNote(ctx, ev.(domain.NoteEvent))
	})
}

// mergeRequestActions are the merge request changes the feed shows; GitLab
// records no event for edits (ActionUpdated).
var mergeRequestActions = map[string]bool{
	domain.ActionCreated: true, domain.ActionClosed: true, domain.ActionReopened: true, domain.ActionMerged: true,
}

// recordMergeRequest records a merge request's opening, closing, reopening
// or merge by its actor and moves the project's last activity, as every
// project event does in GitLab.
func (s *Service) recordMergeRequest(ctx context.Context, ev domain.MergeRequestEvent) error {
	if !mergeRequestActions[ev.Action] {
		return nil
	}
	m := ev.MergeRequest
	pid, id := m.ProjectID, m.ID
	return s.recordProjectEvent(ctx, &domain.Event{ProjectID: &pid, AuthorID: ev.Actor, Action: ev.Action, TargetID: &id,
		TargetType: domain.TargetMergeRequest, TargetTitle: m.Title})
}

// issueActions are the issue changes the feed shows.
var issueActions = map[string]bool{domain.ActionCreated: true, domain.ActionClosed: true, domain.ActionReopened: true}

// recordIssue records an issue's opening, closing or reopening; events of
// confidential issues are confidential.
func (s *Service) recordIssue(ctx context.Context, ev domain.IssueEvent) error {
	if !issueActions[ev.Action] {
		return nil
	}
	is := ev.Issue
	pid, id := is.ProjectID, is.ID
	return s.recordProjectEvent(ctx, &domain.Event{ProjectID: &pid, AuthorID: ev.Actor, Action: ev.Action, TargetID: &id,
		TargetType: domain.TargetIssue, TargetTitle: is.Title, Confidential: is.Confidential})
}

// milestoneActions are the milestone changes the feed shows.
var milestoneActions = map[string]bool{
	domain.ActionCreated: true, domain.ActionClosed: true, domain.ActionReopened: true, domain.ActionDestroyed: true,
}

// recordMilestone records a milestone's creation, closing, reopening or
// deletion.
func (s *Service) recordMilestone(ctx context.Context, ev domain.MilestoneEvent) error {
	if !milestoneActions[ev.Action] {
		return nil
	}
	m := ev.Milestone
	pid, id := m.ProjectID, m.ID
	return s.recordProjectEvent(ctx, &domain.Event{ProjectID: &pid, AuthorID: ev.Actor, Action: ev.Action, TargetID: &id,
		TargetType: domain.TargetMilestone, TargetTitle: m.Title})
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

// noteableTitle is the title of what n comments on ("" when it is gone or
// its store is not wired).
func (s *Service) noteableTitle(ctx context.Context, n domain.Note) (string, error) {
	var title string
	var err error
	switch {
	case n.NoteableType == domain.TargetMergeRequest && s.p.MergeRequests != nil:
		var m *domain.MergeRequest
		if m, err = s.p.MergeRequests.GetByID(ctx, n.NoteableID); err == nil {
			title = m.Title
		}
	case n.NoteableType == domain.TargetIssue && s.p.Issues != nil:
		var list []domain.Issue
		if list, err = s.p.Issues.GetMany(ctx, []int64{n.NoteableID}); err == nil && len(list) == 1 {
			title = list[0].Title
		}
	case n.NoteableType == domain.TargetSnippet && s.p.Snippets != nil:
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

// recordProjectEvent records e and moves its project's last activity, as
// every project event does in GitLab.
func (s *Service) recordProjectEvent(ctx context.Context, e *domain.Event) error {
	if s.p.Projects == nil {
		return fmt.Errorf("record %s event: the project store is not wired", e.Action)
	}
	if err := s.Record(ctx, e); err != nil {
		return err
	}
	if err := s.p.Projects.TouchActivity(ctx, *e.ProjectID, e.CreatedAt); err != nil {
		return fmt.Errorf("record %s event: project activity: %w", e.Action, err)
	}
	return nil
}

// Record stores one event, stamping its time.
func (s *Service) Record(ctx context.Context, e *domain.Event) error {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = s.p.Clock.Now().UTC()
	}
	if err := s.p.Events.Create(ctx, e); err != nil {
		return fmt.Errorf("record %s event: %w", e.Action, err)
	}
	return nil
}

// Feed is a page of events with their authors and their targets' IIDs,
// each loaded in one query.
type Feed struct {
	Events  []domain.Event
	Authors map[int64]*domain.User
	// TargetIIDs holds the IIDs of targets that have one and still exist.
	TargetIIDs map[domain.Subject]int64
	// Notes holds the notes of "commented on" events that still exist.
	Notes map[int64]*domain.Note
	Total int
}

// ForCaller lists the caller's own events (GET /events).
func (s *Service) ForCaller(ctx context.Context, caller *domain.Caller, f domain.EventFilter) (*Feed, error) {
	f.AuthorID = caller.UserID()
	return s.list(ctx, caller, f)
}

// ForUser lists a user's contribution events as the caller may see them.
func (s *Service) ForUser(ctx context.Context, caller *domain.Caller, ref string, f domain.EventFilter) (*Feed, error) {
	u, err := s.userByRef(ctx, ref)
	if err != nil {
		return nil, err
	}
	f.AuthorID = u.ID
	return s.list(ctx, caller, f)
}

// ForProject lists a project's events; the project must be readable
// (404 otherwise, as for every project read).
func (s *Service) ForProject(ctx context.Context, caller *domain.Caller, id int64, path string, f domain.EventFilter) (*Feed, error) {
	if s.p.Policy == nil {
		return nil, core.NotFound("Project")
	}
	proj, _, err := s.p.Policy.ProjectByRef(ctx, caller, domain.IDOrPath{ID: id, Path: path})
	if err != nil {
		return nil, err
	}
	f.ProjectID = proj.ID
	return s.list(ctx, caller, f)
}

func (s *Service) userByRef(ctx context.Context, ref string) (*domain.User, error) {
	var id int64
	if _, err := fmt.Sscanf(ref, "%d", &id); err == nil && fmt.Sprint(id) == ref {
		u, err := s.p.Users.Get(ctx, id)
		return u, notFoundAs(err, "User")
	}
	u, err := s.p.Users.GetByUsername(ctx, ref)
	return u, notFoundAs(err, "User")
}

func notFoundAs(err error, what string) error {
	if err != nil && errors.Is(err, core.ErrNotFound) {
		return core.NotFound(what)
	}
	return err
}

func (s *Service) list(ctx context.Context, caller *domain.Caller, f domain.EventFilter) (*Feed, error) {
	scope, err := s.readable(ctx, caller)
	if err != nil {
		return nil, err
	}
	f.Readable = scope
	// Reporters read code and confidential issues alike: one scope
	// serves both rules.
	if f.Code, err = s.codeScope(ctx, caller); err != nil {
		return nil, err
	}
	f.Viewer = access.ViewerOf(caller, *f.Code)
	evs, total, err := s.p.Events.List(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	notes, err := s.notes(ctx, evs)
	if err != nil {
		return nil, err
	}
	// Authors of the events and of the notes they embed, in one query.
	ids := make([]int64, 0, len(evs))
	seen := map[int64]bool{}
	author := func(id int64) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, e := range evs {
		author(e.AuthorID)
	}
	for _, n := range notes {
		author(n.AuthorID)
	}
	users, err := s.p.Users.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load event authors: %w", err)
	}
	authors := make(map[int64]*domain.User, len(users))
	for i := range users {
		authors[users[i].ID] = &users[i]
	}
	iids, err := s.targetIIDs(ctx, evs)
	if err != nil {
		return nil, err
	}
	return &Feed{Events: evs, Authors: authors, TargetIIDs: iids, Notes: notes, Total: total}, nil
}

// targetIIDs loads the IIDs of the merge requests, issues and milestones
// that events target, one query per kind.
func (s *Service) targetIIDs(ctx context.Context, evs []domain.Event) (map[domain.Subject]int64, error) {
	out := map[domain.Subject]int64{}
	ids := map[string][]int64{}
	for _, e := range evs {
		if e.TargetID != nil {
			ids[e.TargetType] = append(ids[e.TargetType], *e.TargetID)
		}
	}
	add := func(typ string, id, iid int64) { out[domain.Subject{Type: typ, ID: id}] = iid }
	if list := ids[domain.TargetMergeRequest]; len(list) > 0 && s.p.MergeRequests != nil {
		mrs, err := s.p.MergeRequests.GetMany(ctx, list)
		if err != nil {
			return nil, fmt.Errorf("load merge requests of events: %w", err)
		}
		for _, m := range mrs {
			add(domain.TargetMergeRequest, m.ID, m.IID)
		}
	}
	if list := ids[domain.TargetIssue]; len(list) > 0 && s.p.Issues != nil {
		issues, err := s.p.Issues.GetMany(ctx, list)
		if err != nil {
			return nil, fmt.Errorf("load issues of events: %w", err)
		}
		for _, is := range issues {
			add(domain.TargetIssue, is.ID, is.IID)
		}
	}
	if list := ids[domain.TargetMilestone]; len(list) > 0 && s.p.Milestones != nil {
		ms, err := s.p.Milestones.GetMany(ctx, list)
		if err != nil {
			return nil, fmt.Errorf("load milestones of events: %w", err)
		}
		for _, m := range ms {
			add(domain.TargetMilestone, m.ID, m.IID)
		}
	}
	return out, nil
}

// notes loads the notes "commented on" events embed, in one query;
// deleted ones are left out.
func (s *Service) notes(ctx context.Context, evs []domain.Event) (map[int64]*domain.Note, error) {
	out := map[int64]*domain.Note{}
	if s.p.Notes == nil {
		return out, nil
	}
	var ids []int64
	for _, e := range evs {
		if e.NoteID != nil {
			ids = append(ids, *e.NoteID)
		}
	}
	ns, err := s.p.Notes.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load notes of events: %w", err)
	}
	for i := range ns {
		out[ns[i].ID] = &ns[i]
	}
	return out, nil
}

// codeScope is where the caller may read code and merge requests
// (reporters and up in private projects), for pushes and merge request
// events.
func (s *Service) codeScope(ctx context.Context, caller *domain.Caller) (*domain.ReadScope, error) {
	if caller.IsAdmin() {
		return &domain.ReadScope{All: true}, nil
	}
	if s.p.Policy == nil {
		return &domain.ReadScope{}, nil
	}
	scope, err := s.p.Policy.ProjectScopeAt(ctx, caller, domain.Reporter)
	if err != nil {
		return nil, fmt.Errorf("code scope: %w", err)
	}
	return &scope, nil
}

func (s *Service) readable(ctx context.Context, caller *domain.Caller) (domain.ReadScope, error) {
	if caller.IsAdmin() {
		return domain.ReadScope{All: true}, nil
	}
	if s.p.Scoper == nil {
		return domain.ReadScope{}, nil
	}
	return s.p.Scoper.ReadableProjects(ctx, caller)
}
