package inproc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/hearth-forge/hearth/core/domain"
)

// fakeTx is a TxManager that records what a real one would do: the
// transaction is a marker in the context, AfterCommit queues until the
// outermost WithinTx returns nil.
type fakeTx struct {
	mu      sync.Mutex
	commits int
}

type txMarker struct{ queued *[]func(context.Context) }

type txKey struct{}

func inTx(ctx context.Context) bool { _, ok := ctx.Value(txKey{}).(*txMarker); return ok }

func (f *fakeTx) WithinTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if inTx(ctx) {
		return fn(ctx)
	}
	m := &txMarker{queued: new([]func(context.Context))}
	if err := fn(context.WithValue(ctx, txKey{}, m)); err != nil {
		return err
	}
	f.mu.Lock()
	f.commits++
	f.mu.Unlock()
	for _, q := range *m.queued {
		q(ctx)
	}
	return nil
}

func (f *fakeTx) AfterCommit(ctx context.Context, fn func(ctx context.Context)) {
	if m, ok := ctx.Value(txKey{}).(*txMarker); ok {
		*m.queued = append(*m.queued, fn)
		return
	}
	fn(ctx)
}

type testEvent struct{ name string }

func (e testEvent) EventName() string { return e.name }

func TestSubscribeRunsAfterCommit(t *testing.T) {
	tx := &fakeTx{}
	bus := New(tx, nil)
	var got []string
	bus.Subscribe("a", func(ctx context.Context, ev domain.BusEvent) error {
		if inTx(ctx) {
			t.Error("after-commit handler ran inside the transaction")
		}
		got = append(got, "first:"+ev.EventName())
		return nil
	})
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { got = append(got, "second"); return nil })
	bus.Subscribe("b", func(context.Context, domain.BusEvent) error { got = append(got, "other event"); return nil })

	err := tx.WithinTx(t.Context(), func(ctx context.Context) error {
		if err := bus.Publish(ctx, testEvent{"a"}); err != nil {
			return err
		}
		if len(got) != 0 {
			t.Errorf("handlers ran before commit: %v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	if want := []string{"first:a", "second"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ran %v, want %v", got, want)
	}
}

func TestSubscribeNotRunOnRollback(t *testing.T) {
	tx := &fakeTx{}
	bus := New(tx, nil)
	ran := false
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { ran = true; return nil })
	rollback := errors.New("rollback")
	err := tx.WithinTx(t.Context(), func(ctx context.Context) error {
		if err := bus.Publish(ctx, testEvent{"a"}); err != nil {
			return err
		}
		return rollback
	})
	if err != rollback {
		t.Fatalf("WithinTx = %v", err)
	}
	if ran {
		t.Error("after-commit handler ran after a rollback")
	}
}

func TestPublishWithoutTx(t *testing.T) {
	tx := &fakeTx{}
	bus := New(tx, nil)
	var got []string
	bus.SubscribeTx("a", func(ctx context.Context, _ domain.BusEvent) error {
		if !inTx(ctx) {
			t.Error("transactional handler ran outside a transaction")
		}
		got = append(got, "tx")
		return nil
	})
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { got = append(got, "after"); return nil })
	if err := bus.Publish(t.Context(), testEvent{"a"}); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if want := []string{"tx", "after"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	if tx.commits != 1 {
		t.Errorf("%d commits, want the transactional handlers in one transaction", tx.commits)
	}
}

