package groups

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Namespaces ports.NamespaceStore
	Projects   ports.ProjectStore
	Members    ports.MemberStore
	Repos      ports.RepoStorage
	Tx         ports.TxManager
	Bus        ports.EventBus
	Clock      ports.Clock
	Policy     *access.Policy
	Log        *zap.Logger
	// Settings are the application settings (visibility default and
	// restrictions); without them GitLab's defaults apply.
	Settings ports.Settings `optional:"true"`
}

// Service holds the groups use cases. It never sees HTTP types. Each use
// case resolves the group its input names with core/access and asks for
// the named abilities it needs: a user first for writes (401), then a
// readable group (404), then the ability (403). Inputs carry the request's
// parameter problems in Invalid; a use case reports them only after its access
// checks, so callers who may not use an endpoint learn nothing from its
// validation.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// Group is a group as the API shows it: with its full name ("Top / Sub")
// and, for administrators who ask, its statistics.
type Group struct {
	domain.Namespace
	FullName   string
	Statistics *Statistics
}

// Detail is a group with the projects directly in it and the projects
// shared with it, each limited to what the caller may read.
type Detail struct {
	Group
	Projects []domain.Project
	Shared   []domain.Project
}

// resolveSignedIn is ResolveGroup for writes: an anonymous caller is a 401
// before anything about the group is revealed.
func (s *Service) resolveSignedIn(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.GroupTarget, error) {
	if caller.UserID() == 0 {
		return access.GroupTarget{}, core.Unauthenticated()
	}
	return s.p.Policy.ResolveGroup(ctx, caller, ref)
}

// detail loads what a group's detail shows.
func (s *Service) detail(ctx context.Context, caller *domain.Caller, g *domain.Namespace) (*Detail, error) {
	projects, shared, err := s.projectsOf(ctx, caller, g)
	if err != nil {
		return nil, err
	}
	names, err := s.fullNames(ctx, []domain.Namespace{*g})
	if err != nil {
		return nil, err
	}
	return &Detail{Group: Group{Namespace: *g, FullName: names[g.ID]}, Projects: projects, Shared: shared}, nil
}

// fullNames maps each group to its "Top / Sub / Name", loading every
// ancestor in a constant number of queries.
func (s *Service) fullNames(ctx context.Context, groups []domain.Namespace) (map[int64]string, error) {
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

// projectsOf returns the projects directly in the group and the projects
// shared with it, each limited to what the caller may read.
func (s *Service) projectsOf(ctx context.Context, caller *domain.Caller, g *domain.Namespace) (projects, shared []domain.Project, err error) {
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
