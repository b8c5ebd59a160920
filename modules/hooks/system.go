package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// GitLab 9.x's system hooks API (lib/api/system_hooks.rb): administrators
// only, authenticate! first (401), then authenticated_as_admin! (403).

// SystemListed is one page of the system hooks and the total.
type SystemListed struct {
	Hooks []domain.SystemHook
	Total int
}

// requireSystemAdmin is the API's before filter.
func requireSystemAdmin(caller *domain.Caller) error {
	if caller.UserID() == 0 {
		return core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return core.Forbidden("")
	}
	return nil
}

// errSystemHookGone is DELETE's answer for a missing hook (9.x's
// not_found!('System hook')); GET answers errHookNotFound, the
// RecordNotFound of SystemHook.find.
var errSystemHookGone = core.NotFound("System hook")

// ListSystem reads a page of the system hooks, oldest first.
func (s *Service) ListSystem(ctx context.Context, caller *domain.Caller, pg domain.Page, invalid error) (*SystemListed, error) {
	if err := requireSystemAdmin(caller); err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	list, total, err := s.p.SystemHooks.List(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("list system hooks: %w", err)
	}
	return &SystemListed{Hooks: list, Total: total}, nil
}

// CreateSystem adds a system hook with GitLab's defaults for what in
// leaves out (push events and SSL verification on). A URL the guard
// refuses is the 422 project hooks answer.
func (s *Service) CreateSystem(ctx context.Context, caller *domain.Caller, in SystemInput) (*domain.SystemHook, error) {
	if err := requireSystemAdmin(caller); err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if err := s.checkURL(ctx, in.URL); err != nil {
		return nil, err
	}
	h := domain.NewSystemHook("")
	in.apply(&h)
	h.CreatedAt = s.now()
	h.UpdatedAt = h.CreatedAt
	if err := s.p.SystemHooks.Create(ctx, &h); err != nil {
		return nil, fmt.Errorf("create system hook: %w", err)
	}
	return &h, nil
}

// TestSystem sends GitLab's sample event to system hook id at once and
// returns the sample, whatever the hook answered (9.x's GET /hooks/:id;
// the attempt is recorded with the hook's deliveries).
func (s *Service) TestSystem(ctx context.Context, caller *domain.Caller, id HookID) (apijson.SystemHookTest, error) {
	data := apijson.SystemHookTestPayload()
	if err := requireSystemAdmin(caller); err != nil {
		return data, err
	}
	if id.Invalid != nil {
		return data, id.Invalid
	}
	h, err := s.p.SystemHooks.Get(ctx, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return data, errHookNotFound
	}
	if err != nil {
		return data, fmt.Errorf("read system hook: %w", err)
	}
	body, err := json.Marshal(data)
	if err != nil {
		return data, fmt.Errorf("encode system hook test: %w", err)
	}
	// GitLab answers with the sample even when the hook fails; a failure
	// to send or record is logged, not the caller's problem.
	if _, err := s.sendNow(ctx, h.ID, systemTarget(h), domain.HookEventSystem, body); err != nil {
		if ctx.Err() != nil {
			return data, ctx.Err()
		}
		s.log.Warn("system hook test", zap.Int64("hook_id", h.ID), zap.Error(err))
	}
	return data, nil
}

// DeleteSystem removes system hook id (and its deliveries) and returns it,
// as 9.x's DELETE answers.
func (s *Service) DeleteSystem(ctx context.Context, caller *domain.Caller, id HookID) (*domain.SystemHook, error) {
	if err := requireSystemAdmin(caller); err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	h, err := s.p.SystemHooks.Get(ctx, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errSystemHookGone
	}
	if err != nil {
		return nil, fmt.Errorf("read system hook: %w", err)
	}
	err = s.p.SystemHooks.Delete(ctx, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errSystemHookGone // deleted meanwhile
	}
	if err != nil {
		return nil, fmt.Errorf("delete system hook: %w", err)
	}
	return h, nil
}

// systemTarget is where system hook h sends.
func systemTarget(h *domain.SystemHook) domain.HookTarget {
	return domain.HookTarget{URL: h.URL, Token: h.Token, VerifyTLS: h.EnableSSLVerification, System: true}
}
