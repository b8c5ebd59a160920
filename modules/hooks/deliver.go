package hooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Delivery: each node runs one claim loop that keeps up to
// webhooks.workers sends in flight. It claims as many due deliveries as
// it has free slots, sends each in its own goroutine and records the
// outcome with Finish; the claim (a lease on the row) is what keeps two
// nodes from sending the same delivery. Idle, it waits for a nudge from a
// transaction on this node that queued deliveries, a finished send, or
// webhooks.poll_interval (deliveries queued by other nodes, retries that
// came due).

// maxRetryBackoff caps the doubling wait between attempts.
const maxRetryBackoff = time.Hour

// pruneEvery is how often finished deliveries past their retention are
// deleted.
const pruneEvery = time.Hour

// nodeID names this process in claims: the host, the pid and a random
// suffix, so two processes on one host (or a restarted one reusing a
// pid) never share claims.
func nodeID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// startDelivery runs the delivery and prune loops while the app runs
// (none with webhooks.workers 0: another node delivers). Stopping ends
// the claims at once and waits, within the stop context, for the sends in
// flight; a send still running when that runs out is abandoned and stays
// claimed until its lease expires, when a node takes it over (sent at
// least once, then, and exactly once in normal operation).
func startDelivery(lc fx.Lifecycle, s *Service) {
	d := newDeliverer(s, nodeID())
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error { d.start(); return nil },
		OnStop:  d.stop,
	})
}

// deliverer is one node's delivery loop and its sends.
type deliverer struct {
	s    *Service
	node string
	// loop ends the claim and prune loops; sends ends the sends in flight
	// and their Finish (only when stopping runs out of time).
	loop, sends             context.Context
	cancelLoop, cancelSends context.CancelFunc
	// freed receives one value per ended send.
	freed chan struct{}
	wg    sync.WaitGroup
	done  chan struct{}
}

func newDeliverer(s *Service, node string) *deliverer {
	d := &deliverer{s: s, node: node, freed: make(chan struct{}, max(s.p.Config.Webhooks.Workers, 1)), done: make(chan struct{})}
	d.loop, d.cancelLoop = context.WithCancel(context.Background())
	d.sends, d.cancelSends = context.WithCancel(context.Background())
	return d
}

func (d *deliverer) start() {
	d.s.log.Info("webhook delivery started", zap.String("node", d.node), zap.Int("workers", d.s.p.Config.Webhooks.Workers))
	var loops sync.WaitGroup
	// Every node fans kept events out (tests of the sending alone give no
	// event store); only nodes with workers send and prune.
	if d.s.p.Events != nil {
		loops.Go(d.fanOutLoop)
	}
	if d.s.p.Config.Webhooks.Workers > 0 {
		loops.Go(d.claimLoop)
		loops.Go(d.pruneLoop)
	}
	go func() {
		loops.Wait()
		d.wg.Wait() // the sends in flight
		d.cancelSends()
		close(d.done)
	}()
}

func (d *deliverer) stop(ctx context.Context) error {
	d.cancelLoop()
	select {
	case <-d.done:
		return nil
	case <-ctx.Done():
		d.cancelSends()
		d.s.log.Warn("webhook deliveries still in flight at shutdown: left claimed until their lease expires")
		return ctx.Err()
	}
}

// lease is how long a claim holds: a send ends within Timeout, and the
// margin covers recording it.
func (d *deliverer) lease() time.Duration { return 2*d.s.p.Config.Webhooks.Timeout + 5*time.Second }

func (d *deliverer) claimLoop() {
	cfg := d.s.p.Config.Webhooks
	poll := time.NewTimer(cfg.PollInterval)
	defer poll.Stop()
	inFlight := 0
	for {
		// Reap the sends that ended meanwhile.
		for reaped := true; reaped; {
			select {
			case <-d.freed:
				inFlight--
			default:
				reaped = false
			}
		}
		if d.loop.Err() != nil {
			return
		}
		free := cfg.Workers - inFlight
		if free > 0 {
			claimed, err := d.s.p.Deliveries.Claim(d.loop, d.node, d.s.p.Clock.Now(), d.lease(), free)
			if err != nil && d.loop.Err() == nil {
				d.s.log.Warn("claim webhook deliveries", zap.Error(err))
			}
			for _, hd := range claimed {
				inFlight++
				d.wg.Add(1)
				go func() {
					defer d.wg.Done()
					d.deliver(hd)
					d.freed <- struct{}{}
				}()
			}
			if err == nil && len(claimed) == free {
				// Maybe more are due: claim again as soon as a slot frees.
				free = 0
			}
		}
		poll.Reset(cfg.PollInterval) // since Go 1.23 no stale tick survives a Reset
		if free == 0 {
			// Every slot is busy: only an ended send (or stopping) helps.
			select {
			case <-d.loop.Done():
				return
			case <-d.freed:
				inFlight--
			}
			continue
		}
		select {
		case <-d.loop.Done():
			return
		case <-d.s.wake:
		case <-d.freed:
			inFlight--
		case <-poll.C:
		}
	}
}

