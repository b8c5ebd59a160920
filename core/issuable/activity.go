package issuable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Deps are the ports the shared rules need, as the app provides them: a
// module's Params embeds it.
type Deps struct {
	fx.In
	Notes         ports.NoteStore
	Todos         ports.TodoStore
	Subscriptions ports.SubscriptionStore
	Labels        ports.LabelStore
	Users         ports.UserStore
	Policy        *access.Policy
	Clock         ports.Clock
	// TimeTracking keeps the time stats of both kinds of item.
	TimeTracking ports.TimeTrackingStore
}

// NewActivity builds a module's Activity; milestones may be nil.
func NewActivity(d Deps, milestones ports.MilestoneReader) *Activity {
	return &Activity{Notes: d.Notes, Todos: d.Todos, Subscriptions: d.Subscriptions, Labels: d.Labels, Users: d.Users,
		TimeTracking: d.TimeTracking, Milestones: milestones, Policy: d.Policy,
		// Milliseconds are the precision clients see, so a timestamp sent
		// back as a filter bound matches what it came from.
		Now: func() time.Time { return d.Clock.Now().UTC().Truncate(time.Millisecond) }}
}

// Activity writes what happens around issues and merge requests: system
// notes, todos, subscriptions, the labels and milestones they name. Each
// module builds one from its stores; every method runs in the caller's
// transaction when there is one.
type Activity struct {
	Notes         ports.NoteStore
	Todos         ports.TodoStore
	Subscriptions ports.SubscriptionStore
	Labels        ports.LabelStore
	Users         ports.UserStore
	TimeTracking  ports.TimeTrackingStore
	// Milestones may be nil: then no milestone exists.
	Milestones ports.MilestoneReader
	Policy     *access.Policy
	// Now is the time to stamp, truncated as clients see it.
	Now func() time.Time
}

// Subscribed is GitLab's subscription rule for the user: an explicit
// choice (nil: none) wins; otherwise the author and the assignee are
// subscribed.
func Subscribed(explicit *bool, authorID int64, assigneeID *int64, userID int64) bool {
	if explicit != nil {
		return *explicit
	}
	return userID != 0 && (authorID == userID || (assigneeID != nil && *assigneeID == userID))
}

// errNotModified is GitLab's 304 for a subscription or todo already in
// effect.
var errNotModified = &core.Error{Kind: core.ErrNotModified}

// Subscribe records the user's wish about it unless it is already in
// effect: then core.ErrNotModified (GitLab's 304).
func (a *Activity) Subscribe(ctx context.Context, it Item, userID int64, want bool) error {
	explicit, err := a.Subscriptions.Get(ctx, it.Subject, userID)
	if err != nil {
		return fmt.Errorf("subscription of user %d: %w", userID, err)
	}
	if Subscribed(explicit, it.AuthorID, it.AssigneeID, userID) == want {
		return errNotModified
	}
	if err := a.Subscriptions.Set(ctx, it.Subject, userID, want); err != nil {
		return fmt.Errorf("subscribe user %d: %w", userID, err)
	}
	return nil
}

// MarkTodo puts a "marked" todo about it on the user's own list;
// core.ErrNotModified (GitLab's 304) when one is pending.
func (a *Activity) MarkTodo(ctx context.Context, it Item, userID int64) (*domain.Todo, error) {
	td, created, err := a.addTodo(ctx, it, userID, userID, domain.TodoMarked)
	if err != nil {
		return nil, err
	}
	if !created {
		return nil, errNotModified
	}
	return td, nil
}

