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
// Finish is a compare-and-swap on (state running, claimed_by node), and
// keeps the hook's failure record in the same transaction.

// hookDeliveryRow is a row of hook_deliveries.
type hookDeliveryRow struct {
	bun.BaseModel `bun:"table:hook_deliveries,alias:hd"`

	ID             int64      `bun:"id,pk,autoincrement"`
	HookID         int64      `bun:"hook_id"`
	Event          string     `bun:"event"`
	Payload        string     `bun:"payload"`
	PayloadID      *int64     `bun:"payload_id"`
	State          string     `bun:"state"`
	Attempts       int        `bun:"attempts"`
	MaxAttempts    int        `bun:"max_attempts"`
	NextAttemptAt  time.Time  `bun:"next_attempt_at"`
	ClaimedBy      string     `bun:"claimed_by"`
	ClaimExpiresAt *time.Time `bun:"claim_expires_at"`
	LastStatus     *int       `bun:"last_status"`
	LastError      string     `bun:"last_error"`
	LastDurationMS int64      `bun:"last_duration_ms"`
	LastResponse   string     `bun:"last_response"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
	DeliveredAt    *time.Time `bun:"delivered_at"`
}

func (r *hookDeliveryRow) domain() domain.HookDelivery {
	d := domain.HookDelivery{ID: r.ID, HookID: r.HookID, Event: r.Event, Payload: r.Payload,
		State: domain.HookDeliveryState(r.State), Attempts: r.Attempts, MaxAttempts: r.MaxAttempts,
		NextAttemptAt: r.NextAttemptAt.UTC(), ClaimedBy: r.ClaimedBy, ClaimExpiresAt: utcPtr(r.ClaimExpiresAt),
		LastError: r.LastError, LastResponse: r.LastResponse, LastDuration: time.Duration(r.LastDurationMS) * time.Millisecond,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), DeliveredAt: utcPtr(r.DeliveredAt)}
	if r.LastStatus != nil {
		d.LastStatus = *r.LastStatus
	}
	return d
}

var hookDeliveryTable = tableOf("Hook delivery", (*hookDeliveryRow).domain)

type hookDeliveryStore struct{ s *Store }

// queuedRow is d as a pending row: times default to now, the first
// attempt to its creation, an empty payload to {}.
func queuedRow(d domain.HookDelivery) hookDeliveryRow {
	createdAt, updatedAt := created(d.CreatedAt, d.UpdatedAt)
	next := d.NextAttemptAt
	if next.IsZero() {
		next = createdAt
	}
	payload := d.Payload
	if payload == "" {
		payload = "{}"
	}
	return hookDeliveryRow{HookID: d.HookID, Event: d.Event, Payload: payload,
		State: string(domain.HookDeliveryPending), MaxAttempts: d.MaxAttempts, NextAttemptAt: ts(next),
		CreatedAt: createdAt, UpdatedAt: updatedAt}
}

func checkAttempts(d domain.HookDelivery) error {
	if d.MaxAttempts < 1 {
		return &core.Error{Kind: core.ErrInvalid, Msg: fmt.Sprintf("hook delivery max attempts %d is below 1", d.MaxAttempts)}
	}
	return nil
}

// Enqueue writes through Conn, so it commits with the caller's transaction.
func (st *hookDeliveryStore) Enqueue(ctx context.Context, d *domain.HookDelivery) error {
	if err := checkAttempts(*d); err != nil {
		return err
	}
	row := queuedRow(*d)
	if err := st.s.insert(ctx, &row, parentErr("Hook"), "id"); err != nil {
		return fmt.Errorf("bunstore: enqueue %q delivery to hook %d: %w", d.Event, d.HookID, err)
	}
	*d = row.domain()
	return nil
}

// EnqueueFor inserts one row per hook with INSERT ... SELECT from
// web_hooks, so a hook deleted meanwhile is skipped instead of failing
// the foreign key (and with it the publisher's transaction).
func (st *hookDeliveryStore) EnqueueFor(ctx context.Context, hookIDs []int64, d domain.HookDelivery) (int, error) {
	if err := checkAttempts(d); err != nil {
		return 0, err
	}
	if len(hookIDs) == 0 {
		return 0, nil
	}
	row := queuedRow(d)
	var n int64
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		body := &hookPayloadRow{Payload: row.Payload, CreatedAt: row.CreatedAt}
		if _, err := db.NewInsert().Model(body).Returning("id").Exec(ctx); err != nil {
			return err
		}
		res, err := db.NewRaw(`INSERT INTO hook_deliveries
(hook_id, event, payload, payload_id, state, max_attempts, next_attempt_at, created_at, updated_at)
SELECT id, ?, '', ?, ?, ?, ?, ?, ? FROM web_hooks WHERE id IN (?)`,
			row.Event, body.ID, row.State, row.MaxAttempts, row.NextAttemptAt, row.CreatedAt, row.UpdatedAt,
			bun.In(hookIDs)).Exec(ctx)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("bunstore: enqueue %q deliveries to %d hooks: %w", d.Event, len(hookIDs), err)
	}
	return int(n), nil
}

// hookPayloadRow is a body shared by the deliveries of one event.
type hookPayloadRow struct {
	bun.BaseModel `bun:"table:hook_payloads"`

	ID        int64     `bun:"id,pk,autoincrement"`
	Payload   string    `bun:"payload"`
	CreatedAt time.Time `bun:"created_at"`
}

// withPayloads fills in the shared bodies of ds (one query, none when
// every delivery holds its own).
func withPayloads(ctx context.Context, db bun.IDB, ds []domain.HookDelivery) error {
	var ids []int64
	for _, d := range ds {
		if d.Payload == "" {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var bodies []struct {
		ID      int64  `bun:"id"`
		Payload string `bun:"payload"`
	}
	if err := db.NewRaw(`SELECT d.id, p.payload FROM hook_deliveries d JOIN hook_payloads p ON p.id = d.payload_id
WHERE d.id IN (?)`, bun.In(ids)).Scan(ctx, &bodies); err != nil {
		return fmt.Errorf("payloads of %d deliveries: %w", len(ids), err)
	}
	byID := make(map[int64]string, len(bodies))
	for _, b := range bodies {
		byID[b.ID] = b.Payload
	}
	for i := range ds {
		if ds[i].Payload == "" {
			ds[i].Payload = byID[ds[i].ID]
		}
	}
	return nil
}

// Claim takes the due deliveries in one statement (see the comment at the
// top of the file).
func (st *hookDeliveryStore) Claim(ctx context.Context, node string, now time.Time, lease time.Duration, max int) ([]domain.HookDelivery, error) {
	if max <= 0 {
		return []domain.HookDelivery{}, nil
	}
	now = ts(now)
	lock := st.s.skipLocked()
	// A disabled hook's deliveries wait (their next_attempt_at is kept,
	// so they go first once it is enabled again).
	query := `UPDATE hook_deliveries
SET state = 'running', claimed_by = ?, claim_expires_at = ?, attempts = attempts + 1, updated_at = ?
WHERE id IN (
	SELECT d.id FROM hook_deliveries d
	WHERE ((d.state = 'pending' AND d.next_attempt_at <= ?) OR (d.state = 'running' AND d.claim_expires_at <= ?))
	AND NOT EXISTS (SELECT 1 FROM web_hooks h WHERE h.id = d.hook_id AND h.disabled_until > ?)
	ORDER BY d.next_attempt_at, d.id
	LIMIT ?` + lock + `)
RETURNING *`
	var rows []hookDeliveryRow
	var targets []hookTargetRow
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := db.NewRaw(query, node, ts(now.Add(lease)), now, now, now, now, max).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		hookIDs := make([]int64, len(rows))
		for i, r := range rows {
			hookIDs[i] = r.HookID
		}
		// The claimed rows lock their hooks against deletion (the
		// cascade waits for this transaction), so every hook is there.
		return db.NewSelect().Model(&targets).Where("id IN (?)", bun.List(dedupeIDs(hookIDs))).Scan(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: claim hook deliveries for %s: %w", node, err)
	}
	byHook := make(map[int64]domain.HookTarget, len(targets))
	for _, t := range targets {
		byHook[t.ID] = domain.HookTarget{URL: t.URL, Token: t.Token, VerifyTLS: t.EnableSSLVerification, System: t.Type == systemHookType}
	}
	out := hookDeliveryTable.all(rows)
	for i := range out {
		out[i].Target = byHook[out[i].HookID]
	}
	if err := withPayloads(ctx, st.s.Conn(ctx), out); err != nil {
		return nil, fmt.Errorf("bunstore: claim hook deliveries for %s: %w", node, err)
	}
	// RETURNING has no order: give the claim's.
	slices.SortFunc(out, func(a, b domain.HookDelivery) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

// hookTargetRow is what Claim reads of a claimed delivery's hook.
type hookTargetRow struct {
	bun.BaseModel `bun:"table:web_hooks,alias:h"`

	ID                    int64  `bun:"id"`
	Type                  string `bun:"type"`
	URL                   string `bun:"url"`
	Token                 string `bun:"token"`
	EnableSSLVerification bool   `bun:"enable_ssl_verification"`
}

// Finish decides retry or give-up in SQL (attempts < max_attempts), so
// the delivery's part is one compare-and-swap statement; the hook's
// failure record follows under the row lock its UPDATE takes.
func (st *hookDeliveryStore) Finish(ctx context.Context, id int64, node string, a domain.HookAttempt) error {
	at := orNow(a.At)
	var status *int
	if a.Status != 0 {
		status = &a.Status
	}
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		q := db.NewUpdate().Model((*hookDeliveryRow)(nil)).
			Set("claim_expires_at = NULL").
			Set("last_status = ?", status).
			Set("last_error = ?", a.Err).
			Set("last_duration_ms = ?", a.Duration.Milliseconds()).
			Set("last_response = ?", a.Response).
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
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			if err := hookDeliveryTable.mustExist(ctx, db, id); err != nil {
				return err
			}
			return &core.Error{Kind: core.ErrStale, Msg: fmt.Sprintf("hook delivery %d is not claimed by %s", id, node)}
		}
		return recordHookAttempt(ctx, db, id, a, at)
	})
	if err != nil {
		return fmt.Errorf("bunstore: finish hook delivery %d: %w", id, err)
	}
	return nil
}

// recordHookAttempt keeps the failure record of delivery id's hook: a
// success resets it; a failure counts and, from a.DisableAfter on,
// disables the hook for the backoff of the new count. The backoff is
// computed here from the count the UPDATE returns, under its row lock.
func recordHookAttempt(ctx context.Context, db bun.IDB, id int64, a domain.HookAttempt, at time.Time) error {
	const hookOf = "id = (SELECT hook_id FROM hook_deliveries WHERE id = ?)"
	if a.Delivered() {
		_, err := db.NewUpdate().Table("web_hooks").
			Set("failure_count = 0").Set("disabled_until = NULL").Where(hookOf, id).Exec(ctx)
		return err
	}
	var failures []int
	if err := db.NewRaw("UPDATE web_hooks SET failure_count = failure_count + 1 WHERE "+hookOf+" RETURNING failure_count", id).
		Scan(ctx, &failures); err != nil {
		return err
	}
	if len(failures) == 0 || a.DisableAfter <= 0 || failures[0] < a.DisableAfter {
		return nil
	}
	until := ts(at.Add(domain.HookDisableBackoff(failures[0], a.DisableAfter)))
	_, err := db.NewUpdate().Table("web_hooks").Set("disabled_until = ?", until).Where(hookOf, id).Exec(ctx)
	return err
}

func (st *hookDeliveryStore) Get(ctx context.Context, hookID, id int64) (*domain.HookDelivery, error) {
	d, err := hookDeliveryTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("hd.hook_id = ? AND hd.id = ?", hookID, id))
	if err == nil {
		one := []domain.HookDelivery{*d}
		err = withPayloads(ctx, st.s.Conn(ctx), one)
		d = &one[0]
	}
	if err != nil {
		return nil, fmt.Errorf("bunstore: get delivery %d of hook %d: %w", id, hookID, err)
	}
	return d, nil
}

// Record keeps d as given but for defaults: times a zero leaves (now),
// NextAttemptAt (CreatedAt), Payload ("{}") and MaxAttempts (Attempts, at
// least 1).
func (st *hookDeliveryStore) Record(ctx context.Context, d *domain.HookDelivery) error {
	row := queuedRow(*d)
	if row.MaxAttempts < 1 {
		row.MaxAttempts = max(d.Attempts, 1)
	}
	if d.State != "" {
		row.State = string(d.State)
	}
	if d.LastStatus != 0 {
		row.LastStatus = &d.LastStatus
	}
	row.Attempts, row.ClaimedBy, row.ClaimExpiresAt = d.Attempts, d.ClaimedBy, tsPtr(d.ClaimExpiresAt)
	row.LastError, row.LastDurationMS, row.LastResponse = d.LastError, d.LastDuration.Milliseconds(), d.LastResponse
	row.DeliveredAt = tsPtr(d.DeliveredAt)
	if err := st.s.insert(ctx, &row, parentErr("Hook"), "id"); err != nil {
		return fmt.Errorf("bunstore: record %q delivery to hook %d: %w", d.Event, d.HookID, err)
	}
	*d = row.domain()
	return nil
}

func (st *hookDeliveryStore) List(ctx context.Context, hookID int64, p domain.Page) ([]domain.HookDelivery, int, error) {
	out, n, err := hookDeliveryTable.page(ctx, st.s.Conn(ctx).NewSelect().Where("hd.hook_id = ?", hookID).
		OrderExpr("hd.created_at DESC, hd.id DESC"), p)
	if err == nil {
		err = withPayloads(ctx, st.s.Conn(ctx), out)
	}
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
	// Bodies left without deliveries: those just pruned, and those of
	// deleted hooks. A body is written with its deliveries in one
	// transaction, so an unreferenced one is never about to be used.
	if _, err := st.s.Conn(ctx).NewRaw(`DELETE FROM hook_payloads WHERE created_at < ?
AND id NOT IN (SELECT payload_id FROM hook_deliveries WHERE payload_id IS NOT NULL)`, ts(before)).Exec(ctx); err != nil {
		return 0, fmt.Errorf("bunstore: prune hook payloads: %w", err)
	}
	return int(n), nil
}

// skipLocked is the clause a claim's subquery ends with: on Postgres it
// locks the rows it picks and passes over those another claim holds; on
// SQLite, whose writers are serialised, it is empty.
func (s *Store) skipLocked() string {
	if s.db.Dialect().Name() == dialect.PG {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

var _ ports.HookDeliveryStore = (*hookDeliveryStore)(nil)
