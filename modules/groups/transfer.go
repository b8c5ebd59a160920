package groups

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Transfer moves the project projectRef names into the group ref names
// (administrators) and returns the group's detail. A project more visible
// than the group takes the group's visibility, as GitLab's TransferService
// does.
func (s *Service) Transfer(ctx context.Context, caller *domain.Caller, ref, projectRef domain.IDOrPath) (*Detail, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return nil, core.Forbidden("")
	}
	gt, err := s.p.Policy.ResolveGroup(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	pt, err := s.p.Policy.Resolve(ctx, caller, projectRef)
	if err != nil {
		return nil, err
	}
	g, project := gt.Group, pt.Project
	if project.NamespaceID == g.ID {
		return nil, core.FieldInvalid("new_namespace", "is invalid")
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		moved, err := s.p.Projects.Update(ctx, project.ID, func(p *domain.Project) error {
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
		return s.p.Bus.Publish(ctx, domain.ProjectTransferred{Project: *moved, Before: *project, Actor: caller.UserID()})
	})
	if err != nil {
		return nil, err
	}
	return s.detail(ctx, caller, g)
}
