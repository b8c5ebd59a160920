package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// modify is the read-modify-write behind the stores' Update methods, in
// one transaction (a savepoint of the caller's): load reads the current
// value under its row lock (forUpdate), edit (the caller's function)
// changes a copy, save writes the copy back and returns what was stored.
// edit's error is returned as is; the others go through wrap, which adds
// the context.
func modify[D any](ctx context.Context, s *Store,
	load func(ctx context.Context, db bun.IDB) (*D, error),
	edit func(*D) error,
	save func(ctx context.Context, db bun.IDB, old, v *D) (*D, error),
	wrap func(error) error,
) (*D, error) {
	var out *D
	var editErr error
	err := s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		old, err := load(ctx, db)
		if err != nil {
			return err
		}
		v := *old
		if editErr = edit(&v); editErr != nil {
			return editErr
		}
		out, err = save(ctx, db, old, &v)
		return err
	})
	if editErr != nil {
		return nil, editErr
	}
	if err != nil {
		return nil, wrap(err)
	}
	return out, nil
}

// forUpdate makes q lock the rows it reads until the transaction ends when
// the store uses row locks (Postgres, WithRowLocks), with the lock an
// UPDATE that keeps the key takes; of names the table to lock when q
// joins others. SQLite needs none: immediate transactions serialise
// writers.
func (s *Store) forUpdate(q *bun.SelectQuery, of ...string) *bun.SelectQuery {
	if !s.rowLocks {
		return q
	}
	if len(of) > 0 {
		return q.For("NO KEY UPDATE OF " + of[0])
	}
	return q.For("NO KEY UPDATE")
}

// edited is the UpdatedAt an edit saves: now, unless the edit moved it
// away from was.
func edited(updatedAt, was time.Time) time.Time {
	if updatedAt.Equal(was) {
		return now()
	}
	return updatedAt
}

// created are the times a new row gets: a zero createdAt is now, a zero
// updatedAt is createdAt; both normalised (ts).
func created(createdAt, updatedAt time.Time) (time.Time, time.Time) {
	createdAt = orNow(createdAt)
	if updatedAt.IsZero() {
		return createdAt, createdAt
	}
	return createdAt, ts(updatedAt)
}
