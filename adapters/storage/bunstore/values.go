package bunstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// ts normalises a time for storage: UTC, microsecond precision (what
// Postgres keeps), so it reads back equal on both dialects.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func tsPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := ts(*t)
	return &v
}

// date is the UTC midnight of t's UTC day: dates are stored as timestamps.
func date(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func datePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := date(*t)
	return &v
}

// utcPtr converts a time read back from the driver (pgx returns local time)
// to UTC.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}

// now is the creation time used when the caller left it zero.
func now() time.Time { return ts(time.Now()) }

// orNow returns ts(t), or the current time when t is zero.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return now()
	}
	return ts(t)
}

// nullString stores "" as NULL, so unique indexes ignore unset values.
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// page counts the rows q selects, then scans one page of them into q's model.
// The count runs first so an empty or out-of-range page costs one query.
func page(ctx context.Context, q *bun.SelectQuery, p domain.Page) (int, error) {
	return pageOf(ctx, q, p, nil)
}

// pageOf is page with the total already known (when total is not nil).
func pageOf(ctx context.Context, q *bun.SelectQuery, p domain.Page, total *int) (int, error) {
	var n int64
	if total != nil {
		n = int64(*total)
	} else {
		var err error
		if n, err = q.Count(ctx); err != nil {
			return 0, err
		}
	}
	if n == 0 || int64(p.Offset()) >= n {
		return int(n), nil
	}
	if p.PerPage > 0 {
		q = q.Limit(int64(p.PerPage)).Offset(int64(p.Offset()))
	}
	if err := q.Scan(ctx); err != nil {
		return 0, err
	}
	return int(n), nil
}

// countBy counts the rows q selects per value of col ("i.project_id") in
// one grouped query; values without rows are absent.
func countBy(ctx context.Context, q *bun.SelectQuery, col string) (map[int64]int, error) {
	var keys []int64
	var counts []int
	if err := q.Column(col).ColumnExpr("count(*) AS n").Group(col).Scan(ctx, &keys, &counts); err != nil {
		return nil, err
	}
	out := make(map[int64]int, len(keys))
	for i, k := range keys {
		out[k] = counts[i]
	}
	return out, nil
}

// mustAffect turns "no row changed" into core.NotFound(what).
func mustAffect(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return core.NotFound(what)
	}
	return nil
}