// deliver sends one claimed delivery and records the outcome.
func (d *deliverer) deliver(hd domain.HookDelivery) {
	cfg := d.s.p.Config.Webhooks
	ctx, cancel := context.WithTimeout(d.sends, cfg.Timeout)
	resp := d.s.p.Sender.Send(ctx, hd.Target, ports.HookMessage{DeliveryID: hd.ID, Event: hd.Event, Payload: []byte(hd.Payload)})
	cancel()
	log := d.s.log.With(zap.Int64("hook_id", hd.HookID), zap.Int64("delivery_id", hd.ID),
		zap.String("event", hd.Event), zap.Int("attempt", hd.Attempts))
	if d.sends.Err() != nil {
		log.Info("webhook delivery abandoned at shutdown; it is retried when its claim expires")
		return
	}
	a := d.s.attempt(resp, hd.Attempts)
	fields := []zap.Field{zap.Int("status", a.Status), zap.Duration("duration", a.Duration)}
	switch {
	case a.Delivered():
		log.Info("webhook delivered", fields...)
	case a.Retry && hd.Attempts < hd.MaxAttempts:
		log.Info("webhook delivery failed; will retry", append(fields, zap.String("error", a.Err), zap.Time("next_attempt_at", a.NextAt))...)
	default:
		log.Warn("webhook delivery failed", append(fields, zap.String("error", a.Err))...)
	}
	err := d.s.p.Deliveries.Finish(d.sends, hd.ID, d.node, a)
	switch {
	case err == nil:
	case errors.Is(err, core.ErrStale), errors.Is(err, core.ErrNotFound):
		// Another node took the claim over after our lease expired, or
		// the hook and its deliveries were deleted meanwhile.
		log.Info("webhook delivery outcome not recorded", zap.Error(err))
	default:
		log.Error("record webhook delivery", zap.Error(err))
	}
}

// attempt turns a response into the attempt Finish records. Connection
// errors, timeouts and 5xx answers are retried; a refused address, a
// redirect and a 4xx are final (trying again cannot change them).
func (s *Service) attempt(resp ports.HookResponse, attempts int) domain.HookAttempt {
	cfg := s.p.Config.Webhooks
	now := s.now()
	a := domain.HookAttempt{Status: resp.Status, Duration: resp.Duration, At: now,
		Response: storable(resp.Body, domain.HookResponseLimit), DisableAfter: cfg.DisableAfter}
	switch {
	case resp.Err != nil:
		a.Status = 0
		a.Err = storable(resp.Err.Error(), 1024)
		a.Retry = !resp.Refused
	case resp.Status >= 200 && resp.Status < 300:
	case resp.Status >= 500:
		a.Err = fmt.Sprintf("receiver answered HTTP %d", resp.Status)
		a.Retry = true
	default:
		a.Err = fmt.Sprintf("receiver answered HTTP %d", resp.Status)
	}
	if a.Retry {
		a.NextAt = now.Add(retryBackoff(cfg.RetryBackoff, attempts))
	}
	return a
}

// retryBackoff is the wait after attempt number attempts (1: the first)
// failed: base, doubling with each further attempt, at most an hour.
func retryBackoff(base time.Duration, attempts int) time.Duration {
	d := base
	for i := 1; i < attempts && d < maxRetryBackoff; i++ {
		d *= 2
	}
	return min(d, maxRetryBackoff)
}

// storable makes s text every database keeps (valid UTF-8 without NUL: a
// receiver's body may be binary) of at most limit bytes, cut at a rune.
func storable(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func (d *deliverer) pruneLoop() {
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		d.prune()
		select {
		case <-d.loop.Done():
			return
		case <-t.C:
		}
	}
}

// prune deletes the finished deliveries older than webhooks.retention.
func (d *deliverer) prune() {
	before := d.s.p.Clock.Now().Add(-d.s.p.Config.Webhooks.Retention)
	n, err := d.s.p.Deliveries.Prune(d.loop, before)
	switch {
	case err != nil && d.loop.Err() == nil:
		d.s.log.Warn("prune webhook deliveries", zap.Error(err))
	case n > 0:
		d.s.log.Info("pruned webhook deliveries", zap.Int("deleted", n))
	}
}

// sendNow sends payload to t at once and records the outcome as a
// finished delivery of hook hookID (delivered or failed, one attempt), for
// hook tests that answer with the result. It is not retried.
func (s *Service) sendNow(ctx context.Context, hookID int64, t domain.HookTarget, event string, payload []byte) (domain.HookDelivery, error) {
	sendCtx, cancel := context.WithTimeout(ctx, s.p.Config.Webhooks.Timeout)
	resp := s.p.Sender.Send(sendCtx, t, ports.HookMessage{Event: event, Payload: payload})
	cancel()
	a := s.attempt(resp, 1)
	d := domain.HookDelivery{HookID: hookID, Event: event, Payload: string(payload),
		State: domain.HookDeliveryFailed, Attempts: 1, MaxAttempts: 1, NextAttemptAt: a.At,
		LastStatus: a.Status, LastError: a.Err, LastDuration: a.Duration, LastResponse: a.Response,
		CreatedAt: a.At, UpdatedAt: a.At}
	if a.Delivered() {
		d.State = domain.HookDeliveryDelivered
		d.DeliveredAt = &a.At
	}
	s.log.Info("webhook sent", zap.Int64("hook_id", hookID), zap.String("event", event),
		zap.Int("status", a.Status), zap.Duration("duration", a.Duration), zap.String("error", a.Err))
	if err := s.p.Deliveries.Record(ctx, &d); err != nil {
		return d, fmt.Errorf("record webhook delivery: %w", err)
	}
	return d, nil
}
