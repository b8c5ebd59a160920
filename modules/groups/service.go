package groups

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Namespaces ports.NamespaceStore
	Projects   ports.ProjectStore
	Members    ports.MemberStore
	Users      ports.UserStore
	Repos      ports.RepoBackend
	Tx         ports.TxManager
	Bus        ports.EventBus
	Clock      ports.Clock
	Policy     *access.Policy
	Presenter  *apijson.ProjectPresenter
	Log        *zap.Logger `optional:"true"`
}

// Service holds the groups use cases. It never sees HTTP types.
type Service struct {
	p   Params
	log *zap.Logger
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log}
}

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// ListInput are the group list's filters.
type ListInput struct {
	SkipIDs      []int64
	AllAvailable bool
	Search       string
	OrderBy      string // name or path
	Ascending    bool
	Owned        bool
	Page         domain.Page
}

// List returns one page of groups and the total, filtered in the store
// with the policy's scope so the total is exact. Administrators get every
// group; users the groups they are direct members of, or with
// all_available every group they may see; anonymous callers public groups.
// owned limits to groups the caller directly owns.
func (s *Service) List(ctx context.Context, caller *domain.Caller, in ListInput) ([]domain.Namespace, int, error) {
	f, err := s.p.Policy.GroupScope(ctx, caller)
	if err != nil {
		return nil, 0, err
	}
	uid := caller.UserID()
	switch {
	case in.Owned && uid != 0:
		ids, err := s.directGroups(ctx, uid, domain.Owner)
		if err != nil {
			return nil, 0, err
		}
		f.OnlyIDs, f.OnlyIDsSet = ids, true
	case in.Owned:
		return []domain.Namespace{}, 0, nil
	case uid != 0 && !caller.IsAdmin() && !in.AllAvailable:
		ids, err := s.directGroups(ctx, uid, domain.Guest)
		if err != nil {
			return nil, 0, err
		}
		f.OnlyIDs, f.OnlyIDsSet = ids, true
	}
	f.SkipIDs = in.SkipIDs
	f.Search = in.Search
	f.OrderBy = in.OrderBy
	f.Ascending = in.Ascending
	f.Page = in.Page
	list, total, err := s.p.Namespaces.ListGroups(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list groups: %w", err)
	}
	return list, total, nil
}

// directGroups are the groups the user is an active direct member of with
// at least level.
func (s *Service) directGroups(ctx context.Context, userID int64, level domain.AccessLevel) ([]int64, error) {
	ms, err := s.p.Members.OfUser(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("memberships: %w", err)
	}
	now := s.now()
	ids := []int64{}
	for _, m := range ms {
		if m.Source == domain.MemberOfGroup && m.AccessLevel >= level && m.Active(now) {
			ids = append(ids, m.SourceID)
		}
	}
	return ids, nil
}

// Group finds a group the caller may read (ID or full path); 404 otherwise.
func (s *Service) Group(ctx context.Context, caller *domain.Caller, id int64, path string) (*domain.Namespace, access.Rights, error) {
	return s.p.Policy.GroupByRef(ctx, caller, domain.IDOrPath{ID: id, Path: path})
}