// addTodo puts a pending todo about it on userID's list; the todo and
// whether it is new come back (a pending one of the same action is kept,
// as GitLab does).
func (a *Activity) addTodo(ctx context.Context, it Item, userID, actor int64, action string) (*domain.Todo, bool, error) {
	now := a.Now()
	td, created, err := a.Todos.CreatePending(ctx, &domain.Todo{UserID: userID, ProjectID: it.ProjectID, AuthorID: actor,
		TargetType: it.Subject.Type, TargetID: it.Subject.ID, Action: action, State: domain.TodoPending,
		Body: it.Title, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return nil, false, fmt.Errorf("todo for user %d: %w", userID, err)
	}
	return td, created, nil
}

// SystemNotes records changes on its discussion.
func (a *Activity) SystemNotes(ctx context.Context, it Item, actor int64, bodies ...string) error {
	for _, body := range bodies {
		pid, now := it.ProjectID, a.Now()
		n := &domain.Note{ProjectID: &pid, NoteableType: it.Subject.Type, NoteableID: it.Subject.ID,
			AuthorID: actor, Body: body, System: true, CreatedAt: now, UpdatedAt: now}
		if err := a.Notes.Create(ctx, n); err != nil {
			return fmt.Errorf("system note: %w", err)
		}
	}
	return nil
}

// Change is a creation (Before zero) or an edit of an item in a project.
type Change struct {
	Project       *domain.Project
	Before, After Item
	Actor         int64
	// Closed: the change closed the item, so its todos are done.
	Closed bool
}

// Changed gives the people a change concerns their todos: everyone's
// todos about the item are done when it closed, a new assignee (not the
// actor) is "assigned", and every user newly mentioned in the title or
// description who may see the item is "mentioned".
func (a *Activity) Changed(ctx context.Context, c Change) error {
	if c.Closed {
		if _, err := a.Todos.MarkTargetDone(ctx, c.Actor, c.After.Subject); err != nil {
			return fmt.Errorf("mark todos done: %w", err)
		}
	}
	if to := c.After.AssigneeID; to != nil && *to != c.Actor && !SameID(c.Before.AssigneeID, to) {
		if _, _, err := a.addTodo(ctx, c.After, *to, c.Actor, domain.TodoAssigned); err != nil {
			return err
		}
	}
	before := ""
	if c.Before.Subject.ID != 0 {
		before = c.Before.text()
	}
	for _, name := range NewMentions(c.After.text(), before) {
		u, err := a.Users.GetByUsername(ctx, name)
		if err != nil || u.ID == c.Actor || u.State != domain.UserActive {
			continue
		}
		ut, err := a.Policy.TargetOf(ctx, &domain.Caller{User: u}, c.Project)
		if err != nil || !c.After.ReadableBy(ut) {
			continue
		}
		if _, _, err := a.addTodo(ctx, c.After, u.ID, c.Actor, domain.TodoMentioned); err != nil {
			return err
		}
	}
	return nil
}

// Record leaves behind what a creation or an edit does, in its
// transaction: the edit's system notes, the event of its action (publish;
// none when action is ""), then the todos it gives (Changed; closing
// marks the item's todos done).
func (a *Activity) Record(ctx context.Context, c Change, action string, notes []string, publish func(ctx context.Context, action string) error) error {
	if err := a.SystemNotes(ctx, c.After, c.Actor, notes...); err != nil {
		return err
	}
	if action != "" {
		if err := publish(ctx, action); err != nil {
			return err
		}
	}
	c.Closed = action == domain.ActionClosed
	return a.Changed(ctx, c)
}

// defaultLabelColor is GitLab's color for labels created by naming them.
const defaultLabelColor = "#428BCA"

// EnsureLabels creates the project labels an item names that do not
// exist yet, as GitLab does.
func (a *Activity) EnsureLabels(ctx context.Context, projectID int64, names []string) error {
	if len(names) == 0 {
		return nil
	}
	if err := a.Labels.Ensure(ctx, projectID, names, defaultLabelColor); err != nil {
		return fmt.Errorf("create labels: %w", err)
	}
	return nil
}

// Assignee applies GitLab's filter to an asked assignee: one who does not
// exist or may not use read on the project is dropped rather than
// refused. nil or 0 means none.
func (a *Activity) Assignee(ctx context.Context, p *domain.Project, id *int64, read access.Ability) (*int64, error) {
	if id == nil || *id <= 0 {
		return nil, nil
	}
	u, err := a.Users.Get(ctx, *id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read assignee: %w", err)
	}
	t, err := a.Policy.TargetOf(ctx, &domain.Caller{User: u}, p)
	if err != nil {
		return nil, fmt.Errorf("access of assignee %d: %w", u.ID, err)
	}
	if !t.Can(read) {
		return nil, nil
	}
	out := u.ID
	return &out, nil
}

// Milestone checks that an asked milestone belongs to the project: a 404
// Milestone otherwise. nil or 0 means none.
func (a *Activity) Milestone(ctx context.Context, projectID int64, id *int64) (*int64, error) {
	if id == nil || *id <= 0 {
		return nil, nil
	}
	if a.Milestones == nil {
		return nil, core.NotFound("Milestone")
	}
	ms, err := a.Milestones.GetMany(ctx, []int64{*id})
	if err != nil {
		return nil, fmt.Errorf("read milestone: %w", err)
	}
	if len(ms) == 0 || ms[0].ProjectID != projectID {
		return nil, core.NotFound("Milestone")
	}
	out := ms[0].ID
	return &out, nil
}
