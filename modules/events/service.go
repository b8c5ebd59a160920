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
	// MergeRequests gives merge request events their target_iid.
	MergeRequests ports.MergeRequestStore `optional:"true"`
	Log           *zap.Logger
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
	if s.p.Projects == nil {
		return errors.New("record merge request event: the project store is not wired")
	}
	m := ev.MergeRequest
	pid, id := m.ProjectID, m.ID
	e := &domain.Event{ProjectID: &pid, AuthorID: ev.Actor, Action: ev.Action, TargetID: &id,
		TargetType: domain.TargetMergeRequest, TargetTitle: m.Title}
	if err := s.Record(ctx, e); err != nil {
		return err
	}
	if err := s.p.Projects.TouchActivity(ctx, pid, e.CreatedAt); err != nil {
		return fmt.Errorf("record merge request event: project activity: %w", err)
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
	Total      int
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
	proj, _, err := s.p.Policy.ProjectByRef(ctx, caller, id, path)
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
	evs, total, err := s.p.Events.List(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	ids := make([]int64, 0, len(evs))
	seen := map[int64]bool{}
	for _, e := range evs {
		if !seen[e.AuthorID] {
			seen[e.AuthorID] = true
			ids = append(ids, e.AuthorID)
		}
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
	return &Feed{Events: evs, Authors: authors, TargetIIDs: iids, Total: total}, nil
}

// targetIIDs loads the IIDs of the merge requests that events target, in
// one query. Issues and milestones have IIDs too, but no store reads them
// by ID yet: their events render target_iid null.
func (s *Service) targetIIDs(ctx context.Context, evs []domain.Event) (map[domain.Subject]int64, error) {
	out := map[domain.Subject]int64{}
	var mrIDs []int64
	for _, e := range evs {
		if e.TargetID != nil && e.TargetType == domain.TargetMergeRequest {
			mrIDs = append(mrIDs, *e.TargetID)
		}
	}
	if len(mrIDs) == 0 || s.p.MergeRequests == nil {
		return out, nil
	}
	mrs, err := s.p.MergeRequests.GetMany(ctx, mrIDs)
	if err != nil {
		return nil, fmt.Errorf("load merge requests of events: %w", err)
	}
	for _, m := range mrs {
		out[domain.Subject{Type: domain.TargetMergeRequest, ID: m.ID}] = m.IID
	}
	return out, nil
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
