package projects

import (
	"context"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Star stars (or unstars) the project for the caller; a repeat is
// core.ErrNotModified (304).
func (s *Service) Star(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, star bool) (*domain.Project, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	proj := t.Project
	var changed bool
	if star {
		changed, err = s.p.Projects.Star(ctx, caller.UserID(), proj.ID)
	} else {
		changed, err = s.p.Projects.Unstar(ctx, caller.UserID(), proj.ID)
	}
	if err != nil {
		return nil, projectWriteErr(err, "star project")
	}
	if !changed {
		return nil, &core.Error{Kind: core.ErrNotModified}
	}
	out, err := s.p.Projects.Get(ctx, proj.ID)
	if err != nil {
		return nil, projectWriteErr(err, "reload project")
	}
	return out, nil
}
