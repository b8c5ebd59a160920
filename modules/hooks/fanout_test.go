package hooks

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// foBus keeps the in-transaction subscribers.
type foBus struct {
	ports.EventBus
	subs map[string]func(context.Context, domain.BusEvent) error
}

func (b *foBus) SubscribeTx(name string, fn func(context.Context, domain.BusEvent) error) {
	b.subs[name] = fn
}

// foEvents is an event store holding one claim at a time.
type foEvents struct {
	kept []domain.HookEvent
	done []int64
	// stale makes Done answer core.ErrStale (another node took over).
	stale bool
}

func (e *foEvents) Add(_ context.Context, ev *domain.HookEvent) error {
	ev.ID = int64(len(e.kept) + 1)
	e.kept = append(e.kept, *ev)
	return nil
}

func (e *foEvents) Claim(context.Context, string, time.Time, time.Duration, int) ([]domain.HookEvent, error) {
	return nil, nil
}

func (e *foEvents) Done(_ context.Context, id int64, _ string) error {
	if e.stale {
		return core.ErrStale
	}
	e.done = append(e.done, id)
	return nil
}

// foTx runs fn and reports its error, as a transaction that rolls back.
type foTx struct {
	*plTx
	rolledBack int
}

func (t *foTx) WithinTx(ctx context.Context, fn func(context.Context) error) error {
	err := fn(ctx)
	if err != nil {
		t.rolledBack++
	}
	return err
}

func newFanOutService(hooks map[domain.HookEventKind][]int64) (*Service, *foBus, *foEvents, *foTx, *plDeliveries) {
	s, _, deliveries, tx := newTestService(hooks, true, plReader{})
	bus, events, ftx := &foBus{subs: map[string]func(context.Context, domain.BusEvent) error{}}, &foEvents{}, &foTx{plTx: tx}
	s.p.Bus, s.p.Events, s.p.Tx = bus, events, ftx
	return s, bus, events, ftx, deliveries
}

// TestDeferredFanOut: in the publisher's transaction an issue event with
// hooks is kept as one row and queues nothing; one without hooks keeps
// nothing; fanning the row out queues one delivery per hook, with the
// payload, and deletes the row in the same transaction.
func TestDeferredFanOut(t *testing.T) {
	t.Parallel()
	s, bus, events, tx, deliveries := newFanOutService(map[domain.HookEventKind][]int64{domain.HookIssues: {4, 5}})
	s.subscribe()
	publish := bus.subs[domain.IssueEvent{}.EventName()]
	ctx := context.Background()
	is := domain.Issue{ID: 9, IID: 2, ProjectID: 15, Title: "kept", AuthorID: 4}
	if err := publish(ctx, domain.IssueEvent{Issue: is, Action: domain.ActionCreated, Actor: 4}); err != nil {
		t.Fatal(err)
	}
	if len(events.kept) != 1 || events.kept[0].Kind != "issue.event" || len(deliveries.queued) != 0 {
		t.Fatalf("kept %+v, queued %d; want one event and no delivery yet", events.kept, len(deliveries.queued))
	}
	if err := publish(ctx, domain.IssueEvent{Issue: is, Action: "moved"}); err != nil || len(events.kept) != 1 {
		t.Fatalf("an action hooks do not report kept %d events (%v)", len(events.kept), err)
	}
	conf := is
	conf.Confidential = true // no hook takes confidential issues
	if err := publish(ctx, domain.IssueEvent{Issue: conf, Action: domain.ActionCreated}); err != nil || len(events.kept) != 1 {
		t.Fatalf("an event no hook wants kept %d events (%v)", len(events.kept), err)
	}

	e := events.kept[0]
	e.Attempts = 1
	s.fanOut(ctx, "node", e)
	if len(deliveries.queued) != 2 || deliveries.queued[0].Event != domain.HookEventIssue || deliveries.queued[0].Payload == "" ||
		len(events.done) != 1 || events.done[0] != e.ID || tx.rolledBack != 0 {
		t.Fatalf("fan-out queued %+v, done %v, rollbacks %d", deliveries.queued, events.done, tx.rolledBack)
	}
}

// TestFanOutFailures: a kind no handler knows is dropped; a failing
// handler rolls back and leaves the event for a retry, until its last
// attempt drops it; a node that lost its claim rolls back quietly.
func TestFanOutFailures(t *testing.T) {
	t.Parallel()
	s, _, events, tx, _ := newFanOutService(nil)
	ctx := context.Background()
	s.fanOut(ctx, "node", domain.HookEvent{ID: 1, Kind: "nobody.knows", Attempts: 1})
	if len(events.done) != 1 || events.done[0] != 1 {
		t.Fatalf("unknown kind: done %v, want dropped", events.done)
	}
	failing := errors.New("store down")
	s.fanOuts["flaky"] = func(context.Context, []byte) error { return failing }
	s.fanOut(ctx, "node", domain.HookEvent{ID: 2, Kind: "flaky", Attempts: 1})
	if len(events.done) != 1 || tx.rolledBack != 1 {
		t.Fatalf("failing handler: done %v, rollbacks %d; want it kept", events.done, tx.rolledBack)
	}
	s.fanOut(ctx, "node", domain.HookEvent{ID: 2, Kind: "flaky", Attempts: maxFanOutAttempts})
	if len(events.done) != 2 || events.done[1] != 2 {
		t.Fatalf("last attempt: done %v, want dropped", events.done)
	}
	s.fanOuts["fine"] = func(context.Context, []byte) error { return nil }
	events.stale = true
	s.fanOut(ctx, "node", domain.HookEvent{ID: 3, Kind: "fine", Attempts: 1})
	if tx.rolledBack != 3 {
		t.Fatalf("lost claim: %d rollbacks, want the fan-out rolled back", tx.rolledBack)
	}
}
