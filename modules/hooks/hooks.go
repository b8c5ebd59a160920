package hooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Listed is one page of a project's hooks and the total.
type Listed struct {
	Hooks []domain.ProjectHook
	Total int
}

// List reads a page of the project's hooks, oldest first.
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, pg domain.Page, invalid error) (*Listed, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	list, total, err := s.p.Hooks.List(ctx, t.Project.ID, pg)
	if err != nil {
		return nil, fmt.Errorf("list hooks: %w", err)
	}
	return &Listed{Hooks: list, Total: total}, nil
}

// Get reads one hook.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id HookID) (*domain.ProjectHook, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	return s.load(ctx, t, id)
}

// Create adds a hook with GitLab's defaults for what in leaves out (push
// events and SSL verification on, the other events off).
func (s *Service) Create(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in Input) (*domain.ProjectHook, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if err := s.checkURL(ctx, in.URL); err != nil {
		return nil, err
	}
	h := domain.NewProjectHook(t.Project.ID, "")
	in.apply(&h)
	h.CreatedAt = s.now()
	h.UpdatedAt = h.CreatedAt
	if err := s.p.Hooks.Create(ctx, &h); err != nil {
		return nil, fmt.Errorf("create hook: %w", err)
	}
	return &h, nil
}

// Update changes what in gives of hook id; the rest stays. GitLab 9.x
// requires the url on update too.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id HookID, in Input) (*domain.ProjectHook, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if _, err := s.load(ctx, t, id); err != nil {
		return nil, err
	}
	// The guard may resolve a name: it runs before the row is locked.
	if err := s.checkURL(ctx, in.URL); err != nil {
		return nil, err
	}
	now := s.now()
	h, err := s.p.Hooks.Update(ctx, t.Project.ID, id.ID, func(h *domain.ProjectHook) error {
		in.apply(h)
		h.UpdatedAt = now
		// Editing a hook is how its managers say it works again, as
		// GitLab re-enables an auto-disabled hook on update.
		h.FailureCount, h.DisabledUntil = 0, nil
		return nil
	})
	if errors.Is(err, core.ErrNotFound) {
		return nil, errHookNotFound // deleted meanwhile
	}
	if err != nil {
		return nil, fmt.Errorf("update hook: %w", err)
	}
	return h, nil
}

// Delete removes hook id.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id HookID) error {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return err
	}
	if id.Invalid != nil {
		return id.Invalid
	}
	err = s.p.Hooks.Delete(ctx, t.Project.ID, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return errHookNotFound
	}
	if err != nil {
		return fmt.Errorf("delete hook: %w", err)
	}
	return nil
}
