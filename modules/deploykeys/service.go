package deploykeys

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
	Log        *zap.Logger
	Clock      ports.Clock
	Policy     *access.Policy
	Bus        ports.EventBus
	DeployKeys ports.DeployKeyStore
	// Projects finds the projects a key is enabled for, to tell whether
	// the caller may see the key.
	Projects ports.ProjectStore
}

// Service holds the deploy key use cases. It never sees HTTP types.
type Service struct {
	p   Params
	log *zap.Logger
}

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p, log: p.Log} }

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// errKeyNotFound is GitLab 9.x's answer when GET names a key the project
// does not have (ActiveRecord's RecordNotFound from deploy_keys.find).
var errKeyNotFound = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not found"}

// target resolves the project as GitLab's before filters do: anonymous
// callers 401 first (authenticate!), the project's 404, then
// admin_project (masters and owners; 403 below).
func (s *Service) target(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return t, err
	}
	return t, t.Require(access.AdminProject)
}

// inProject reads key id of the target's project; notFound is the answer
// when the project does not have it.
func (s *Service) inProject(ctx context.Context, t access.Target, id KeyID, notFound error) (*domain.DeployKey, error) {
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	k, err := s.p.DeployKeys.InProject(ctx, t.Project.ID, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, fmt.Errorf("read deploy key: %w", err)
	}
	return k, nil
}

// canSee reports whether the caller may enable key k elsewhere: an
// administrator may, anyone else when the key is enabled for a project
// where they have admin_project (GitLab's accessible_deploy_keys).
func (s *Service) canSee(ctx context.Context, caller *domain.Caller, k *domain.DeployKey) (bool, error) {
	if caller.IsAdmin() {
		return true, nil
	}
	ids, err := s.p.DeployKeys.Projects(ctx, k.ID)
	if err != nil {
		return false, fmt.Errorf("projects of deploy key %d: %w", k.ID, err)
	}
	// One read for the projects (those deleted since are left out); the
	// access check then stops at the first project the caller masters.
	projects, err := s.p.Projects.GetMany(ctx, ids)
	if err != nil {
		return false, fmt.Errorf("projects of deploy key %d: %w", k.ID, err)
	}
	for i := range projects {
		t, err := s.p.Policy.TargetOf(ctx, caller, &projects[i])
		if err != nil {
			return false, fmt.Errorf("access to project %d: %w", projects[i].ID, err)
		}
		if t.Can(access.AdminProject) {
			return true, nil
		}
	}
	return false, nil
}
