package access

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Rights is what a caller may do with one project or group.
type Rights struct {
	// Level is the effective membership level (0 when none).
	Level domain.AccessLevel
	// Admin is set for administrators, who may do everything.
	Admin bool
	// Read is whether the thing is visible to the caller at all; when it is
	// false every answer about it must be a 404.
	Read bool
}

// AtLeast reports whether the caller acts with level or more (admins always do).
func (r Rights) AtLeast(level domain.AccessLevel) bool { return r.Admin || r.Level >= level }

// Policy answers access questions from memberships, group nesting, project
// shares and visibility.
type Policy struct {
	members    ports.MemberStore
	namespaces ports.NamespaceStore
	projects   ports.ProjectStore
	clock      ports.Clock
}

// New builds the policy.
func New(members ports.MemberStore, namespaces ports.NamespaceStore, projects ports.ProjectStore, clock ports.Clock) *Policy {
	return &Policy{members: members, namespaces: namespaces, projects: projects, clock: clock}
}

func user(c *domain.Caller) *domain.User {
	if c == nil || c.User == nil || c.User.Blocked() {
		return nil
	}
	return c.User
}

// visibleBy reports whether visibility alone lets the caller see something.
func visibleBy(v domain.Visibility, u *domain.User) bool {
	switch v {
	case domain.Public:
		return true
	case domain.Internal:
		return u != nil && !u.External
	}
	return false
}

// Project computes the caller's rights on p: direct membership, membership
// of p's group or any ancestor, shares with groups (capped at the share's
// level), ownership of the personal namespace, and visibility.
func (p *Policy) Project(ctx context.Context, caller *domain.Caller, proj *domain.Project) (Rights, error) {
	r, _, _, err := p.project(ctx, caller, proj)
	return r, err
}

// project is Project, with the namespaces it read for a signed-in caller
// (the project's namespace, granting groups and their ancestors), so that
// rendering need not read them again.
func (p *Policy) project(ctx context.Context, caller *domain.Caller, proj *domain.Project) (Rights, []domain.Namespace, *domain.Standing, error) {
	u := user(caller)
	r := Rights{Admin: u != nil && u.Admin}
	var loaded []domain.Namespace
	var st *domain.Standing
	if u != nil {
		st = &domain.Standing{UserID: u.ID, ProjectID: proj.ID}
		lvl, nss, err := p.projectLevel(ctx, u.ID, proj, st)
		if err != nil {
			return Rights{}, nil, nil, err
		}
		r.Level, loaded = lvl, nss
	}
	r.Read = r.Admin || r.Level >= domain.Guest || visibleBy(proj.Visibility, u)
	if caller != nil && caller.Job != nil {
		r = jobRights(r, caller.Job, proj)
	}
	if u == nil && caller != nil && caller.DeployKey != nil {
		// A deploy key sees the projects it is enabled for and no other,
		// public ones included (GitLab's DeployKey#has_access_to?).
		r = Rights{Read: caller.DeployKey.EnabledFor(proj.ID)}
	}
	return r, loaded, st, nil
}

// jobRights caps what a CI job token may do (GitLab's job permission
// model): what its user may read, at most as a reporter, never as an
// administrator; its own project always at reporter level. Target.Can
// refuses every write to such a caller.
func jobRights(r Rights, job *domain.Job, proj *domain.Project) Rights {
	if r.Admin {
		r.Admin, r.Level = false, domain.Reporter
	}
	r.Level = min(r.Level, domain.Reporter)
	if job.ProjectID == proj.ID {
		r.Read, r.Level = true, domain.Reporter
	}
	return r
}