func TestSubscribeTxRunsInPublishersTx(t *testing.T) {
	tx := &fakeTx{}
	bus := New(tx, nil)
	var seen context.Context
	bus.SubscribeTx("a", func(ctx context.Context, _ domain.BusEvent) error { seen = ctx; return nil })
	err := tx.WithinTx(t.Context(), func(ctx context.Context) error {
		if err := bus.Publish(ctx, testEvent{"a"}); err != nil {
			return err
		}
		if seen == nil {
			t.Error("transactional handler had not run when Publish returned")
		} else if seen.Value(txKey{}) != ctx.Value(txKey{}) {
			t.Error("transactional handler ran in another transaction")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	if tx.commits != 1 {
		t.Errorf("%d commits, want 1", tx.commits)
	}
}

func TestSubscribeTxErrorFailsPublish(t *testing.T) {
	tx := &fakeTx{}
	bus := New(tx, nil)
	refused := errors.New("refused")
	var calls []string
	bus.SubscribeTx("a", func(context.Context, domain.BusEvent) error { calls = append(calls, "1"); return refused })
	bus.SubscribeTx("a", func(context.Context, domain.BusEvent) error { calls = append(calls, "2"); return nil })
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { calls = append(calls, "after"); return nil })
	err := tx.WithinTx(t.Context(), func(ctx context.Context) error { return bus.Publish(ctx, testEvent{"a"}) })
	if !errors.Is(err, refused) {
		t.Fatalf("Publish = %v, want the handler's error", err)
	}
	if fmt.Sprint(calls) != "[1]" {
		t.Errorf("ran %v after the failure, want only the failing handler", calls)
	}
	calls = nil
	if err := bus.Publish(t.Context(), testEvent{"a"}); !errors.Is(err, refused) {
		t.Fatalf("Publish without a transaction = %v", err)
	}
	if fmt.Sprint(calls) != "[1]" {
		t.Errorf("ran %v, want no after-commit handler once a transactional one failed", calls)
	}
}

func TestAfterCommitFailuresAreLogged(t *testing.T) {
	core, logs := observer.New(zap.ErrorLevel)
	bus := New(&fakeTx{}, zap.New(core))
	var ran []string
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { ran = append(ran, "err"); return errors.New("boom") })
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { ran = append(ran, "panic"); panic("kaput") })
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { ran = append(ran, "ok"); return nil })
	if err := bus.Publish(t.Context(), testEvent{"a"}); err != nil {
		t.Fatalf("Publish = %v, want after-commit failures kept from the publisher", err)
	}
	if fmt.Sprint(ran) != "[err panic ok]" {
		t.Errorf("ran %v: a failing handler stopped the others", ran)
	}
	entries := logs.All()
	if len(entries) != 2 {
		t.Fatalf("logged %d entries, want 2: %v", len(entries), entries)
	}
	if entries[0].Message != "event handler failed" || entries[0].ContextMap()["error"] != "boom" {
		t.Errorf("error entry = %+v", entries[0])
	}
	if entries[1].Message != "event handler panicked" || entries[1].ContextMap()["panic"] != "kaput" {
		t.Errorf("panic entry = %+v", entries[1])
	}
	if entries[1].ContextMap()["event"] != "a" {
		t.Errorf("panic entry does not name the event: %+v", entries[1].ContextMap())
	}
}

func TestPublishWithoutSubscribers(t *testing.T) {
	tx := &fakeTx{}
	bus := New(tx, nil)
	if err := bus.Publish(t.Context(), domain.UserCreated{}); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if tx.commits != 0 {
		t.Errorf("opened %d transactions with nothing to run", tx.commits)
	}
}

func TestConcurrentUse(t *testing.T) {
	bus := New(&fakeTx{}, nil)
	var mu sync.Mutex
	count := 0
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			bus.Subscribe("a", func(context.Context, domain.BusEvent) error {
				mu.Lock()
				count++
				mu.Unlock()
				return nil
			})
			bus.SubscribeTx(fmt.Sprint("b", i), func(context.Context, domain.BusEvent) error { return nil })
			if err := bus.Publish(context.Background(), testEvent{"a"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	before := count
	mu.Unlock()
	if err := bus.Publish(context.Background(), testEvent{"a"}); err != nil {
		t.Fatal(err)
	}
	if count-before != 20 {
		t.Errorf("a publish after 20 subscriptions reached %d handlers", count-before)
	}
}

// TestFailureObserver: each after-commit failure and panic is reported by
// event name; successes and transactional failures (returned to the
// publisher) are not.
func TestFailureObserver(t *testing.T) {
	var failed []string
	bus := New(&fakeTx{}, nil, WithFailureObserver(func(event string) { failed = append(failed, event) }))
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { return errors.New("boom") })
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { panic("kaput") })
	bus.Subscribe("a", func(context.Context, domain.BusEvent) error { return nil })
	bus.Subscribe("b", func(context.Context, domain.BusEvent) error { return nil })
	bus.SubscribeTx("c", func(context.Context, domain.BusEvent) error { return errors.New("refused") })
	if err := bus.Publish(t.Context(), testEvent{"a"}); err != nil {
		t.Fatal(err)
	}
	if err := bus.Publish(t.Context(), testEvent{"b"}); err != nil {
		t.Fatal(err)
	}
	if err := bus.Publish(t.Context(), testEvent{"c"}); err == nil {
		t.Fatal("a failing transactional handler did not fail Publish")
	}
	if fmt.Sprint(failed) != "[a a]" {
		t.Errorf("failures reported %v, want [a a]", failed)
	}
}
