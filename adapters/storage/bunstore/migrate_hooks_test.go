package bunstore

import (
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestMigrationMovesProjectHooks: migration 0014 moves project_hooks into
// web_hooks and rebuilds hook_deliveries, keeping ids and rows, and new
// rows get ids after the moved ones.
func TestMigrationMovesProjectHooks(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		migrateBefore(t, st, "0014")
		p := seedProject(t, ctx, st)
		t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		// Ids well past 1, as a database with history has them.
		exec(`INSERT INTO project_hooks (id, project_id, url, token, note_events, failure_count, created_at, updated_at)
			VALUES (41, ?, 'http://a', 'tok', TRUE, 2, ?, ?)`, p.ID, t0, t0)
		exec(`INSERT INTO hook_deliveries (id, hook_id, event, payload, state, attempts, max_attempts, next_attempt_at,
			last_status, last_error, created_at, updated_at) VALUES (77, 41, 'Push Hook', '{"a":1}', 'failed', 2, 2, ?, 502, 'bad', ?, ?)`, t0, t0, t0)

		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		h, err := st.Hooks().Get(ctx, p.ID, 41)
		if err != nil {
			t.Fatalf("moved hook: %v", err)
		}
		if h.URL != "http://a" || h.Token != "tok" || !h.NoteEvents || !h.PushEvents || h.FailureCount != 2 || !h.CreatedAt.Equal(t0) {
			t.Errorf("moved hook = %+v", h)
		}
		d, err := st.HookDeliveries().Get(ctx, 41, 77)
		if err != nil {
			t.Fatalf("moved delivery: %v", err)
		}
		if d.Event != "Push Hook" || d.Payload != `{"a":1}` || d.State != domain.HookDeliveryFailed || d.Attempts != 2 ||
			d.LastStatus != 502 || d.LastError != "bad" || d.LastResponse != "" || !d.NextAttemptAt.Equal(t0) {
			t.Errorf("moved delivery = %+v", d)
		}
		// New rows take ids after the copied ones (Postgres' sequences
		// were reset), and the hook still cascades to its deliveries.
		nh := domain.NewProjectHook(p.ID, "http://b")
		if err := st.Hooks().Create(ctx, &nh); err != nil {
			t.Fatal(err)
		}
		sh := domain.NewSystemHook("http://s")
		if err := st.SystemHooks().Create(ctx, &sh); err != nil {
			t.Fatal(err)
		}
		nd := &domain.HookDelivery{HookID: 41, Event: "Push Hook", MaxAttempts: 1}
		if err := st.HookDeliveries().Enqueue(ctx, nd); err != nil {
			t.Fatal(err)
		}
		if nh.ID <= 41 || sh.ID <= nh.ID || nd.ID <= 77 {
			t.Errorf("new ids: hook %d, system hook %d, delivery %d; want after 41 and 77", nh.ID, sh.ID, nd.ID)
		}
		if err := st.Hooks().Delete(ctx, p.ID, 41); err != nil {
			t.Fatal(err)
		}
		if _, n, err := st.HookDeliveries().List(ctx, 41, domain.Page{}); err != nil || n != 0 {
			t.Errorf("deliveries of the deleted hook: %d, %v", n, err)
		}
		// A project hook needs a project, a system hook has none.
		if _, err := db.ExecContext(ctx, `INSERT INTO web_hooks (type, url, created_at, updated_at) VALUES ('ProjectHook', 'http://x', ?, ?)`, t0, t0); err == nil {
			t.Error("a project hook without a project was inserted")
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO web_hooks (type, project_id, url, created_at, updated_at) VALUES ('SystemHook', ?, 'http://x', ?, ?)`, p.ID, t0, t0); err == nil {
			t.Error("a system hook with a project was inserted")
		}
	})
}
