package repository

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// The protected branches API (GitLab 9.5's lib/api/protected_branches.rb):
// the project's rules by name, wildcards included, whether or not a
// branch matches them. Every endpoint, reads included, is a master's
// (GitLab's authorize_admin_project); the rules are those the branches
// API's protect and unprotect change and git pushes and merges obey.

// errProtectedBranchNotFound is what GitLab's find_by! answers for a name
// no rule has.
var errProtectedBranchNotFound = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not found"}

// ListProtectedBranches lists one page of the project's rules, sorted by
// name, and how many there are.
func (s *Service) ListProtectedBranches(ctx context.Context, req Request, pg domain.Page) ([]domain.ProtectedBranch, int, error) {
	t, err := s.target(ctx, req, toAdmin)
	if err != nil {
		return nil, 0, err
	}
	all, err := s.p.Protected.List(ctx, t.Project.ID)
	if err != nil {
		return nil, 0, fmt.Errorf("protected branches of project %d: %w", t.Project.ID, err)
	}
	return pageOf(all, pg), len(all), nil
}

// GetProtectedBranch reads the rule named exactly name ("release/*" is
// the wildcard rule, not the rule protecting a branch "release/1").
func (s *Service) GetProtectedBranch(ctx context.Context, req Request, name string) (domain.ProtectedBranch, error) {
	t, err := s.target(ctx, req, toAdmin)
	if err != nil {
		return domain.ProtectedBranch{}, err
	}
	return s.protectedBranch(ctx, t.Project.ID, name)
}

// CreateProtectedBranch adds a rule; a rule of that name is a 409.
func (s *Service) CreateProtectedBranch(ctx context.Context, req Request, in CreateProtectedBranchInput) (domain.ProtectedBranch, error) {
	t, err := s.target(ctx, req, toAdmin)
	if err != nil {
		return domain.ProtectedBranch{}, err
	}
	push, merge, err := in.levels()
	if err != nil {
		return domain.ProtectedBranch{}, err
	}
	rule := domain.ProtectedBranch{ProjectID: t.Project.ID, Name: in.Name, PushAccessLevel: push, MergeAccessLevel: merge, CreatedAt: s.now()}
	out, err := s.p.Protected.Create(ctx, rule)
	switch {
	case errors.Is(err, core.ErrConflict):
		return domain.ProtectedBranch{}, core.Conflict(fmt.Sprintf("Protected branch '%s' already exists", in.Name))
	case err != nil:
		return domain.ProtectedBranch{}, fmt.Errorf("protect %q: %w", in.Name, err)
	}
	return out, nil
}

// DeleteProtectedBranch removes the rule named exactly name; the branches
// it matched are no longer protected unless another rule matches them.
func (s *Service) DeleteProtectedBranch(ctx context.Context, req Request, name string) error {
	t, err := s.target(ctx, req, toAdmin)
	if err != nil {
		return err
	}
	if _, err := s.protectedBranch(ctx, t.Project.ID, name); err != nil {
		return err
	}
	if err := s.p.Protected.Unprotect(ctx, t.Project.ID, name); err != nil {
		return fmt.Errorf("unprotect %q: %w", name, err)
	}
	return nil
}

// protectedBranch reads one rule, GitLab's 404 when none has the name.
func (s *Service) protectedBranch(ctx context.Context, projectID int64, name string) (domain.ProtectedBranch, error) {
	b, err := s.p.Protected.Get(ctx, projectID, name)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return domain.ProtectedBranch{}, errProtectedBranchNotFound
	case err != nil:
		return domain.ProtectedBranch{}, fmt.Errorf("protected branch %q: %w", name, err)
	}
	return b, nil
}
