package groups

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// CreateInput is a new group.
type CreateInput struct {
	Name                 string
	Path                 string
	Description          string
	Visibility           domain.Visibility // "": the settings' default_group_visibility
	LFSEnabled           *bool             // nil: enabled
	RequestAccessEnabled *bool             // nil: disabled
	ParentID             *int64
	Invalid              error // parameter problems, reported after the access checks
}

// canCreate checks that a signed-in caller may create a group: under a
// parent, its owners and administrators (GitLab 9.x grants create_subgroup
// with admin_group); at the top, users allowed to create groups and
// administrators. An unreadable parent is a 404.
func (s *Service) canCreate(ctx context.Context, caller *domain.Caller, parentID *int64) (*domain.Namespace, error) {
	if parentID != nil {
		parent, err := s.p.Policy.ResolveGroup(ctx, caller, domain.IDOrPath{ID: *parentID})
		if err != nil {
			return nil, err
		}
		if err := parent.Require(access.AdminGroup); err != nil {
			return nil, err
		}
		return parent.Group, nil
	}
	if !caller.IsAdmin() && !caller.User.CanCreateGroup {
		return nil, core.Forbidden("")
	}
	return nil, nil
}

// Create makes a group with the caller as its owner, in one transaction,
// and returns its detail.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, in CreateInput) (*Detail, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	parent, err := s.canCreate(ctx, caller, in.ParentID)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		return nil, fmt.Errorf("application settings: %w", err)
	}
	if in.Visibility == "" {
		in.Visibility = app.DefaultGroupVisibility
	}
	if err := access.AllowedVisibility(app, caller, in.Visibility); err != nil {
		return nil, err
	}
	fields := core.FieldErrors{}
	fields.Add("name", nameErrors(in.Name)...)
	fields.Add("path", domain.NamespacePathErrors(in.Path, parent == nil)...)
	if parent != nil {
		if msg := parentVisibilityError(in.Visibility, parent); msg != "" {
			fields.Add("visibility_level", msg)
		}
		anc, err := s.p.Namespaces.AncestorIDs(ctx, []int64{parent.ID})
		if err != nil {
			return nil, fmt.Errorf("parent ancestors: %w", err)
		}
		if len(anc)+2 > maxDepth {
			fields.Add("parent_id", "has too deep level of nesting")
		}
	}
	if len(fields) > 0 {
		return nil, core.Validation(fields)
	}
	now := s.now()
	g := &domain.Namespace{
		Kind:                 domain.NamespaceGroup,
		Name:                 in.Name,
		Path:                 in.Path,
		Description:          in.Description,
		Visibility:           in.Visibility,
		LFSEnabled:           in.LFSEnabled == nil || *in.LFSEnabled,
		RequestAccessEnabled: in.RequestAccessEnabled != nil && *in.RequestAccessEnabled,
		CreatedAt:            now,
		UpdatedAt:            now,
	}
	if parent != nil {
		id := parent.ID
		g.ParentID = &id
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		taken, err := s.nameTaken(ctx, g.ParentID, g.Name, 0)
		if err != nil {
			return err
		}
		if taken {
			return core.FieldInvalid("name", "has already been taken")
		}
		if err := s.p.Namespaces.Create(ctx, g); err != nil {
			return storeError(err, "create group")
		}
		owner := &domain.Member{
			Source: domain.MemberOfGroup, SourceID: g.ID, UserID: caller.UserID(),
			AccessLevel: domain.Owner, CreatedAt: now, CreatedBy: caller.UserID(),
		}
		if err := s.p.Members.Add(ctx, owner); err != nil {
			return fmt.Errorf("add group owner: %w", err)
		}
		return s.p.Bus.Publish(ctx, domain.GroupCreated{Group: *g, Owner: *owner, Actor: caller.UserID()})
	})
	if err != nil {
		return nil, err
	}
	return s.detail(ctx, caller, g)
}