// projectLevel reads the project's namespace with its ancestors in one
// query, and the share groups' chains in one more when there are shares.
func (p *Policy) projectLevel(ctx context.Context, userID int64, proj *domain.Project, st *domain.Standing) (domain.AccessLevel, []domain.Namespace, error) {
	now := p.clock.Now()
	loaded, err := p.namespaces.WithAncestors(ctx, []int64{proj.NamespaceID})
	if err != nil {
		return 0, nil, fmt.Errorf("project namespace: %w", err)
	}
	byID := make(map[int64]*domain.Namespace, len(loaded))
	for i := range loaded {
		byID[loaded[i].ID] = &loaded[i]
	}
	ns := byID[proj.NamespaceID]
	if ns == nil {
		return 0, nil, fmt.Errorf("project namespace %d: %w", proj.NamespaceID, core.ErrNotFound)
	}
	if ns.Kind == domain.NamespaceUser && ns.OwnerID != nil && *ns.OwnerID == userID {
		return domain.Owner, loaded, nil
	}
	best := domain.NoAccess
	direct, err := p.members.InSources(ctx, userID, domain.MemberOfProject, []int64{proj.ID})
	if err != nil {
		return 0, nil, fmt.Errorf("project membership: %w", err)
	}
	st.Direct, st.DirectRead = direct, true
	for _, m := range direct {
		if m.Active(now) {
			best = max(best, m.AccessLevel)
		}
	}
	// Groups that grant access: p's group chain, and each share's group
	// chain (capped at the share's level).
	caps := map[int64]domain.AccessLevel{}
	if ns.Kind == domain.NamespaceGroup {
		caps[ns.ID] = domain.Owner
	}
	shares, err := p.members.SharesOfProject(ctx, proj.ID)
	if err != nil {
		return 0, nil, fmt.Errorf("project shares: %w", err)
	}
	st.Shares, st.SharesRead = shares, true
	var missing []int64
	for _, s := range shares {
		if s.ExpiresAt == nil || now.Before(*s.ExpiresAt) {
			caps[s.GroupID] = max(caps[s.GroupID], s.GroupAccess)
			if byID[s.GroupID] == nil {
				missing = append(missing, s.GroupID)
			}
		}
	}
	if len(caps) == 0 {
		return best, loaded, nil
	}
	if len(missing) > 0 {
		more, err := p.namespaces.WithAncestors(ctx, missing)
		if err != nil {
			return 0, nil, fmt.Errorf("group ancestors: %w", err)
		}
		loaded = append(loaded, more...)
		clear(byID)
		for i := range loaded {
			byID[loaded[i].ID] = &loaded[i]
		}
	}
	// Each granting group counts with its ancestors: membership is inherited down.
	chains := map[int64][]int64{}
	var all []int64
	for gid := range caps {
		var chain []int64
		for g := byID[gid]; g != nil && len(chain) <= len(byID); {
			chain = append(chain, g.ID)
			if g.ParentID == nil {
				break
			}
			g = byID[*g.ParentID]
		}
		chains[gid] = chain
		all = append(all, chain...)
	}
	levels, err := p.groupLevels(ctx, userID, all, st)
	if err != nil {
		return 0, nil, err
	}
	for gid, limit := range caps {
		for _, id := range chains[gid] {
			best = max(best, min(levels[id], limit))
		}
	}
	return best, loaded, nil
}

// groupLevels maps group IDs to the user's active direct level in each.
// st, when not nil, keeps the rows read.
func (p *Policy) groupLevels(ctx context.Context, userID int64, ids []int64, st *domain.Standing) (map[int64]domain.AccessLevel, error) {
	ms, err := p.members.InSources(ctx, userID, domain.MemberOfGroup, ids)
	if err != nil {
		return nil, fmt.Errorf("group memberships: %w", err)
	}
	if st != nil {
		st.Groups, st.GroupIDs = ms, ids
	}
	now := p.clock.Now()
	out := map[int64]domain.AccessLevel{}
	for _, m := range ms {
		if m.Active(now) {
			out[m.SourceID] = max(out[m.SourceID], m.AccessLevel)
		}
	}
	return out, nil
}

// Group computes the caller's rights on a group: membership of it or an
// ancestor gives a level; a private group is also visible to members of
// anything inside it.
func (p *Policy) Group(ctx context.Context, caller *domain.Caller, g *domain.Namespace) (Rights, error) {
	u := user(caller)
	r := Rights{Admin: u != nil && u.Admin}
	if u != nil {
		anc, err := p.namespaces.Ancestors(ctx, g.ID)
		if err != nil {
			return Rights{}, fmt.Errorf("group ancestors: %w", err)
		}
		ids := []int64{g.ID}
		for _, a := range anc {
			ids = append(ids, a.ID)
		}
		levels, err := p.groupLevels(ctx, u.ID, ids, nil)
		if err != nil {
			return Rights{}, err
		}
		for _, id := range ids {
			r.Level = max(r.Level, levels[id])
		}
	}
	r.Read = r.Admin || r.Level >= domain.Guest || visibleBy(g.Visibility, u)
	if !r.Read && u != nil {
		scope, err := p.GroupScope(ctx, caller)
		if err != nil {
			return Rights{}, err
		}
		for _, id := range scope.GroupIDs {
			if id == g.ID {
				r.Read = true
				break
			}
		}
	}
	return r, nil
}

// memberships loads the user's active memberships split by kind.
func (p *Policy) memberships(ctx context.Context, userID int64) (projects, groups []int64, err error) {
	return p.membershipsAt(ctx, userID, domain.Guest)
}

