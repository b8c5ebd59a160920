package projects

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// UpdateInput are the settings PUT /projects/:id changes.
type UpdateInput struct {
	Settings
	Invalid error // parameter problems, reported after the access checks
}

// Update changes a project's settings. Masters change settings; renaming,
// moving the path and changing the visibility are owners' (GitLab's
// rename_project and change_visibility_level). A new default branch must
// exist in the repository.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, input UpdateInput) (*domain.Project, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.AdminProject); err != nil {
		return nil, err
	}
	if input.Invalid != nil {
		return nil, input.Invalid
	}
	proj, in := t.Project, input.Settings
	if in.Name != nil || (in.Path != nil && *in.Path != proj.Path) {
		if err := t.Require(access.RenameProject); err != nil {
			return nil, err
		}
	}
	if in.Visibility != nil {
		if err := t.Require(access.ChangeVisibilityLevel); err != nil {
			return nil, err
		}
	}
	ns, err := s.p.Namespaces.Get(ctx, proj.NamespaceID)
	if err != nil {
		return nil, fmt.Errorf("project namespace: %w", err)
	}
	var source *domain.Project
	if proj.ForkedFromID != nil && in.Visibility != nil {
		if source, err = s.p.Projects.Get(ctx, *proj.ForkedFromID); errors.Is(err, core.ErrNotFound) {
			source = nil
		} else if err != nil {
			return nil, fmt.Errorf("fork source: %w", err)
		}
	}
	next := *proj
	in.apply(&next)
	if next.Visibility != proj.Visibility {
		app, err := ports.CurrentSettings(ctx, s.p.Settings)
		if err != nil {
			return nil, fmt.Errorf("application settings: %w", err)
		}
		if err := access.AllowedVisibility(app, caller, next.Visibility); err != nil {
			return nil, err
		}
	}
	fields := s.validate(&in, &next, ns, source)
	if len(fields) > 0 {
		return nil, core.Validation(fields)
	}
	if in.DefaultBranch != nil && next.DefaultBranch != proj.DefaultBranch {
		// Git first (HEAD names the branch), then the record: a failure
		// between them leaves HEAD ahead, and the next update repairs it.
		err := s.p.Heads.SetDefaultBranch(ctx, domain.RepoPath(proj.ID), next.DefaultBranch)
		switch {
		case errors.Is(err, core.ErrNotFound), errors.Is(err, core.ErrInvalid):
			return nil, core.FieldInvalid("base", "Could not change HEAD: branch '"+next.DefaultBranch+"' does not exist")
		case err != nil:
			return nil, fmt.Errorf("set default branch: %w", err)
		}
	}
	var out *domain.Project
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		now := s.now()
		var err error
		out, err = s.p.Projects.Update(ctx, proj.ID, func(p *domain.Project) error {
			in.apply(p)
			p.UpdatedAt = now
			p.LastActivityAt = now
			return nil
		})
		if err != nil {
			return projectWriteErr(err, "update project")
		}
		return s.p.Bus.Publish(ctx, domain.ProjectUpdated{Project: *out, Before: *proj, Actor: caller.UserID()})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
