package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// broadcastRow is a row of broadcast_messages (migration 0023).
type broadcastRow struct {
	bun.BaseModel `bun:"table:broadcast_messages,alias:bm"`

	ID        int64     `bun:"id,pk,autoincrement"`
	Message   string    `bun:"message"`
	StartsAt  time.Time `bun:"starts_at"`
	EndsAt    time.Time `bun:"ends_at"`
	Color     string    `bun:"color"`
	Font      string    `bun:"font"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`
}

func newBroadcastRow(m *domain.BroadcastMessage) *broadcastRow {
	c, u := created(m.CreatedAt, m.UpdatedAt)
	return &broadcastRow{ID: m.ID, Message: m.Message, StartsAt: ts(m.StartsAt), EndsAt: ts(m.EndsAt),
		Color: m.Color, Font: m.Font, CreatedAt: c, UpdatedAt: u}
}

func (r *broadcastRow) domain() domain.BroadcastMessage {
	return domain.BroadcastMessage{ID: r.ID, Message: r.Message, StartsAt: r.StartsAt.UTC(), EndsAt: r.EndsAt.UTC(),
		Color: r.Color, Font: r.Font, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

var broadcastTable = tableOf("Broadcast Message", (*broadcastRow).domain)

type broadcastStore struct{ s *Store }

func (st *broadcastStore) List(ctx context.Context, p domain.Page) ([]domain.BroadcastMessage, int, error) {
	out, n, err := broadcastTable.page(ctx, st.s.Conn(ctx).NewSelect().OrderExpr("bm.id"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list broadcast messages: %w", err)
	}
	return out, n, nil
}

// Current reads broadcast_messages_ends_at_idx from now on.
func (st *broadcastStore) Current(ctx context.Context, now time.Time) ([]domain.BroadcastMessage, error) {
	now = ts(now)
	out, err := broadcastTable.list(ctx, st.s.Conn(ctx).NewSelect().
		Where("bm.ends_at >= ? AND bm.starts_at <= ?", now, now).OrderExpr("bm.id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: current broadcast messages: %w", err)
	}
	return out, nil
}

func (st *broadcastStore) Get(ctx context.Context, id int64) (*domain.BroadcastMessage, error) {
	m, err := broadcastTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("bm.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get broadcast message %d: %w", id, err)
	}
	return m, nil
}

func (st *broadcastStore) Create(ctx context.Context, m *domain.BroadcastMessage) error {
	row := newBroadcastRow(m)
	row.ID = 0
	if err := st.s.insert(ctx, row, nil, "id"); err != nil {
		return fmt.Errorf("bunstore: create broadcast message: %w", err)
	}
	*m = row.domain()
	return nil
}

func (st *broadcastStore) Update(ctx context.Context, id int64, fn func(m *domain.BroadcastMessage) error) (*domain.BroadcastMessage, error) {
	save := func(ctx context.Context, db bun.IDB, old, m *domain.BroadcastMessage) (*domain.BroadcastMessage, error) {
		row := newBroadcastRow(m)
		row.ID, row.CreatedAt = old.ID, ts(old.CreatedAt)
		row.UpdatedAt = ts(edited(m.UpdatedAt, old.UpdatedAt))
		return broadcastTable.save(ctx, db, row, nil)
	}
	load := broadcastTable.locked(st.s, "bm.id = ?", id)
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update broadcast message %d: %w", id, err)
	})
}

func (st *broadcastStore) Delete(ctx context.Context, id int64) error {
	if err := broadcastTable.deleteOne(ctx, st.s.Conn(ctx), "id = ?", id); err != nil {
		return fmt.Errorf("bunstore: delete broadcast message %d: %w", id, err)
	}
	return nil
}

var _ ports.BroadcastMessageStore = (*broadcastStore)(nil)
