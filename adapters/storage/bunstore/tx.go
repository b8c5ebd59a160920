package bunstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/ports"
)

// txManager implements ports.TxManager with the transaction in the context.
type txManager struct {
	db *bun.DB
}

// txKey keys the context value by database, so two stores over the same
// *bun.DB share a transaction and stores over different databases never do.
type txKey struct{ db *bun.DB }

// txFrame is one level of WithinTx: the transaction itself at the outermost
// level, a savepoint of it below.
type txFrame struct {
	tx   bun.Tx
	root *txRoot
}

// txRoot is the state shared by every level of one transaction.
type txRoot struct {
	mu    sync.Mutex
	after []func(context.Context)
}

func (r *txRoot) add(fn func(context.Context)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.after = append(r.after, fn)
}

func (r *txRoot) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.after)
}

// truncate forgets the callbacks registered since mark: their work was
// rolled back to a savepoint.
func (r *txRoot) truncate(mark int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.after[mark:])
	r.after = r.after[:mark]
}

func (r *txRoot) take() []func(context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fns := r.after
	r.after = nil
	return fns
}

func (m *txManager) frame(ctx context.Context) *txFrame {
	f, _ := ctx.Value(txKey{m.db}).(*txFrame)
	return f
}

// deadlockAttempts is how many times an outermost transaction runs when
// Postgres keeps aborting it to break deadlocks.
const deadlockAttempts = 3

// WithinTx runs fn in a transaction, or in a savepoint of the transaction ctx
// already carries. fn's error rolls back (to the savepoint when nested) and
// is returned as is; a panic rolls back and propagates.
//
// An outermost transaction that Postgres aborted to break a deadlock runs
// again from the start (fn must not act outside the database before it
// returns, which the after-commit callbacks are for): two use cases that
// lock the same rows in different orders (a runner claiming a job while
// its pipeline is canceled) then both succeed instead of one failing.
func (m *txManager) WithinTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if f := m.frame(ctx); f != nil {
		return m.nested(ctx, f, fn)
	}
	var err error
	for attempt := 1; ; attempt++ {
		err = m.run(ctx, fn)
		if attempt == deadlockAttempts || !deadlock(err) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
	}
}

// run is one attempt of an outermost transaction.
func (m *txManager) run(ctx context.Context, fn func(ctx context.Context) error) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("bunstore: begin transaction: %w", err)
	}
	root := &txRoot{}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	if err := fn(context.WithValue(ctx, txKey{m.db}, &txFrame{tx: tx, root: root})); err != nil {
		return err
	}
	done = true
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("bunstore: commit: %w", err)
	}
	// Committed work is done whatever happens to the request, so follow-ups
	// do not inherit its cancellation (they keep its values: logger, IDs).
	after := context.WithoutCancel(ctx)
	for _, fn := range root.take() {
		fn(after)
	}
	return nil
}

func (m *txManager) nested(ctx context.Context, f *txFrame, fn func(ctx context.Context) error) error {
	sp, err := f.tx.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("bunstore: savepoint: %w", err)
	}
	mark := f.root.mark()
	done := false
	defer func() {
		if !done {
			_ = sp.Rollback()
			f.root.truncate(mark)
		}
	}()
	if err := fn(context.WithValue(ctx, txKey{m.db}, &txFrame{tx: sp, root: f.root})); err != nil {
		return err
	}
	done = true
	if err := sp.Commit(); err != nil {
		f.root.truncate(mark)
		return fmt.Errorf("bunstore: release savepoint: %w", err)
	}
	return nil
}

// AfterCommit queues fn until the outermost transaction of ctx commits, or
// runs it at once when ctx carries none. fn gets a context without
// cancellation. Callbacks run in the order they were added; they are dropped
// when their transaction (or savepoint) rolls back.
func (m *txManager) AfterCommit(ctx context.Context, fn func(ctx context.Context)) {
	if f := m.frame(ctx); f != nil {
		f.root.add(fn)
		return
	}
	fn(context.WithoutCancel(ctx))
}

var _ ports.TxManager = (*txManager)(nil)
