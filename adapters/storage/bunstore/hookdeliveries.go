package bunstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The webhook outbox. Claim hands deliveries out with one UPDATE of the
// rows a subquery picks. On Postgres the subquery locks them with FOR
// UPDATE SKIP LOCKED, so concurrent claims on any number of nodes take
// different rows without waiting for each other (a row another claim
// changed and committed meanwhile is re-checked against the WHERE and
// dropped). On SQLite the statement runs in an immediate transaction:
// writers are serialised, so the subquery sees every earlier claim.
// Finish is a compare-and-swap on (state running, claimed_by node).

// hookDeliveryRow is a row of hook_deliveries.
type hookDeliveryRow struct {
	bun.BaseModel `bun:"table:hook_deliveries,alias:hd"`

	ID             int64      `bun:"id,pk,autoincrement"`
	HookID         int64      `bun:"hook_id"`
	Event          string     `bun:"event"`
	Payload        string     `bun:"payload"`
	State          string     `bun:"state"`
	Attempts       int        `bun:"attempts"`
	MaxAttempts    int        `bun:"max_attempts"`
	NextAttemptAt  time.Time  `bun:"next_attempt_at"`
	ClaimedBy      string     `bun:"claimed_by"`
	ClaimExpiresAt *time.Time `bun:"claim_expires_at"`
	LastStatus     *int       `bun:"last_status"`
	LastError      string     `bun:"last_error"`
	LastDurationMS int64      `bun:"last_duration_ms"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
	DeliveredAt    *time.Time `bun:"delivered_at"`
}

func (r *hookDeliveryRow) domain() domain.HookDelivery {
	d := domain.HookDelivery{ID: r.ID, HookID: r.HookID, Event: r.Event, Payload: r.Payload,
		State: domain.HookDeliveryState(r.State), Attempts: r.Attempts, MaxAttempts: r.MaxAttempts,
		NextAttemptAt: r.NextAttemptAt.UTC(), ClaimedBy: r.ClaimedBy, ClaimExpiresAt: utcPtr(r.ClaimExpiresAt),
		LastError: r.LastError, LastDuration: time.Duration(r.LastDurationMS) * time.Millisecond,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), DeliveredAt: utcPtr(r.DeliveredAt)}
	if r.LastStatus != nil {
		d.LastStatus = *r.LastStatus
	}
	return d
}

var hookDeliveryTable = tableOf("Hook delivery", (*hookDeliveryRow).domain)

type hookDeliveryStore struct{ s *Store }

// Enqueue writes through Conn, so it commits with the caller's transaction.
func (st *hookDeliveryStore) Enqueue(ctx context.Context, d *domain.HookDelivery) error {
	if d.MaxAttempts < 1 {
		return &core.Error{Kind: core.ErrInvalid, Msg: fmt.Sprintf("hook delivery max attempts %d is below 1", d.MaxAttempts)}
	}
	createdAt, updatedAt := created(d.CreatedAt, d.UpdatedAt)
	next := d.NextAttemptAt
	if next.IsZero() {
		next = createdAt
	}
	payload := d.Payload
	if payload == "" {
		payload = "{}"
	}
	row := &hookDeliveryRow{HookID: d.HookID, Event: d.Event, Payload: payload,
		State: string(domain.HookDeliveryPending), MaxAttempts: d.MaxAttempts, NextAttemptAt: ts(next),
		CreatedAt: createdAt, UpdatedAt: updatedAt}
	if err := st.s.insert(ctx, row, parentErr("Hook"), "id"); err != nil {
		return fmt.Errorf("bunstore: enqueue %q delivery to hook %d: %w", d.Event, d.HookID, err)
	}
	*d = row.domain()
	return nil
}

// Claim takes the due deliveries in one statement (see the comment at the
// top of the file).
func (st *hookDeliveryStore) Claim(ctx context.Context, node string, now time.Time, lease time.Duration, max int) ([]domain.HookDelivery, error) {
	if max <= 0 {
		return []domain.HookDelivery{}, nil
	}
	now = ts(now)
	lock := ""
	if st.s.db.Dialect().Name() == dialect.PG {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	query := `UPDATE hook_deliveries
SET state = 'running', claimed_by = ?, claim_expires_at = ?, attempts = attempts + 1, updated_at = ?
WHERE id IN (
	SELECT id FROM hook_deliveries
	WHERE (state = 'pending' AND next_attempt_at <= ?) OR (state = 'running' AND claim_expires_at <= ?)
	ORDER BY next_attempt_at, id
	LIMIT ?` + lock + `)
RETURNING *`
	var rows []hookDeliveryRow
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		return db.NewRaw(query, node, ts(now.Add(lease)), now, now, now, max).Scan(ctx, &rows)
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: claim hook deliveries for %s: %w", node, err)
	}
	// RETURNING has no order: give the claim's.
	out := hookDeliveryTable.all(rows)
	slices.SortFunc(out, func(a, b domain.HookDelivery) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Finish decides retry or give-up in SQL (attempts < max_attempts), so it
// is one compare-and-swap statement.
func (st *hookDeliveryStore) Finish(ctx context.Context, id int64, node string, a domain.HookAttempt) error {
	at := orNow(a.At)
	var status *int
	if a.Status != 0 {
		status = &a.Status
	}
	q := st.s.Conn(ctx).NewUpdate().Model((*hookDeliveryRow)(nil)).
		Set("claim_expires_at = NULL").
		Set("last_status = ?", status).
		Set("last_error = ?", a.Err).
		Set("last_duration_ms = ?", a.Duration.Milliseconds()).
		Set("updated_at = ?", at).
		Where("id = ? AND state = 'running' AND claimed_by = ?", id, node)
	switch {
	case a.Delivered():
		q = q.Set("state = 'delivered'").Set("delivered_at = ?", at)
	case a.Retry:
		q = q.Set("state = CASE WHEN attempts < max_attempts THEN 'pending' ELSE 'failed' END").
			Set("next_attempt_at = CASE WHEN attempts < max_attempts THEN ? ELSE next_attempt_at END", ts(a.NextAt))
	default:
		q = q.Set("state = 'failed'")
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: finish hook delivery %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	if err := hookDeliveryTable.mustExist(ctx, st.s.Conn(ctx), id); err != nil {
		return fmt.Errorf("bunstore: finish hook delivery %d: %w", id, err)
	}
	return &core.Error{Kind: core.ErrStale, Msg: fmt.Sprintf("hook delivery %d is not claimed by %s", id, node)}
}

func (st *hookDeliveryStore) List(ctx context.Context, hookID int64, p domain.Page) ([]domain.HookDelivery, int, error) {
	out, n, err := hookDeliveryTable.page(ctx, st.s.Conn(ctx).NewSelect().Where("hd.hook_id = ?", hookID).
		OrderExpr("hd.created_at DESC, hd.id DESC"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list deliveries of hook %d: %w", hookID, err)
	}
	return out, n, nil
}

func (st *hookDeliveryStore) Prune(ctx context.Context, before time.Time) (int, error) {
	res, err := st.s.Conn(ctx).NewDelete().Model((*hookDeliveryRow)(nil)).
		Where("state IN ('delivered', 'failed') AND created_at < ?", ts(before)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("bunstore: prune hook deliveries: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("bunstore: prune hook deliveries: %w", err)
	}
	return int(n), nil
}

var _ ports.HookDeliveryStore = (*hookDeliveryStore)(nil)
