package deploykeys

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Update changes the title and can_push of a key enabled for the project
// (can_push holds for every project of the key, as in GitLab 9.x).
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id KeyID, in UpdateInput) (*domain.DeployKey, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if _, err := s.inProject(ctx, t, id, core.NotFound("Deploy Key")); err != nil {
		return nil, err
	}
	var title string
	if in.Title != nil {
		title = strings.TrimSpace(*in.Title)
		errs := core.FieldErrors{}
		checkTitle(errs, title)
		if err := errs.Err(); err != nil {
			return nil, err
		}
	}
	k, err := s.p.DeployKeys.Update(ctx, id.ID, func(k *domain.DeployKey) error {
		if in.Title != nil {
			k.Title = title
		}
		if in.CanPush != nil {
			k.CanPush = *in.CanPush
		}
		return nil
	})
	if err != nil {
		return nil, core.StoreError(err, "Deploy Key", "update deploy key")
	}
	return k, nil
}

// Disable removes the key from the project; the store deletes a key left
// on no project. A key the project does not have is 404 "Deploy Key Not
// Found".
func (s *Service) Disable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id KeyID) error {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return err
	}
	if id.Invalid != nil {
		return id.Invalid
	}
	err = s.p.DeployKeys.Disable(ctx, t.Project.ID, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return core.NotFound("Deploy Key")
	}
	if err != nil {
		return fmt.Errorf("disable deploy key: %w", err)
	}
	s.log.Info("deploy key disabled", zap.Int64("project_id", t.Project.ID), zap.Int64("key_id", id.ID), zap.Int64("user_id", caller.UserID()))
	return nil
}
