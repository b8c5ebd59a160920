package bunstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Changes waiting to be fanned out to hook deliveries. Claim works as the
// deliveries' does (see hookdeliveries.go): one UPDATE of the rows a
// subquery picks, FOR UPDATE SKIP LOCKED on Postgres, an immediate
// transaction on SQLite. Done deletes the row by compare-and-swap on the
// claim, inside the transaction that queued its deliveries, so a node
// that lost its claim (it was too slow) rolls its deliveries back.

type hookEventRow struct {
	bun.BaseModel `bun:"table:hook_events,alias:he"`

	ID             int64      `bun:"id,pk,autoincrement"`
	Kind           string     `bun:"kind"`
	Data           string     `bun:"data"`
	Attempts       int        `bun:"attempts"`
	ClaimedBy      string     `bun:"claimed_by"`
	ClaimExpiresAt *time.Time `bun:"claim_expires_at"`
	CreatedAt      time.Time  `bun:"created_at"`
}

func (r *hookEventRow) domain() domain.HookEvent {
	return domain.HookEvent{ID: r.ID, Kind: r.Kind, Data: r.Data, Attempts: r.Attempts, ClaimedBy: r.ClaimedBy,
		ClaimExpiresAt: utcPtr(r.ClaimExpiresAt), CreatedAt: r.CreatedAt.UTC()}
}

var hookEventTable = tableOf("Hook event", (*hookEventRow).domain)

type hookEventStore struct{ s *Store }

// Add writes through Conn, so it commits with the caller's transaction.
func (st *hookEventStore) Add(ctx context.Context, e *domain.HookEvent) error {
	row := &hookEventRow{Kind: e.Kind, Data: e.Data, CreatedAt: ts(orNow(e.CreatedAt))}
	if _, err := st.s.Conn(ctx).NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: add %s hook event: %w", e.Kind, err)
	}
	*e = row.domain()
	return nil
}

func (st *hookEventStore) Claim(ctx context.Context, node string, now time.Time, lease time.Duration, max int) ([]domain.HookEvent, error) {
	if max <= 0 {
		return []domain.HookEvent{}, nil
	}
	now = ts(now)
	lock := st.s.skipLocked()
	query := `UPDATE hook_events
SET claimed_by = ?, claim_expires_at = ?, attempts = attempts + 1
WHERE id IN (
	SELECT e.id FROM hook_events e
	WHERE e.claim_expires_at IS NULL OR e.claim_expires_at <= ?
	ORDER BY e.id
	LIMIT ?` + lock + `)
RETURNING *`
	var rows []hookEventRow
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		return db.NewRaw(query, node, ts(now.Add(lease)), now, max).Scan(ctx, &rows)
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: claim hook events for %s: %w", node, err)
	}
	out := hookEventTable.all(rows)
	slices.SortFunc(out, func(a, b domain.HookEvent) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func (st *hookEventStore) Done(ctx context.Context, id int64, node string) error {
	db := st.s.Conn(ctx)
	res, err := db.NewDelete().Model((*hookEventRow)(nil)).Where("id = ? AND claimed_by = ?", id, node).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: hook event %d done: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bunstore: hook event %d done: %w", id, err)
	} else if n == 0 {
		if err := hookEventTable.mustExist(ctx, db, id); err != nil {
			return fmt.Errorf("bunstore: hook event %d done: %w", id, err)
		}
		return &core.Error{Kind: core.ErrStale, Msg: fmt.Sprintf("hook event %d is not claimed by %s", id, node)}
	}
	return nil
}

var _ ports.HookEventStore = (*hookEventStore)(nil)
