package gitcli

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/hearth-forge/hearth/core"
)

// Limits bound the backend's concurrent git work. Past them requests queue
// for at most QueueTimeout and then fail with core.ErrUnavailable, so that
// above capacity throughput stays flat and the excess is turned away fast
// instead of every request slowing down behind an ever longer run queue.
// Zero fields take the defaults (see DefaultLimits).
type Limits struct {
	// MaxProcesses bounds the git processes running at once other than
	// cat-file: reads that spawn git, writes, and clones and pushes over
	// HTTP for as long as they run.
	MaxProcesses int
	// MaxCatFiles bounds the cat-file processes busy at once, and the
	// ones kept alive at all (idle ones included).
	MaxCatFiles int
	// QueueTimeout is how long a request waits for a slot.
	QueueTimeout time.Duration
}

// DefaultLimits scale with the CPUs Go may use. A git process is mostly
// CPU (rev-list, diff, pack-objects), so two per CPU keep the cores busy
// while one waits on the disk; a cat-file answer is a short read from
// memory-mapped packs with the requester doing the parsing in between,
// so four per CPU. The queue timeout is a couple of typical service
// times: long enough to ride out a burst, short enough that a client
// gets its 503 before it gives up on its own.
func DefaultLimits() Limits {
	n := runtime.GOMAXPROCS(0)
	return Limits{MaxProcesses: 2 * n, MaxCatFiles: 4 * n, QueueTimeout: 2 * time.Second}
}

// orDefault fills l's zero fields from DefaultLimits.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.MaxProcesses <= 0 {
		l.MaxProcesses = d.MaxProcesses
	}
	if l.MaxCatFiles <= 0 {
		l.MaxCatFiles = d.MaxCatFiles
	}
	if l.QueueTimeout <= 0 {
		l.QueueTimeout = d.QueueTimeout
	}
	return l
}

// Option configures New.
type Option func(*Backend)

// WithLimits sets the bounds on concurrent git work (zero fields: defaults).
func WithLimits(l Limits) Option {
	return func(b *Backend) { b.limits = l.orDefault() }
}

// WithRunObserver has observe told of every git process the backend runs
// (cat-file aside, as for the bound): how long it ran and how it ended.
// It is how the app counts git work for metrics without this package
// knowing the metrics technology; it must be quick and safe for
// concurrent use.
func WithRunObserver(observe func(took time.Duration, err error)) Option {
	return func(b *Backend) { b.observe = observe }
}

// slots is a counting semaphore with a bounded wait. Waiters are served in
// order: a freed slot passes straight to the longest waiter (a channel's
// blocked senders queue first in, first out).
type slots struct {
	ch   chan struct{}
	wait time.Duration
	what string // for the error: "git process", "cat-file"
	// queued counts the callers waiting for a slot now.
	queued atomic.Int64
}

func newSlots(n int, wait time.Duration, what string) *slots {
	return &slots{ch: make(chan struct{}, n), wait: wait, what: what}
}

// acquire takes a slot, waiting at most s.wait; when none frees in time
// or ctx ends first it fails with core.ErrUnavailable (wrapping ctx's
// error in the second case). The caller must release a slot it got.
func (s *slots) acquire(ctx context.Context) error {
	select {
	case s.ch <- struct{}{}:
		return nil
	default:
	}
	if err := ctx.Err(); err != nil {
		return core.Unavailable(fmt.Errorf("gitcli: waiting for a %s slot: %w", s.what, err))
	}
	s.queued.Add(1)
	defer s.queued.Add(-1)
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.ch <- struct{}{}:
		return nil
	case <-t.C:
		return core.Unavailable(fmt.Errorf("gitcli: all %d %s slots busy for %v", cap(s.ch), s.what, s.wait))
	case <-ctx.Done():
		return core.Unavailable(fmt.Errorf("gitcli: waiting for a %s slot: %w", s.what, ctx.Err()))
	}
}

// release gives back a slot taken by acquire.
func (s *slots) release() { <-s.ch }
