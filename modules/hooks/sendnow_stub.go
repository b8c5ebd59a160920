package hooks

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// sendNow posts payload to hook hookID at once and records the attempt
// with its deliveries. This stand-in keeps wt-payloads building until
// wt-deliver's sendNow lands; delete this file when it does.
func (s *Service) sendNow(ctx context.Context, hookID int64, t domain.HookTarget, event string, payload []byte) (domain.HookDelivery, error) {
	resp := s.p.Sender.Send(ctx, t, event, payload)
	now := s.now()
	d := domain.HookDelivery{HookID: hookID, Event: event, Payload: string(payload), Attempts: 1, MaxAttempts: 1,
		NextAttemptAt: now, LastStatus: resp.Status, LastDuration: resp.Duration, LastResponse: resp.Body,
		State: domain.HookDeliveryDelivered, DeliveredAt: &now}
	if resp.Err != nil {
		d.LastError = resp.Err.Error()
	} else if resp.Status < 200 || resp.Status > 299 {
		d.LastError = fmt.Sprintf("HTTP %d", resp.Status)
	}
	if d.LastError != "" {
		d.State, d.DeliveredAt = domain.HookDeliveryFailed, nil
	}
	if err := s.p.Deliveries.Record(ctx, &d); err != nil {
		return d, fmt.Errorf("record test delivery: %w", err)
	}
	return d, nil
}
