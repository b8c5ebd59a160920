package events

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

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
func (s *Service) ForCaller(ctx context.Context, caller *domain.Caller, in FeedInput) (*Feed, error) {
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	f.AuthorID = caller.UserID()
	return s.list(ctx, caller, f)
}

// ForUser lists a user's contribution events as the caller may see them;
// ref is the user's ID or username.
func (s *Service) ForUser(ctx context.Context, caller *domain.Caller, ref string, in FeedInput) (*Feed, error) {
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	u, err := s.userByRef(ctx, ref)
	if err != nil {
		return nil, err
	}
	f.AuthorID = u.ID
	return s.list(ctx, caller, f)
}

// ForProject lists a project's events; the project must be readable
// (404 otherwise, as for every project read).
func (s *Service) ForProject(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in FeedInput) (*Feed, error) {
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	t, err := s.p.Policy.Resolve(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	f.ProjectID = t.Project.ID
	return s.list(ctx, caller, f)
}

func (s *Service) userByRef(ctx context.Context, ref string) (*domain.User, error) {
	var id int64
	if _, err := fmt.Sscanf(ref, "%d", &id); err == nil && fmt.Sprint(id) == ref {
		u, err := s.p.Users.Get(ctx, id)
		return u, core.StoreError(err, "User", "")
	}
	u, err := s.p.Users.GetByUsername(ctx, ref)
	return u, core.StoreError(err, "User", "")
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
	if list := ids[domain.TargetMergeRequest]; len(list) > 0 {
		mrs, err := s.p.MergeRequests.GetMany(ctx, list)
		if err != nil {
			return nil, fmt.Errorf("load merge requests of events: %w", err)
		}
		for _, m := range mrs {
			add(domain.TargetMergeRequest, m.ID, m.IID)
		}
	}
	if list := ids[domain.TargetIssue]; len(list) > 0 {
		issues, err := s.p.Issues.GetMany(ctx, list)
		if err != nil {
			return nil, fmt.Errorf("load issues of events: %w", err)
		}
		for _, is := range issues {
			add(domain.TargetIssue, is.ID, is.IID)
		}
	}
	if list := ids[domain.TargetMilestone]; len(list) > 0 {
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
	scope, err := s.p.Policy.ProjectScopeAt(ctx, caller, domain.Reporter)
	if err != nil {
		return nil, fmt.Errorf("code scope: %w", err)
	}
	return &scope, nil
}

// readable is where the caller may read project events at all.
func (s *Service) readable(ctx context.Context, caller *domain.Caller) (domain.ReadScope, error) {
	if caller.IsAdmin() {
		return domain.ReadScope{All: true}, nil
	}
	return s.p.Policy.ProjectScope(ctx, caller)
}
