package ci

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// errVariableNotFound is GitLab's not_found!('Variable').
var errVariableNotFound = core.NotFound("Variable")

// VariablesListed is one page of a project's variables and the total.
type VariablesListed struct {
	Variables []domain.Variable
	Total     int
}

// variablesTarget resolves the project for the variables API: anonymous
// callers 401 first (GitLab authenticates), the project's 404, then
// admin_build (masters, 403).
func (s *Service) variablesTarget(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return t, err
	}
	return t, t.Require(access.AdminBuild)
}

// Variables lists a page of the project's CI variables.
func (s *Service) Variables(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, pg domain.Page, invalid error) (*VariablesListed, error) {
	t, err := s.variablesTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	list, total, err := s.p.Variables.List(ctx, t.Project.ID, pg)
	if err != nil {
		return nil, fmt.Errorf("list variables: %w", err)
	}
	return &VariablesListed{Variables: list, Total: total}, nil
}

// Variable reads one variable by key.
func (s *Service) Variable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, key string) (*domain.Variable, error) {
	t, err := s.variablesTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	return s.loadVariable(ctx, t, key)
}

func (s *Service) loadVariable(ctx context.Context, t access.Target, key string) (*domain.Variable, error) {
	v, err := s.p.Variables.Get(ctx, t.Project.ID, key)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errVariableNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read variable: %w", err)
	}
	return v, nil
}

// CreateVariable adds a variable; a taken key is GitLab's 400.
func (s *Service) CreateVariable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in VariableInput) (*domain.Variable, error) {
	t, err := s.variablesTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	v := &domain.Variable{ProjectID: t.Project.ID}
	in.apply(v)
	if err := validateVariable(v); err != nil {
		return nil, err
	}
	err = s.p.Variables.Create(ctx, v)
	if errors.Is(err, core.ErrConflict) {
		return nil, keyTaken(v.Key)
	}
	if err != nil {
		return nil, fmt.Errorf("create variable: %w", err)
	}
	return v, nil
}

// UpdateVariable changes the variable key names (its key too, when
// given).
func (s *Service) UpdateVariable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, key string, in VariableInput) (*domain.Variable, error) {
	t, err := s.variablesTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	v, err := s.p.Variables.Update(ctx, t.Project.ID, key, func(v *domain.Variable) error {
		in.apply(v)
		return validateVariable(v)
	})
	switch {
	case errors.Is(err, core.ErrNotFound):
		return nil, errVariableNotFound
	case errors.Is(err, core.ErrConflict):
		return nil, keyTaken(*in.Key)
	case errors.Is(err, core.ErrInvalid):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("update variable: %w", err)
	}
	return v, nil
}

// DeleteVariable removes the variable key names.
func (s *Service) DeleteVariable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, key string) error {
	t, err := s.variablesTarget(ctx, caller, ref)
	if err != nil {
		return err
	}
	err = s.p.Variables.Delete(ctx, t.Project.ID, key)
	if errors.Is(err, core.ErrNotFound) {
		return errVariableNotFound
	}
	if err != nil {
		return fmt.Errorf("delete variable: %w", err)
	}
	return nil
}
