package projects

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// ShareLevels are the levels a project may be shared at (GitLab's
// Gitlab::Access.values: guest to master).
var ShareLevels = []domain.AccessLevel{domain.Guest, domain.Reporter, domain.Developer, domain.Master}

// ShareInput is POST /projects/:id/share's.
type ShareInput struct {
	GroupID   int64
	Level     domain.AccessLevel
	ExpiresAt *time.Time
	Invalid   error // parameter problems, reported after the access checks
}

// Share gives the members of a group access to the project, capped at
// level (masters of the project; the group must be readable to the
// caller, 404 otherwise). Sharing again is a 409, as is sharing with the
// group the project is in or one above it.
func (s *Service) Share(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ShareInput) (*domain.ProjectShare, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.AdminProject); err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	g, err := s.p.Policy.ResolveGroup(ctx, caller, domain.IDOrPath{ID: in.GroupID})
	if err != nil {
		return nil, err
	}
	proj, group := t.Project, g.Group
	ns, err := s.p.Namespaces.Get(ctx, proj.NamespaceID)
	if err != nil {
		return nil, fmt.Errorf("project namespace: %w", err)
	}
	if ns.Kind == domain.NamespaceGroup {
		anc, err := s.p.Namespaces.AncestorIDs(ctx, []int64{ns.ID})
		if err != nil {
			return nil, fmt.Errorf("group ancestors: %w", err)
		}
		for _, id := range append(anc, ns.ID) {
			if id == group.ID {
				return nil, core.Conflict("Project cannot be shared with the group it is in or one of its ancestors.")
			}
		}
	}
	share := &domain.ProjectShare{
		ProjectID:   proj.ID,
		GroupID:     group.ID,
		GroupAccess: in.Level,
		ExpiresAt:   in.ExpiresAt,
		CreatedAt:   s.now(),
	}
	err = s.p.Members.Share(ctx, share)
	switch {
	case errors.Is(err, core.ErrConflict):
		return nil, core.Conflict("Group already shared with this group")
	case errors.Is(err, core.ErrNotFound):
		return nil, core.NotFound("Group")
	case err != nil:
		return nil, fmt.Errorf("share project: %w", err)
	}
	return share, nil
}

// Unshare removes the project's share with a group (masters); 404 "Group
// Link Not Found" when there is none (and for a group ID that is not
// positive, which names none).
func (s *Service) Unshare(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, groupID int64) error {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return err
	}
	if err := t.Require(access.AdminProject); err != nil {
		return err
	}
	if groupID <= 0 {
		return core.NotFound("Group Link")
	}
	err = s.p.Members.Unshare(ctx, t.Project.ID, groupID)
	if errors.Is(err, core.ErrNotFound) {
		return core.NotFound("Group Link")
	}
	if err != nil {
		return fmt.Errorf("unshare project: %w", err)
	}
	return nil
}
