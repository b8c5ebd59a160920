package bunstore

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// table ties a row struct R to the domain value D it maps to and to the
// name a missing row has in core.NotFound ("Key"), so the reads and
// deletes every store repeats are written once. The queries handed to its
// methods are built without a model: the method sets a new R (or []R).
type table[R, D any] struct {
	what   string
	domain func(*R) D
}

func tableOf[R, D any](what string, domain func(*R) D) table[R, D] {
	return table[R, D]{what: what, domain: domain}
}

// get reads the one row q selects; no row is core.NotFound(t.what).
func (t table[R, D]) get(ctx context.Context, q *bun.SelectQuery) (*D, error) {
	row := new(R)
	if err := q.Model(row).Scan(ctx); err != nil {
		return nil, readErr(err, t.what)
	}
	d := t.domain(row)
	return &d, nil
}

// locked is a load for modify: the row where selects, read under its row
// lock (Store.forUpdate).
func (t table[R, D]) locked(s *Store, where string, args ...any) func(context.Context, bun.IDB) (*D, error) {
	return func(ctx context.Context, db bun.IDB) (*D, error) {
		return t.get(ctx, s.forUpdate(db.NewSelect().Where(where, args...)))
	}
}

// list reads every row q selects, in q's order.
func (t table[R, D]) list(ctx context.Context, q *bun.SelectQuery) ([]D, error) {
	rows := []R{}
	if err := q.Model(&rows).Scan(ctx); err != nil {
		return nil, err
	}
	return t.all(rows), nil
}

// byIDs reads the rows whose col ("ms.id") is one of ids, ordered by it:
// one query, none for no ids.
func (t table[R, D]) byIDs(ctx context.Context, db bun.IDB, col string, ids []int64) ([]D, error) {
	if len(ids) == 0 {
		return []D{}, nil
	}
	return t.list(ctx, db.NewSelect().Where(col+" IN (?)", bun.List(dedupeIDs(ids))).Order(col))
}

// page counts the rows q selects and reads one page of them (see page):
// the count and the page, whatever the page size.
func (t table[R, D]) page(ctx context.Context, q *bun.SelectQuery, p domain.Page) ([]D, int, error) {
	rows := []R{}
	n, err := page(ctx, q.Model(&rows), p)
	if err != nil {
		return nil, 0, err
	}
	return t.all(rows), n, nil
}

func (t table[R, D]) all(rows []R) []D {
	out := make([]D, len(rows))
	for i := range rows {
		out[i] = t.domain(&rows[i])
	}
	return out
}

// save writes every column of row by its primary key and returns what
// was stored; mapErr (nil: none) maps a failure.
func (t table[R, D]) save(ctx context.Context, db bun.IDB, row *R, mapErr func(error) error) (*D, error) {
	if _, err := db.NewUpdate().Model(row).WherePK().Exec(ctx); err != nil {
		if mapErr != nil {
			err = mapErr(err)
		}
		return nil, err
	}
	d := t.domain(row)
	return &d, nil
}

// mustExist is core.NotFound(t.what) when no row has the id.
func (t table[R, D]) mustExist(ctx context.Context, db bun.IDB, id int64) error {
	exists, err := db.NewSelect().Model((*R)(nil)).Where("id = ?", id).Exists(ctx)
	if err != nil {
		return err
	}
	if !exists {
		return core.NotFound(t.what)
	}
	return nil
}

// moveForward runs q, an UPDATE of the row with the id that only ever
// moves a time forward (so concurrent writers cannot move it back). When
// it changed nothing, a second query tells a missing row from a time
// that was already later.
func (t table[R, D]) moveForward(ctx context.Context, db bun.IDB, q *bun.UpdateQuery, id int64) error {
	res, err := q.Model((*R)(nil)).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	return t.mustExist(ctx, db, id)
}

// deleteOne deletes the row where selects; none is core.NotFound(t.what).
func (t table[R, D]) deleteOne(ctx context.Context, db bun.IDB, where string, args ...any) error {
	res, err := db.NewDelete().Model((*R)(nil)).Where(where, args...).Exec(ctx)
	if err != nil {
		return err
	}
	return mustAffect(res, t.what)
}
