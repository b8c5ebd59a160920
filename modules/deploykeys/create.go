package deploykeys

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/sshkey"
)

// Create adds a deploy key to the project as GitLab 9.x does: a key the
// project already has is answered as it is; a key the caller may see
// (canSee) is enabled here; otherwise a new key is created, validated as
// a user's key is. A key is the same key when its fingerprint is, so a
// different comment or line wrapping does not make a new one.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in CreateInput) (*domain.DeployKey, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if parsed, err := sshkey.Parse(in.Key); err == nil {
		k, err := s.reuse(ctx, caller, t.Project.ID, parsed.Fingerprint())
		if k != nil || err != nil {
			return k, err
		}
	}
	parsed, err := validateNew(in.Title, in.Key)
	if err != nil {
		return nil, err
	}
	k := &domain.DeployKey{
		UserID:      caller.UserID(),
		Title:       strings.TrimSpace(in.Title),
		Key:         parsed.String(),
		Fingerprint: parsed.Fingerprint(),
		CanPush:     in.CanPush,
		CreatedAt:   s.now(),
	}
	if err := s.p.DeployKeys.Create(ctx, k, t.Project.ID); err != nil {
		if errors.Is(err, core.ErrConflict) {
			return nil, errFingerprintTaken()
		}
		return nil, fmt.Errorf("create deploy key: %w", err)
	}
	s.log.Info("deploy key added", zap.Int64("project_id", t.Project.ID), zap.Int64("key_id", k.ID),
		zap.Int64("user_id", caller.UserID()), zap.String("type", parsed.Type))
	return k, nil
}

// reuse returns the deploy key with the fingerprint when the project has
// it, or enables it here when the caller may see it; nil when there is no
// such key or the caller may not see it.
func (s *Service) reuse(ctx context.Context, caller *domain.Caller, projectID int64, fingerprint string) (*domain.DeployKey, error) {
	k, err := s.p.DeployKeys.ByFingerprint(ctx, fingerprint)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find deploy key: %w", err)
	}
	if _, err := s.p.DeployKeys.InProject(ctx, projectID, k.ID); err == nil {
		return k, nil
	} else if !errors.Is(err, core.ErrNotFound) {
		return nil, fmt.Errorf("find deploy key: %w", err)
	}
	ok, err := s.canSee(ctx, caller, k)
	if err != nil || !ok {
		return nil, err
	}
	return k, s.enable(ctx, caller, projectID, k)
}

// Enable enables an existing key for the project; a key the caller may
// not see is 404 "Deploy Key Not Found" (Projects::EnableDeployKeyService
// finds it among the caller's accessible keys).
func (s *Service) Enable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id KeyID) (*domain.DeployKey, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	k, err := s.p.DeployKeys.Get(ctx, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("Deploy Key")
	}
	if err != nil {
		return nil, fmt.Errorf("read deploy key: %w", err)
	}
	ok, err := s.canSee(ctx, caller, k)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, core.NotFound("Deploy Key")
	}
	if err := s.enable(ctx, caller, t.Project.ID, k); err != nil {
		return nil, err
	}
	return k, nil
}

func (s *Service) enable(ctx context.Context, caller *domain.Caller, projectID int64, k *domain.DeployKey) error {
	if err := s.p.DeployKeys.Enable(ctx, projectID, k.ID); err != nil {
		// Disabled on its last project meanwhile, the key is gone.
		return core.StoreError(err, "Deploy Key", "enable deploy key")
	}
	s.log.Info("deploy key enabled", zap.Int64("project_id", projectID), zap.Int64("key_id", k.ID), zap.Int64("user_id", caller.UserID()))
	return nil
}