// membershipsAt is memberships holding at least level.
func (p *Policy) membershipsAt(ctx context.Context, userID int64, level domain.AccessLevel) (projects, groups []int64, err error) {
	ms, err := p.members.OfUser(ctx, userID)
	if err != nil {
		return nil, nil, fmt.Errorf("memberships: %w", err)
	}
	now := p.clock.Now()
	for _, m := range ms {
		if !m.Active(now) || m.AccessLevel < level {
			continue
		}
		if m.Source == domain.MemberOfProject {
			projects = append(projects, m.SourceID)
		} else {
			groups = append(groups, m.SourceID)
		}
	}
	return projects, groups, nil
}

// ProjectScope is the set of projects the caller may read, in a form a
// store applies in the list query itself (one query, exact X-Total).
// It costs a constant number of queries whatever the number of projects.
func (p *Policy) ProjectScope(ctx context.Context, caller *domain.Caller) (domain.ReadScope, error) {
	return p.ProjectScopeAt(ctx, caller, domain.Guest)
}

// ProjectScopeAt is ProjectScope where private projects count only when
// the caller holds at least level in them (merge requests and code need
// reporter): public and internal projects stay readable to everyone who
// may see them.
func (p *Policy) ProjectScopeAt(ctx context.Context, caller *domain.Caller, level domain.AccessLevel) (domain.ReadScope, error) {
	u := user(caller)
	if u == nil {
		return domain.ReadScope{}, nil
	}
	if u.Admin {
		return domain.ReadScope{All: true}, nil
	}
	scope := domain.ReadScope{Internal: !u.External}
	projects, groups, err := p.membershipsAt(ctx, u.ID, level)
	if err != nil {
		return scope, err
	}
	scope.ProjectIDs = projects
	if ns, err := p.namespaces.ForUser(ctx, u.ID); err == nil {
		scope.NamespaceIDs = append(scope.NamespaceIDs, ns.ID)
	}
	if len(groups) > 0 {
		desc, err := p.namespaces.Descendants(ctx, groups)
		if err != nil {
			return scope, fmt.Errorf("descendant groups: %w", err)
		}
		effective := append(append([]int64{}, groups...), desc...)
		scope.NamespaceIDs = append(scope.NamespaceIDs, effective...)
		shares, err := p.members.SharesWithGroups(ctx, effective)
		if err != nil {
			return scope, fmt.Errorf("shares: %w", err)
		}
		now := p.clock.Now()
		for _, s := range shares {
			if (s.ExpiresAt == nil || now.Before(*s.ExpiresAt)) && s.GroupAccess >= level {
				scope.ProjectIDs = append(scope.ProjectIDs, s.ProjectID)
			}
		}
	}
	return scope, nil
}

// GroupScope is the set of groups the caller may see: by visibility, plus
// groups they belong to (with descendants), plus the ancestors of those and
// of the groups holding their projects.
func (p *Policy) GroupScope(ctx context.Context, caller *domain.Caller) (domain.GroupFilter, error) {
	u := user(caller)
	if u == nil {
		return domain.GroupFilter{}, nil
	}
	if u.Admin {
		return domain.GroupFilter{All: true}, nil
	}
	f := domain.GroupFilter{Internal: !u.External}
	projects, groups, err := p.memberships(ctx, u.ID)
	if err != nil {
		return f, err
	}
	var desc []int64
	if len(groups) > 0 {
		if desc, err = p.namespaces.Descendants(ctx, groups); err != nil {
			return f, fmt.Errorf("descendant groups: %w", err)
		}
	}
	seeds := append([]int64{}, groups...)
	if len(projects) > 0 {
		nsIDs, err := p.projectNamespaces(ctx, projects)
		if err != nil {
			return f, err
		}
		seeds = append(seeds, nsIDs...)
	}
	var anc []int64
	if len(seeds) > 0 {
		if anc, err = p.namespaces.AncestorIDs(ctx, seeds); err != nil {
			return f, fmt.Errorf("ancestor groups: %w", err)
		}
	}
	f.GroupIDs = dedupe(append(append(append(seeds, groups...), desc...), anc...))
	return f, nil
}

// projectNamespaces returns the group namespaces holding these projects.
func (p *Policy) projectNamespaces(ctx context.Context, projectIDs []int64) ([]int64, error) {
	nss, err := p.namespaces.OfProjects(ctx, projectIDs)
	if err != nil {
		return nil, fmt.Errorf("project namespaces: %w", err)
	}
	return nss, nil
}

func dedupe(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
