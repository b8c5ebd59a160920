package contracttests

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// broadcastStoreCases are the subtests of the broadcast message store.
// They skip when the adapter hands RunStoreSuite no BroadcastMessages.
func broadcastStoreCases() []storeCase {
	cases := []storeCase{
		{"BroadcastMessageCRUD", storeBroadcastCRUD},
		{"BroadcastMessageCurrent", storeBroadcastCurrent},
	}
	for i, c := range cases {
		fn := c.fn
		cases[i].fn = func(t *testing.T, s Stores) {
			if s.BroadcastMessages == nil {
				t.Skip("the adapter provides no BroadcastMessageStore")
			}
			fn(t, s)
		}
	}
	return cases
}

// storeBroadcast creates a message shown from start for d.
func storeBroadcast(t *testing.T, s Stores, text string, start time.Time, d time.Duration) *domain.BroadcastMessage {
	t.Helper()
	m := &domain.BroadcastMessage{Message: text, StartsAt: start, EndsAt: start.Add(d),
		Color: domain.DefaultBroadcastColor, Font: domain.DefaultBroadcastFont, CreatedAt: storeT0}
	if err := s.BroadcastMessages.Create(t.Context(), m); err != nil {
		t.Fatalf("create broadcast message %q: %v", text, err)
	}
	return m
}

func storeBroadcastIDs(ms []domain.BroadcastMessage) []int64 {
	return storeIDs(ms, func(m domain.BroadcastMessage) int64 { return m.ID })
}

func storeBroadcastCRUD(t *testing.T, s Stores) {
	ctx := t.Context()
	st := s.BroadcastMessages
	m := &domain.BroadcastMessage{Message: "Maintenance <b>tonight</b> ☕", StartsAt: storeT0, EndsAt: storeT0.Add(time.Hour),
		Color: "#abc", Font: "", CreatedAt: storeT0}
	if err := st.Create(ctx, m); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if m.ID == 0 {
		t.Fatal("Create left ID 0")
	}
	want := *m
	want.UpdatedAt = storeT0
	got, err := st.Get(ctx, m.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if _, err := st.Get(ctx, m.ID+1000); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Get unknown: %v, want ErrNotFound", err)
	}

	b := storeBroadcast(t, s, "b", storeT0, time.Minute)
	c := storeBroadcast(t, s, "c", storeT0, time.Minute)
	list, n, err := st.List(ctx, domain.Page{Page: 1, PerPage: 2})
	storeWantList(t, "page 1", storeBroadcastIDs(list), n, err, []int64{m.ID, b.ID}, 3)
	list, n, err = st.List(ctx, domain.Page{Page: 2, PerPage: 2})
	storeWantList(t, "page 2", storeBroadcastIDs(list), n, err, []int64{c.ID}, 3)

	// Update saves what fn changed, moves UpdatedAt, keeps CreatedAt.
	later := storeT0.Add(2 * time.Hour)
	up, err := st.Update(ctx, b.ID, func(x *domain.BroadcastMessage) error {
		x.Message, x.StartsAt, x.EndsAt, x.Color, x.Font = "b2", later, later.Add(time.Hour), "", "#123456"
		x.UpdatedAt = later
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	wantB := domain.BroadcastMessage{ID: b.ID, Message: "b2", StartsAt: later, EndsAt: later.Add(time.Hour),
		Font: "#123456", CreatedAt: storeT0, UpdatedAt: later}
	if diff := cmp.Diff(&wantB, up); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if got, err := st.Get(ctx, b.ID); err != nil || !cmp.Equal(&wantB, got) {
		t.Errorf("Get after Update = %+v, %v; want %+v", got, err, wantB)
	}
	// fn's error is returned as is and nothing is saved.
	boom := errors.New("boom")
	if _, err := st.Update(ctx, b.ID, func(x *domain.BroadcastMessage) error { x.Message = "lost"; return boom }); !errors.Is(err, boom) {
		t.Errorf("Update with failing fn: %v, want boom", err)
	}
	if got, _ := st.Get(ctx, b.ID); got == nil || got.Message != "b2" {
		t.Errorf("failed Update saved %+v", got)
	}
	if _, err := st.Update(ctx, c.ID+1000, func(*domain.BroadcastMessage) error { return nil }); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Update unknown: %v, want ErrNotFound", err)
	}

	if err := st.Delete(ctx, b.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := st.Delete(ctx, b.ID); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Delete again: %v, want ErrNotFound", err)
	}
	if _, err := st.Get(ctx, b.ID); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Get deleted: %v, want ErrNotFound", err)
	}
	list, n, err = st.List(ctx, domain.Page{Page: 1, PerPage: 20})
	storeWantList(t, "after delete", storeBroadcastIDs(list), n, err, []int64{m.ID, c.ID}, 2)
}

// storeBroadcastCurrent: a message shows from its start to its end, both
// included.
func storeBroadcastCurrent(t *testing.T, s Stores) {
	ctx := t.Context()
	past := storeBroadcast(t, s, "past", storeT0.Add(-2*time.Hour), time.Hour)
	now := storeBroadcast(t, s, "now", storeT0.Add(-time.Hour), 2*time.Hour)
	future := storeBroadcast(t, s, "future", storeT0.Add(time.Hour), time.Hour)
	endsNow := storeBroadcast(t, s, "ends now", storeT0.Add(-time.Minute), time.Minute)
	startsNow := storeBroadcast(t, s, "starts now", storeT0, time.Minute)
	at := func(when time.Time, want ...int64) {
		t.Helper()
		got, err := s.BroadcastMessages.Current(ctx, when)
		if err != nil {
			t.Fatalf("Current(%v): %v", when, err)
		}
		if want == nil {
			want = []int64{}
		}
		if diff := cmp.Diff(want, storeBroadcastIDs(got)); diff != "" {
			t.Errorf("Current(%v) (-want +got):\n%s", when, diff)
		}
	}
	at(storeT0, now.ID, endsNow.ID, startsNow.ID)
	at(storeT0.Add(-90*time.Minute), past.ID)
	at(storeT0.Add(90*time.Minute), future.ID)
	at(storeT0.Add(3 * time.Hour))
}
