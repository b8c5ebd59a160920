package groups

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// UpdateInput changes a group; nil fields stay.
type UpdateInput struct {
	Name                 *string
	Path                 *string
	Description          *string
	Visibility           *domain.Visibility
	LFSEnabled           *bool
	RequestAccessEnabled *bool
	Invalid              error // parameter problems, reported after the access checks
}

// Update changes a group (owners and administrators) and returns its detail. A new path rewrites
// the full paths below it (the store does it). Visibility may not exceed
// the parent's nor fall below that of the group's projects or subgroups.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in UpdateInput) (*Detail, error) {
	t, err := s.resolveSignedIn(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.AdminGroup); err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	g := t.Group
	fields := core.FieldErrors{}
	if in.Name != nil {
		fields.Add("name", nameErrors(*in.Name)...)
	}
	if in.Path != nil && *in.Path != g.Path {
		fields.Add("path", domain.NamespacePathErrors(*in.Path, g.ParentID == nil)...)
	}
	if in.Visibility != nil && *in.Visibility != g.Visibility {
		app, err := ports.CurrentSettings(ctx, s.p.Settings)
		if err != nil {
			return nil, fmt.Errorf("application settings: %w", err)
		}
		if err := access.AllowedVisibility(app, caller, *in.Visibility); err != nil {
			return nil, err
		}
		msgs, err := s.visibilityErrors(ctx, g, *in.Visibility)
		if err != nil {
			return nil, err
		}
		fields.Add("visibility_level", msgs...)
	}
	if len(fields) > 0 {
		return nil, core.Validation(fields)
	}
	var out *domain.Namespace
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
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
	return s.detail(ctx, caller, out)
}
