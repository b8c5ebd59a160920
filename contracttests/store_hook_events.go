package contracttests

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func hookEventCases() []storeCase {
	return []storeCase{
		{"HookEventAddJoinsTx", storeHookEventAddJoinsTx},
		{"HookEventClaimAndDone", storeHookEventClaimAndDone},
		{"ConcurrentHookEventClaims", storeConcurrentHookEventClaims},
	}
}

// storeHookEventAddJoinsTx: an event commits and rolls back with the
// change that adds it.
func storeHookEventAddJoinsTx(t *testing.T, s Stores) {
	ctx := t.Context()
	if s.HookEvents == nil {
		t.Skip("no HookEvents store")
	}
	rollback := errors.New("roll back")
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		e := &domain.HookEvent{Kind: "issue", Data: `{"a":1}`}
		if err := s.HookEvents.Add(ctx, e); err != nil || e.ID == 0 || e.CreatedAt.IsZero() {
			t.Errorf("Add in a transaction = %+v, %v", e, err)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if got, err := s.HookEvents.Claim(ctx, "n", storeT0.Add(time.Hour), time.Minute, 10); err != nil || len(got) != 0 {
		t.Fatalf("claim after a rollback = %+v, %v; want none", got, err)
	}
	e := &domain.HookEvent{Kind: "issue", Data: `{"b":2}`, CreatedAt: storeT0}
	if err := s.Tx.WithinTx(ctx, func(ctx context.Context) error { return s.HookEvents.Add(ctx, e) }); err != nil {
		t.Fatal(err)
	}
	got, err := s.HookEvents.Claim(ctx, "n", storeT0, time.Minute, 10)
	if err != nil || len(got) != 1 || got[0].ID != e.ID || got[0].Kind != "issue" || got[0].Data != `{"b":2}` ||
		!got[0].CreatedAt.Equal(storeT0) || got[0].Attempts != 1 || got[0].ClaimedBy != "n" {
		t.Fatalf("claim = %+v, %v", got, err)
	}
}

// storeHookEventClaimAndDone: oldest first, at most max; a claim holds
// until it expires, then another node takes the event over and the first
// node's Done is stale; Done deletes.
func storeHookEventClaimAndDone(t *testing.T, s Stores) {
	ctx := t.Context()
	if s.HookEvents == nil {
		t.Skip("no HookEvents store")
	}
	var ids []int64
	for i := range 3 {
		e := &domain.HookEvent{Kind: "push", Data: fmt.Sprintf(`{"i":%d}`, i), CreatedAt: storeT0}
		if err := s.HookEvents.Add(ctx, e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	lease := time.Minute
	a, err := s.HookEvents.Claim(ctx, "a", storeT0, lease, 2)
	if err != nil || len(a) != 2 || a[0].ID != ids[0] || a[1].ID != ids[1] {
		t.Fatalf("a claimed %+v, %v; want the two oldest", a, err)
	}
	b, err := s.HookEvents.Claim(ctx, "b", storeT0.Add(lease-time.Second), lease, 10)
	if err != nil || len(b) != 1 || b[0].ID != ids[2] {
		t.Fatalf("b claimed %+v, %v; want only the unclaimed one", b, err)
	}
	if err := s.HookEvents.Done(ctx, ids[0], "a"); err != nil {
		t.Fatalf("Done by the claimer: %v", err)
	}
	if err := s.HookEvents.Done(ctx, ids[0], "a"); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("second Done: %v, want not found", err)
	}
	// a and b crashed holding ids[1] and ids[2]: once their claims
	// expired, c takes both over.
	c, err := s.HookEvents.Claim(ctx, "c", storeT0.Add(2*lease), lease, 10)
	if err != nil || len(c) != 2 || c[0].ID != ids[1] || c[0].Attempts != 2 || c[1].ID != ids[2] {
		t.Fatalf("c claimed %+v, %v; want the expired claims", c, err)
	}
	if err := s.HookEvents.Done(ctx, ids[1], "a"); !errors.Is(err, core.ErrStale) {
		t.Fatalf("Done by the node that lost the claim: %v, want stale", err)
	}
	// Done joins the transaction that fans the event out.
	rollback := errors.New("roll back")
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.HookEvents.Done(ctx, ids[1], "c"); err != nil {
			t.Errorf("Done in a transaction: %v", err)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	for _, id := range []int64{ids[1], ids[2]} {
		if err := s.HookEvents.Done(ctx, id, "c"); err != nil {
			t.Fatalf("Done %d after the rollback: %v", id, err)
		}
	}
	if got, err := s.HookEvents.Claim(ctx, "d", storeT0.Add(24*time.Hour), lease, 10); err != nil || len(got) != 0 {
		t.Fatalf("claim after every Done = %+v, %v", got, err)
	}
}

// storeConcurrentHookEventClaims: concurrent claimers never take the same
// event.
func storeConcurrentHookEventClaims(t *testing.T, s Stores) {
	if s.HookEvents == nil {
		t.Skip("no HookEvents store")
	}
	const events, claimers = 200, 8
	for i := range events {
		if err := s.HookEvents.Add(t.Context(), &domain.HookEvent{Kind: "issue", Data: fmt.Sprint(i), CreatedAt: storeT0}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	storeNoErrors(t, storeRaceN(claimers, func(i int) error {
		node := fmt.Sprintf("node-%d", i)
		for {
			got, err := s.HookEvents.Claim(t.Context(), node, storeT0, time.Hour, 7)
			if err != nil || len(got) == 0 {
				return err
			}
			for _, e := range got {
				mu.Lock()
				seen[e.ID]++
				mu.Unlock()
				if err := s.HookEvents.Done(t.Context(), e.ID, node); err != nil {
					return fmt.Errorf("done %d: %w", e.ID, err)
				}
			}
		}
	}))
	if len(seen) != events {
		t.Errorf("%d events handed out, want %d", len(seen), events)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %d handed out %d times", id, n)
		}
	}
}
