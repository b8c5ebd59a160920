package hooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// DeliveryID is {hook_log_id}: a number, or Invalid (Grape's 400
// "hook_log_id is invalid", reported after the access checks).
type DeliveryID = HookID

// Deliveries is one page of a hook's recent deliveries, newest first,
// with the hook they belong to (the API shows its URL and whether it
// sends a token).
type Deliveries struct {
	Hook       *domain.ProjectHook
	Deliveries []domain.HookDelivery
	Total      int
}

// Delivery is one delivery of a hook.
type Delivery struct {
	Hook     *domain.ProjectHook
	Delivery domain.HookDelivery
}

// errDeliveryNotFound is GitLab's answer for a hook log id of another
// hook or of none (hook.web_hook_logs.find).
var errDeliveryNotFound = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not found"}

// ListDeliveries reads a page of hook id's recent deliveries (GitLab's
// GET /projects/:id/hooks/:hook_id/events): what is queued, and what was
// delivered or given up within webhooks.retention.
func (s *Service) ListDeliveries(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id HookID, pg domain.Page, invalid error) (*Deliveries, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	h, err := s.load(ctx, t, id)
	if err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	list, total, err := s.p.Deliveries.List(ctx, h.ID, pg)
	if err != nil {
		return nil, fmt.Errorf("list hook deliveries: %w", err)
	}
	return &Deliveries{Hook: h, Deliveries: list, Total: total}, nil
}

// Resend queues a copy of delivery did of hook id (the same event and
// payload, webhooks.max_attempts attempts) and wakes the workers. GitLab
// sends at once and answers with the response status; Hearth delivers
// through the outbox like any event and answers with the new delivery,
// pending, whose outcome the deliveries list shows.
func (s *Service) Resend(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id HookID, did DeliveryID) (*Delivery, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	h, err := s.load(ctx, t, id)
	if err != nil {
		return nil, err
	}
	if did.Invalid != nil {
		return nil, did.Invalid
	}
	var copied domain.HookDelivery
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		old, err := s.p.Deliveries.Get(ctx, h.ID, did.ID)
		if errors.Is(err, core.ErrNotFound) {
			return errDeliveryNotFound
		}
		if err != nil {
			return fmt.Errorf("read hook delivery: %w", err)
		}
		now := s.now()
		copied = domain.HookDelivery{HookID: h.ID, Event: old.Event, Payload: old.Payload,
			State: domain.HookDeliveryPending, MaxAttempts: s.p.Config.Webhooks.MaxAttempts, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now}
		if err := s.p.Deliveries.Enqueue(ctx, &copied); err != nil {
			if errors.Is(err, core.ErrNotFound) {
				return errHookNotFound // the hook was deleted meanwhile
			}
			return fmt.Errorf("queue hook delivery: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.nudge()
	return &Delivery{Hook: h, Delivery: copied}, nil
}
