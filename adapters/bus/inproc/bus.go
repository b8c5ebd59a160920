// Package inproc is Hearth's in-process event bus: modules publish domain
// events, other modules subscribe, and nothing crosses a process boundary.
// Work that must not be lost belongs in the database, written by a
// SubscribeTx handler inside the publisher's transaction; Subscribe handlers
// are for follow-ups that may be retried or dropped (webhooks, caches).
package inproc

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// handler receives one published event.
type handler = func(ctx context.Context, ev domain.BusEvent) error

// Bus implements ports.EventBus over a TxManager. It is safe for concurrent
// use; handlers may subscribe at any time and see events published after.
type Bus struct {
	tx  ports.TxManager
	log *zap.Logger

	// failed, when set, is told of each after-commit handler that
	// failed or panicked (WithFailureObserver).
	failed func(event string)

	mu    sync.RWMutex
	inTx  map[string][]handler
	after map[string][]handler
}

// Option configures New.
type Option func(*Bus)

// WithFailureObserver has failed told the event's name each time an
// after-commit handler fails or panics: those failures reach no caller,
// so the app counts them (metrics) besides the log line. It must be quick
// and safe for concurrent use.
func WithFailureObserver(failed func(event string)) Option {
	return func(b *Bus) { b.failed = failed }
}

// New returns a bus whose transactional handlers join tx's transactions and
// whose other handlers run after tx commits. log records their failures.
func New(tx ports.TxManager, log *zap.Logger, opts ...Option) *Bus {
	if log == nil {
		log = zap.NewNop()
	}
	b := &Bus{tx: tx, log: log, inTx: map[string][]handler{}, after: map[string][]handler{}}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Subscribe runs fn after the publisher's transaction commits (at once when
// it has none), in the committing goroutine, in subscription order. Its
// errors and panics are logged, never returned: the publisher's work is
// already committed. A slow fn delays the publisher's return, so long work
// should be queued.
func (b *Bus) Subscribe(name string, fn func(ctx context.Context, ev domain.BusEvent) error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Clip so that a Publish holding the old slice never sees the append.
	b.after[name] = append(slices.Clip(b.after[name]), fn)
}

// SubscribeTx runs fn inside the publisher's transaction; its error fails
// Publish, and the publisher is expected to roll back.
func (b *Bus) SubscribeTx(name string, fn func(ctx context.Context, ev domain.BusEvent) error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inTx[name] = append(slices.Clip(b.inTx[name]), fn)
}

// Publish runs the transactional handlers of ev now, in one transaction
// (the caller's when ctx carries one, joined), and, when all of them
// succeed, queues the others for after commit.
func (b *Bus) Publish(ctx context.Context, ev domain.BusEvent) error {
	name := ev.EventName()
	b.mu.RLock()
	inTx, after := b.inTx[name], b.after[name]
	b.mu.RUnlock()

	if len(inTx) > 0 {
		err := b.tx.WithinTx(ctx, func(ctx context.Context) error {
			for i, fn := range inTx {
				if err := fn(ctx, ev); err != nil {
					return fmt.Errorf("inproc: %s handler %d: %w", name, i, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(after) > 0 {
		b.tx.AfterCommit(ctx, func(ctx context.Context) {
			for i, fn := range after {
				b.deliver(ctx, name, i, fn, ev)
			}
		})
	}
	return nil
}

// deliver runs one after-commit handler, logging its error or panic so that
// one failing subscriber neither crashes the process nor starves the others.
func (b *Bus) deliver(ctx context.Context, name string, i int, fn handler, ev domain.BusEvent) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Error("event handler panicked",
				zap.String("event", name), zap.Int("handler", i),
				zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
			if b.failed != nil {
				b.failed(name)
			}
		}
	}()
	if err := fn(ctx, ev); err != nil {
		b.log.Error("event handler failed",
			zap.String("event", name), zap.Int("handler", i), zap.Error(err))
		if b.failed != nil {
			b.failed(name)
		}
	}
}

var _ ports.EventBus = (*Bus)(nil)
