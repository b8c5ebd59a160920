package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// timeTrackingStore keeps time stats in the time_estimate and
// total_time_spent columns of issues and merge_requests (migration 0018).
type timeTrackingStore struct{ s *Store }

// timeStatsRow is what every statement returns.
type timeStatsRow struct {
	TimeEstimate   int64 `bun:"time_estimate"`
	TotalTimeSpent int64 `bun:"total_time_spent"`
}

// trackedTable is the table that holds items of the subject's type, and
// the name of its 404.
func trackedTable(item domain.Subject) (table, what string, err error) {
	switch item.Type {
	case domain.TargetIssue:
		return "issues", "Issue", nil
	case domain.TargetMergeRequest:
		return "merge_requests", "Merge Request", nil
	}
	return "", "", fmt.Errorf("bunstore: no time tracking on %q: %w", item.Type, core.ErrInvalid)
}

// TimeStats reads the item's stats.
func (st *timeTrackingStore) TimeStats(ctx context.Context, item domain.Subject) (domain.TimeStats, error) {
	return st.run(ctx, item, "read time stats", func(db bun.IDB, table string) *bun.RawQuery {
		return db.NewRaw("SELECT time_estimate, total_time_spent FROM ? WHERE id = ?", bun.Ident(table), item.ID)
	})
}

// SetEstimate sets the estimate, and updated_at when it changes.
func (st *timeTrackingStore) SetEstimate(ctx context.Context, item domain.Subject, seconds int64, now time.Time) (domain.TimeStats, error) {
	return st.run(ctx, item, "set time estimate", func(db bun.IDB, table string) *bun.RawQuery {
		return db.NewRaw(`UPDATE ? SET time_estimate = ?,
			updated_at = CASE WHEN time_estimate = ? THEN updated_at ELSE ? END
			WHERE id = ? RETURNING time_estimate, total_time_spent`,
			bun.Ident(table), seconds, seconds, now.UTC(), item.ID)
	})
}

// AddSpent adds in the UPDATE itself, which also refuses to go below
// zero, so concurrent additions neither lose one another nor overdraw.
func (st *timeTrackingStore) AddSpent(ctx context.Context, item domain.Subject, seconds int64) (domain.TimeStats, error) {
	out, err := st.run(ctx, item, "add spent time", func(db bun.IDB, table string) *bun.RawQuery {
		return db.NewRaw(`UPDATE ? SET total_time_spent = total_time_spent + ?
			WHERE id = ? AND total_time_spent + ? >= 0 RETURNING time_estimate, total_time_spent`,
			bun.Ident(table), seconds, item.ID, seconds)
	})
	if err == nil || !errors.Is(err, core.ErrNotFound) {
		return out, err
	}
	// No row changed: the item is missing, or the total too small.
	if _, readErr := st.TimeStats(ctx, item); readErr != nil {
		return out, err
	}
	return out, core.FieldInvalid("time_spent", "Time to subtract exceeds the total time spent")
}

// ResetSpent sets the total time spent to zero.
func (st *timeTrackingStore) ResetSpent(ctx context.Context, item domain.Subject) (domain.TimeStats, error) {
	return st.run(ctx, item, "reset spent time", func(db bun.IDB, table string) *bun.RawQuery {
		return db.NewRaw("UPDATE ? SET total_time_spent = 0 WHERE id = ? RETURNING time_estimate, total_time_spent",
			bun.Ident(table), item.ID)
	})
}

// run scans the one row of the item query returns; none is the item's
// core.ErrNotFound.
func (st *timeTrackingStore) run(ctx context.Context, item domain.Subject, what string, query func(db bun.IDB, table string) *bun.RawQuery) (domain.TimeStats, error) {
	table, name, err := trackedTable(item)
	if err != nil {
		return domain.TimeStats{}, err
	}
	var row timeStatsRow
	if err := query(st.s.Conn(ctx), table).Scan(ctx, &row); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			err = core.NotFound(name)
		}
		return domain.TimeStats{}, fmt.Errorf("bunstore: %s of %s %d: %w", what, item.Type, item.ID, err)
	}
	return domain.TimeStats{TimeEstimate: row.TimeEstimate, TotalTimeSpent: row.TotalTimeSpent}, nil
}

var _ ports.TimeTrackingStore = (*timeTrackingStore)(nil)
