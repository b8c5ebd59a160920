package apijson

import (
	"context"
	"fmt"
	"slices"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Embeds loads what issues and merge requests embed (authors and
// assignees, milestones, the caller's subscriptions, project URLs) in a
// constant number of queries per list. IssuePresenter and
// MergeRequestPresenter share one.
type Embeds struct {
	Users         ports.UserStore
	Projects      ports.ProjectStore
	Presenter     *ProjectPresenter
	Subscriptions ports.SubscriptionStore
	// Milestones may be nil: items then show no milestone.
	Milestones ports.MilestoneReader
}

// embedRef is what an issue or merge request points at.
type embedRef struct {
	id, projectID, authorID int64
	assigneeID, milestoneID *int64
}

// embedded is what a list embeds, loaded by Embeds.load.
type embedded struct {
	base       string
	projects   map[int64]ProjectBasic
	users      map[int64]*domain.User
	milestones map[int64]*domain.Milestone
	// explicit holds the caller's explicit subscriptions; uid is the
	// caller (0 when anonymous).
	explicit map[int64]bool
	uid      int64
}

// load loads what the items of one target type (domain.TargetIssue,
// domain.TargetMergeRequest; what names them in errors) embed; with
// projectsOnly, only their projects. Projects in known (the list's
// project, which the access check loaded) and namespaces in knownNS are
// not read again.
func (e *Embeds) load(ctx context.Context, caller *domain.Caller, target, what string, refs []embedRef, projectsOnly bool, known []*domain.Project, knownNS []domain.Namespace) (*embedded, error) {
	em := &embedded{base: e.Presenter.BaseURL, projects: map[int64]ProjectBasic{}, users: map[int64]*domain.User{},
		milestones: map[int64]*domain.Milestone{}, explicit: map[int64]bool{}}
	if len(refs) == 0 {
		return em, nil
	}
	var userIDs, projectIDs, milestoneIDs, ids []int64
	for _, r := range refs {
		ids = append(ids, r.id)
		projectIDs = append(projectIDs, r.projectID)
		userIDs = append(userIDs, r.authorID)
		if r.assigneeID != nil {
			userIDs = append(userIDs, *r.assigneeID)
		}
		if r.milestoneID != nil {
			milestoneIDs = append(milestoneIDs, *r.milestoneID)
		}
	}
	var err error
	if em.projects, err = e.projectBasics(ctx, projectIDs, what, knownNS, known...); err != nil {
		return nil, err
	}
	if projectsOnly {
		return em, nil
	}
	if em.users, err = usersByID(ctx, e.Users, userIDs, what, callerUser(caller)); err != nil {
		return nil, err
	}
	if e.Milestones != nil && len(milestoneIDs) > 0 {
		ms, err := e.Milestones.GetMany(ctx, milestoneIDs)
		if err != nil {
			return nil, fmt.Errorf("load milestones of %s: %w", what, err)
		}
		for i := range ms {
			em.milestones[ms[i].ID] = &ms[i]
		}
	}
	if em.uid = caller.UserID(); em.uid != 0 {
		if em.explicit, err = e.Subscriptions.OfUser(ctx, em.uid, target, ids); err != nil {
			return nil, fmt.Errorf("load subscriptions: %w", err)
		}
	}
	return em, nil
}

// projectBasics loads and renders the projects of what, by ID; those in
// known are already loaded.
func (e *Embeds) projectBasics(ctx context.Context, ids []int64, what string, knownNS []domain.Namespace, known ...*domain.Project) (map[int64]ProjectBasic, error) {
	var projects []domain.Project
	var missing []int64
	for _, id := range ids {
		found := false
		for _, k := range known {
			if k != nil && k.ID == id {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, id)
		}
	}
	for _, k := range known {
		if k != nil {
			projects = append(projects, *k)
		}
	}
	if len(missing) > 0 {
		loaded, err := e.Projects.GetMany(ctx, missing)
		if err != nil {
			return nil, fmt.Errorf("load projects of %s: %w", what, err)
		}
		projects = append(projects, loaded...)
	}
	basics, err := e.Presenter.BasicsIn(ctx, projects, knownNS)
	if err != nil {
		return nil, fmt.Errorf("render projects of %s: %w", what, err)
	}
	return basics, nil
}

// usersByID loads the users of what, by ID. known users (the caller,
// read by this request's authentication) are not read again.
func usersByID(ctx context.Context, users ports.UserStore, ids []int64, what string, known ...*domain.User) (map[int64]*domain.User, error) {
	out := make(map[int64]*domain.User, len(ids))
	missing := make([]int64, 0, len(ids))
	for _, id := range ids {
		if i := slices.IndexFunc(known, func(u *domain.User) bool { return u != nil && u.ID == id }); i >= 0 {
			out[id] = known[i]
			continue
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return out, nil
	}
	list, err := users.GetMany(ctx, missing)
	if err != nil {
		return nil, fmt.Errorf("load users of %s: %w", what, err)
	}
	for i := range list {
		out[list[i].ID] = &list[i]
	}
	return out, nil
}

// user renders the user id points at, or nil.
func (em *embedded) user(id *int64) *UserBasic {
	if id == nil || em.users[*id] == nil {
		return nil
	}
	b := UserBasicOf(em.base, em.users[*id])
	return &b
}

// milestone renders the milestone id points at, or nil.
func (em *embedded) milestone(id *int64) *Milestone {
	if id == nil {
		return nil
	}
	return MilestoneOf(em.milestones[*id])
}

// webURL is the web URL of the project with that ID.
func (em *embedded) webURL(projectID int64) string { return em.projects[projectID].WebURL }

// labels renders labels, none as [] rather than null.
func labels(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// choice is the explicit subscription of id in a map of them, if any.
func choice(explicit map[int64]bool, id int64) *bool {
	if s, ok := explicit[id]; ok {
		return &s
	}
	return nil
}

// one renders a single item with the renderer of a list.
func one[T, R any](ctx context.Context, caller *domain.Caller, v *T, render func(context.Context, *domain.Caller, []T) ([]R, error)) (*R, error) {
	out, err := render(ctx, caller, []T{*v})
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

// callerUser is the caller's user, nil for anonymous callers.
func callerUser(c *domain.Caller) *domain.User {
	if c == nil {
		return nil
	}
	return c.User
}
