package deploykeys

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Listed is one page of deploy keys and the total.
type Listed struct {
	Keys  []domain.DeployKey
	Total int
}

// ListAll reads a page of every deploy key, for administrators (401
// anonymous, 403 others).
func (s *Service) ListAll(ctx context.Context, caller *domain.Caller, pg domain.Page, invalid error) (*Listed, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return nil, core.Forbidden("")
	}
	if invalid != nil {
		return nil, invalid
	}
	keys, total, err := s.p.DeployKeys.List(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("list deploy keys: %w", err)
	}
	return &Listed{Keys: keys, Total: total}, nil
}

// List reads a page of the keys enabled for the project, oldest first.
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, pg domain.Page, invalid error) (*Listed, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	keys, total, err := s.p.DeployKeys.ListByProject(ctx, t.Project.ID, pg)
	if err != nil {
		return nil, fmt.Errorf("list deploy keys of project %d: %w", t.Project.ID, err)
	}
	return &Listed{Keys: keys, Total: total}, nil
}

// Get reads one key enabled for the project.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id KeyID) (*domain.DeployKey, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	return s.inProject(ctx, t, id, errKeyNotFound)
}
