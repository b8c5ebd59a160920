package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Fan-out. A change that hooks want pays for one small row in its own
// transaction (the domain event as JSON, ports.HookEventStore), whatever
// the number of hooks: building GitLab's payload (reads of the project,
// users, labels ...) and writing one delivery per hook would otherwise
// lengthen every such transaction, and under SQLite's single writer every
// other request waits behind it. Each node's fan-out loop claims waiting
// events and, for each, in one transaction, routes it again, builds the
// payload, queues the deliveries and deletes the event; a node that lost
// its claim (too slow) rolls back, so an event is fanned out once. The
// payload describes the event as the publisher saw it, with the project,
// users and labels as they are when it is fanned out, a moment later.

// fanOutBatch is how many events one claim takes.
const fanOutBatch = 32

// maxFanOutAttempts is when an event that keeps failing to fan out is
// dropped (and logged): a bug, not a receiver, is at fault then.
const maxFanOutAttempts = 5

// fanOutFunc fans out one kind of event from its JSON.
type fanOutFunc func(ctx context.Context, data []byte) error

// deferTx subscribes to E in the publisher's transaction: when route
// names a hook, the event is kept for the fan-out loop, which hands it to
// handle (handle routes again, builds the payload and queues the
// deliveries).
func deferTx[E domain.BusEvent](s *Service, route func(context.Context, E) ([]int64, error), handle func(context.Context, E) error) {
	var zero E
	kind := zero.EventName()
	s.fanOuts[kind] = func(ctx context.Context, data []byte) error {
		var ev E
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("decode %s: %w", kind, err)
		}
		return handle(ctx, ev)
	}
	s.p.Bus.SubscribeTx(kind, func(ctx context.Context, ev domain.BusEvent) error {
		ids, err := route(ctx, ev.(E))
		if err != nil || len(ids) == 0 {
			return err
		}
		data, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode %s for its hooks: %w", kind, err)
		}
		if err := s.p.Events.Add(ctx, &domain.HookEvent{Kind: kind, Data: string(data)}); err != nil {
			return fmt.Errorf("keep %s for its hooks: %w", kind, err)
		}
		s.p.Tx.AfterCommit(ctx, func(context.Context) { s.wakeFanOut() })
		return nil
	})
}

// wakeFanOut wakes this node's fan-out loop without blocking.
func (s *Service) wakeFanOut() {
	select {
	case s.fanWake <- struct{}{}:
	default:
	}
}

// fanOutLoop fans out waiting events until the loop context ends: at once
// when a change on this node kept one, otherwise every poll_interval
// (events kept by other nodes, or left by a node that crashed).
func (d *deliverer) fanOutLoop() {
	poll := time.NewTimer(d.s.p.Config.Webhooks.PollInterval)
	defer poll.Stop()
	for d.loop.Err() == nil {
		if n := d.s.fanOutOnce(d.loop, d.node, d.lease()); n == fanOutBatch {
			continue // maybe more are waiting
		}
		poll.Reset(d.s.p.Config.Webhooks.PollInterval)
		select {
		case <-d.loop.Done():
		case <-d.s.fanWake:
		case <-poll.C:
		}
	}
}

// fanOutOnce claims a batch of events for node and fans each out; it
// returns how many it claimed.
func (s *Service) fanOutOnce(ctx context.Context, node string, lease time.Duration) int {
	events, err := s.p.Events.Claim(ctx, node, s.p.Clock.Now(), lease, fanOutBatch)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("claim hook events", zap.Error(err))
		}
		return 0
	}
	for _, e := range events {
		s.fanOut(ctx, node, e)
	}
	return len(events)
}

// fanOut queues the deliveries of one claimed event and deletes it, in
// one transaction. A failure leaves the event claimed: it is tried again
// once the claim expires, and dropped after maxFanOutAttempts.
func (s *Service) fanOut(ctx context.Context, node string, e domain.HookEvent) {
	log := s.log.With(zap.Int64("hook_event_id", e.ID), zap.String("kind", e.Kind), zap.Int("attempt", e.Attempts))
	handle, ok := s.fanOuts[e.Kind]
	if !ok {
		log.Error("hook event of an unknown kind dropped")
		s.dropEvent(ctx, node, e, log)
		return
	}
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := handle(ctx, []byte(e.Data)); err != nil {
			return err
		}
		return s.p.Events.Done(ctx, e.ID, node)
	})
	switch {
	case err == nil:
	case errors.Is(err, core.ErrStale) || errors.Is(err, core.ErrNotFound):
		log.Info("hook event fanned out by another node meanwhile", zap.Error(err))
	case ctx.Err() != nil:
		// Stopping: the claim expires and another start fans it out.
	case e.Attempts >= maxFanOutAttempts:
		log.Error("hook event dropped after repeated failures", zap.Error(err))
		s.dropEvent(ctx, node, e, log)
	default:
		log.Warn("fan out hook event; it is retried when its claim expires", zap.Error(err))
	}
}

func (s *Service) dropEvent(ctx context.Context, node string, e domain.HookEvent, log *zap.Logger) {
	if err := s.p.Events.Done(ctx, e.ID, node); err != nil {
		log.Warn("drop hook event", zap.Error(err))
	}
}