// FullNames maps each group to its "Top / Sub / Name", loading every
// ancestor in a constant number of queries.
func (s *Service) FullNames(ctx context.Context, groups []domain.Namespace) (map[int64]string, error) {
	byID := make(map[int64]*domain.Namespace, len(groups))
	var parents []int64
	for i := range groups {
		byID[groups[i].ID] = &groups[i]
		if groups[i].ParentID != nil {
			parents = append(parents, groups[i].ID)
		}
	}
	if len(parents) > 0 {
		anc, err := s.p.Namespaces.AncestorIDs(ctx, parents)
		if err != nil {
			return nil, fmt.Errorf("group ancestors: %w", err)
		}
		var missing []int64
		for _, id := range anc {
			if byID[id] == nil {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			nss, err := s.p.Namespaces.GetMany(ctx, missing)
			if err != nil {
				return nil, fmt.Errorf("load ancestors: %w", err)
			}
			for i := range nss {
				byID[nss[i].ID] = &nss[i]
			}
		}
	}
	names := make(map[int64]string, len(byID))
	var name func(id int64, depth int) string
	name = func(id int64, depth int) string {
		if n, ok := names[id]; ok {
			return n
		}
		ns := byID[id]
		if ns == nil {
			return ""
		}
		n := ns.Name
		if ns.ParentID != nil && depth < 64 {
			if parent := name(*ns.ParentID, depth+1); parent != "" {
				n = parent + " / " + n
			}
		}
		names[id] = n
		return n
	}
	out := make(map[int64]string, len(groups))
	for _, g := range groups {
		out[g.ID] = name(g.ID, 0)
	}
	return out, nil
}

// Statistics are a group's storage figures: the sums over the projects
// directly in it, as GitLab 9.x's Namespace.with_statistics computes them.
type Statistics struct {
	StorageSize      int64
	RepositorySize   int64
	LFSObjectsSize   int64
	JobArtifactsSize int64
}

// Statistics computes the statistics of each group (administrators only;
// the caller checks).
func (s *Service) Statistics(ctx context.Context, groups []domain.Namespace) (map[int64]Statistics, error) {
	out := make(map[int64]Statistics, len(groups))
	if len(groups) == 0 {
		return out, nil
	}
	ids := make([]int64, len(groups))
	for i, g := range groups {
		ids[i] = g.ID
		out[g.ID] = Statistics{}
	}
	projects, _, err := s.p.Projects.List(ctx, domain.ProjectFilter{
		Readable: domain.ReadScope{All: true}, NamespaceIDs: ids, OrderBy: domain.OrderByID, Ascending: true,
	})
	if err != nil {
		return nil, fmt.Errorf("group projects: %w", err)
	}
	for _, p := range projects {
		size, _, err := s.p.Repos.Stats(ctx, domain.RepoPath(p.ID), p.DefaultBranch)
		if err != nil {
			return nil, fmt.Errorf("repository statistics: %w", err)
		}
		st := out[p.NamespaceID]
		st.StorageSize += size
		st.RepositorySize += size
		out[p.NamespaceID] = st
	}
	return out, nil
}

// Detail returns the projects directly in the group and the projects
// shared with it, each limited to what the caller may read.
func (s *Service) Detail(ctx context.Context, caller *domain.Caller, g *domain.Namespace) (projects, shared []domain.Project, err error) {
	scope, err := s.p.Policy.ProjectScope(ctx, caller)
	if err != nil {
		return nil, nil, err
	}
	projects, _, err = s.p.Projects.List(ctx, domain.ProjectFilter{
		Readable: scope, NamespaceIDs: []int64{g.ID}, OrderBy: domain.OrderByID, Ascending: true,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("group projects: %w", err)
	}
	shares, err := s.p.Members.SharesWithGroups(ctx, []int64{g.ID})
	if err != nil {
		return nil, nil, fmt.Errorf("group shares: %w", err)
	}
	now := s.now()
	var ids []int64
	for _, sh := range shares {
		if sh.GroupID == g.ID && (sh.ExpiresAt == nil || now.Before(*sh.ExpiresAt)) {
			ids = append(ids, sh.ProjectID)
		}
	}
	shared = []domain.Project{}
	if len(ids) > 0 {
		shared, _, err = s.p.Projects.List(ctx, domain.ProjectFilter{
			Readable: scope, OnlyIDs: ids, OnlyIDsSet: true, OrderBy: domain.OrderByID, Ascending: true,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("shared projects: %w", err)
		}
	}
	return projects, shared, nil
}

// CreateInput is a new group.
type CreateInput struct {
	Name                 string
	Path                 string
	Description          string
	Visibility           domain.Visibility // "": private
	LFSEnabled           *bool             // nil: enabled
	RequestAccessEnabled *bool             // nil: disabled
	ParentID             *int64
}

// CanCreate checks that caller may create a group: under a parent, its
// owners and administrators (GitLab 9.x's create_subgroup); at the top,
// users allowed to create groups and administrators. An unreadable parent
// is a 404.
func (s *Service) CanCreate(ctx context.Context, caller *domain.Caller, parentID *int64) (*domain.Namespace, error) {
	if parentID != nil {
		parent, r, err := s.p.Policy.GroupByRef(ctx, caller, domain.IDOrPath{ID: *parentID, Path: ""})
		if err != nil {
			return nil, err
		}
		if !r.AtLeast(domain.Owner) {
			return nil, core.Forbidden("")
		}
		return parent, nil
	}
	if caller == nil || caller.User == nil {
		return nil, core.Unauthenticated()
	}
	if !caller.IsAdmin() && !caller.User.CanCreateGroup {
		return nil, core.Forbidden("")
	}
	return nil, nil
}

// Create makes a group with the caller as its owner, in one transaction.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, in CreateInput) (*domain.Namespace, error) {
	parent, err := s.CanCreate(ctx, caller, in.ParentID)
	if err != nil {
		return nil, err
	}
	if in.Visibility == "" {
		in.Visibility = domain.Private
	}
	fields := fieldErrors{}
	fields.add("name", nameErrors(in.Name)...)
	fields.add("path", pathErrors(in.Path, parent == nil)...)
	if parent != nil {
		if msg := parentVisibilityError(in.Visibility, parent); msg != "" {
			fields.add("visibility_level", msg)
		}
		anc, err := s.p.Namespaces.AncestorIDs(ctx, []int64{parent.ID})
		if err != nil {
			return nil, fmt.Errorf("parent ancestors: %w", err)
		}
		if len(anc)+2 > maxDepth {
			fields.add("parent_id", "has too deep level of nesting")
		}
	}
	if len(fields) > 0 {
		return nil, core.Validation(fields)
	}
	now := s.now()
	g := &domain.Namespace{
		Kind:                 domain.NamespaceGroup,
		Name:                 in.Name,
		Path:                 in.Path,
		Description:          in.Description,
		Visibility:           in.Visibility,
		LFSEnabled:           in.LFSEnabled == nil || *in.LFSEnabled,
		RequestAccessEnabled: in.RequestAccessEnabled != nil && *in.RequestAccessEnabled,
		CreatedAt:            now,
		UpdatedAt:            now,
	}
	if parent != nil {
		id := parent.ID
		g.ParentID = &id
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		taken, err := s.nameTaken(ctx, g.ParentID, g.Name, 0)
		if err != nil {
			return err
		}
		if taken {
			return core.FieldInvalid("name", "has already been taken")
		}
		if err := s.p.Namespaces.Create(ctx, g); err != nil {
			return storeError(err, "create group")
		}
		owner := &domain.Member{
			Source: domain.MemberOfGroup, SourceID: g.ID, UserID: caller.UserID(),
			AccessLevel: domain.Owner, CreatedAt: now, CreatedBy: caller.UserID(),
		}
		if err := s.p.Members.Add(ctx, owner); err != nil {
			return fmt.Errorf("add group owner: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// UpdateInput changes a group; nil fields stay.
type UpdateInput struct {
	Name                 *string
	Path                 *string
	Description          *string
	Visibility           *domain.Visibility
	LFSEnabled           *bool
	RequestAccessEnabled *bool
}

// Update changes a group (owners and administrators). A new path rewrites
// the full paths below it (the store does it). Visibility may not exceed
// the parent's nor fall below that of the group's projects or subgroups.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, g *domain.Namespace, r access.Rights, in UpdateInput) (*domain.Namespace, error) {
	if !r.AtLeast(domain.Owner) {
		return nil, core.Forbidden("")
	}
	fields := fieldErrors{}
	if in.Name != nil {
		fields.add("name", nameErrors(*in.Name)...)
	}
	if in.Path != nil && *in.Path != g.Path {
		fields.add("path", pathErrors(*in.Path, g.ParentID == nil)...)
	}
	if in.Visibility != nil && *in.Visibility != g.Visibility {
		msgs, err := s.visibilityErrors(ctx, g, *in.Visibility)
		if err != nil {
			return nil, err
		}
		fields.add("visibility_level", msgs...)
	}
	if len(fields) > 0 {
		return nil, core.Validation(fields)
	}
	var out *domain.Namespace
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if in.Name != nil && *in.Name != g.Name {
			taken, err := s.nameTaken(ctx, g.ParentID, *in.Name, g.ID)
			if err != nil {
				return err
			}
			if taken {
				return core.FieldInvalid("name", "has already been taken")
			}
		}
		var err error
		out, err = s.p.Namespaces.Update(ctx, g.ID, func(n *domain.Namespace) error {
			if in.Name != nil {
				n.Name = *in.Name
			}
			if in.Path != nil {
				n.Path = *in.Path
			}
			if in.Description != nil {
				n.Description = *in.Description
			}
			if in.Visibility != nil {
				n.Visibility = *in.Visibility
			}
			if in.LFSEnabled != nil {
				n.LFSEnabled = *in.LFSEnabled
			}
			if in.RequestAccessEnabled != nil {
				n.RequestAccessEnabled = *in.RequestAccessEnabled
			}
			n.UpdatedAt = s.now()
			return nil
		})
		if errors.Is(err, core.ErrNotFound) {
			return core.NotFound("Group")
		}
		if err != nil {
			return storeError(err, "update group")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// visibilityErrors applies GitLab's Group visibility validations to a change.
func (s *Service) visibilityErrors(ctx context.Context, g *domain.Namespace, v domain.Visibility) ([]string, error) {
	var msgs []string
	if g.ParentID != nil {
		parent, err := s.p.Namespaces.Get(ctx, *g.ParentID)
		if err != nil {
			return nil, fmt.Errorf("parent group: %w", err)
		}
		if msg := parentVisibilityError(v, parent); msg != "" {
			msgs = append(msgs, msg)
		}
	}
	for _, higher := range []domain.Visibility{domain.Internal, domain.Public} {
		if higher.Rank() <= v.Rank() {
			continue
		}
		_, n, err := s.p.Projects.List(ctx, domain.ProjectFilter{
			Readable: domain.ReadScope{All: true}, NamespaceIDs: []int64{g.ID}, Visibility: higher,
			Page: domain.Page{Page: 1, PerPage: 1},
		})
		if err != nil {
			return nil, fmt.Errorf("group projects: %w", err)
		}
		if n > 0 {
			msgs = append(msgs, string(v)+" is not allowed since this group contains projects with higher visibility.")
			break
		}
	}
	pid := g.ID
	children, _, err := s.p.Namespaces.ListGroups(ctx, domain.GroupFilter{All: true, ParentID: &pid})
	if err != nil {
		return nil, fmt.Errorf("subgroups: %w", err)
	}
	for _, c := range children {
		if c.Visibility.Rank() > v.Rank() {
			msgs = append(msgs, string(v)+" is not allowed since there are sub-groups with higher visibility.")
			break
		}
	}
	return msgs, nil
}

// parentVisibilityError is GitLab's visibility_level_allowed_by_parent.
func parentVisibilityError(v domain.Visibility, parent *domain.Namespace) string {
	if v.Rank() <= parent.Visibility.Rank() {
		return ""
	}
	return string(v) + " is not allowed since the parent group has a " + string(parent.Visibility) + " visibility."
}

// nameTaken reports whether a sibling group (same parent) other than
// except already has this name: GitLab validates name uniqueness per parent.
func (s *Service) nameTaken(ctx context.Context, parentID *int64, name string, except int64) (bool, error) {
	f := domain.GroupFilter{All: true, Search: name}
	if parentID != nil {
		f.ParentID = parentID
	} else {
		f.TopLevel = true
	}
	list, _, err := s.p.Namespaces.ListGroups(ctx, f)
	if err != nil {
		return false, fmt.Errorf("sibling groups: %w", err)
	}
	for _, n := range list {
		if n.ID != except && n.Name == name && sameParent(n.ParentID, parentID) {
			return true, nil
		}
	}
	return false, nil
}

func sameParent(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// Delete removes a group with its subgroups, every project inside and
// their memberships in one transaction (owners and administrators), then
// the projects' repositories once it commits.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, g *domain.Namespace, r access.Rights) error {
	if !r.AtLeast(domain.Owner) {
		return core.Forbidden("")
	}
	var repos []string
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		desc, err := s.p.Namespaces.Descendants(ctx, []int64{g.ID})
		if err != nil {
			return fmt.Errorf("subgroups: %w", err)
		}
		projects, _, err := s.p.Projects.List(ctx, domain.ProjectFilter{
			Readable: domain.ReadScope{All: true}, NamespaceIDs: append([]int64{g.ID}, desc...),
			OrderBy: domain.OrderByID, Ascending: true,
		})
		if err != nil {
			return fmt.Errorf("group projects: %w", err)
		}
		for _, p := range projects {
			if err := s.p.Bus.Publish(ctx, domain.ProjectDestroyed{Project: p, Actor: caller.UserID()}); err != nil {
				return err
			}
			repos = append(repos, domain.RepoPath(p.ID))
		}
		if err := s.p.Namespaces.Delete(ctx, g.ID); err != nil {
			if errors.Is(err, core.ErrNotFound) {
				return core.NotFound("Group")
			}
			return fmt.Errorf("delete group: %w", err)
		}
		s.p.Tx.AfterCommit(ctx, func(ctx context.Context) {
			for _, repo := range repos {
				if err := s.p.Repos.Delete(ctx, repo); err != nil {
					s.log.Error("delete repository of a deleted group", zap.String("repo", repo), zap.Error(err))
				}
			}
		})
		return nil
	})
	return err
}

// Transfer moves a project into the group (administrators; the caller
// checks). A project more visible than the group takes the group's
// visibility, as GitLab's TransferService does.
func (s *Service) Transfer(ctx context.Context, caller *domain.Caller, g *domain.Namespace, project *domain.Project) error {
	if project.NamespaceID == g.ID {
		return core.FieldInvalid("new_namespace", "is invalid")
	}
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		_, err := s.p.Projects.Update(ctx, project.ID, func(p *domain.Project) error {
			p.NamespaceID = g.ID
			if p.Visibility.Rank() > g.Visibility.Rank() {
				p.Visibility = g.Visibility
			}
			p.UpdatedAt = s.now()
			return nil
		})
		switch {
		case errors.Is(err, core.ErrConflict):
			return core.FieldInvalid("new_namespace", "Project with same name or path in target namespace already exists")
		case errors.Is(err, core.ErrNotFound):
			return core.NotFound("Project")
		case err != nil:
			return fmt.Errorf("transfer project: %w", err)
		}
		return nil
	})
}

// ProjectsInput are the group projects list's filters.
type ProjectsInput struct {
	Archived   *bool
	Visibility domain.Visibility
	OrderBy    domain.ProjectOrder
	Ascending  bool
	Search     string
	Owned      bool
	Starred    bool
	Page       domain.Page
}

// Projects returns one page of the projects directly in the group that the
// caller may read, and the total. owned keeps them only when the caller
// directly owns the group (GitLab 9.x's owned_projects); starred keeps the
// caller's starred ones.
func (s *Service) Projects(ctx context.Context, caller *domain.Caller, g *domain.Namespace, in ProjectsInput) ([]domain.Project, int, error) {
	uid := caller.UserID()
	if (in.Owned || in.Starred) && uid == 0 {
		return []domain.Project{}, 0, nil
	}
	if in.Owned {
		m, err := s.p.Members.Get(ctx, domain.MemberOfGroup, g.ID, uid)
		if errors.Is(err, core.ErrNotFound) || (err == nil && (m.AccessLevel < domain.Owner || !m.Active(s.now()))) {
			return []domain.Project{}, 0, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("group membership: %w", err)
		}
	}
	scope, err := s.p.Policy.ProjectScope(ctx, caller)
	if err != nil {
		return nil, 0, err
	}
	f := domain.ProjectFilter{
		Readable:     scope,
		NamespaceIDs: []int64{g.ID},
		Archived:     in.Archived,
		Visibility:   in.Visibility,
		Search:       strings.TrimSpace(in.Search),
		OrderBy:      in.OrderBy,
		Ascending:    in.Ascending,
		Page:         in.Page,
	}
	if in.Starred {
		f.StarredBy = uid
	}
	list, total, err := s.p.Projects.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("group projects: %w", err)
	}
	return list, total, nil
}

// storeError turns a store's uniqueness conflict into GitLab's 400 field
// map and an unknown parent into a 404.
func storeError(err error, what string) error {
	switch {
	case errors.Is(err, core.ErrConflict):
		if f := core.Fields(err); len(f) > 0 {
			return core.Validation(f)
		}
		return core.FieldInvalid("path", "has already been taken")
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound("Group")
	}
	return fmt.Errorf("%s: %w", what, err)
}
