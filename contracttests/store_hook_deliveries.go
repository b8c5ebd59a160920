package contracttests

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// hookDeliveryCases are the subtests of the webhook outbox.
func hookDeliveryCases() []storeCase {
	return []storeCase{
		{"HookDeliveryEnqueueJoinsTx", storeHookDeliveryEnqueueJoinsTx},
		{"HookDeliveryClaimOrderAndMax", storeHookDeliveryClaimOrderAndMax},
		{"HookDeliveryReclaimExpired", storeHookDeliveryReclaimExpired},
		{"HookDeliveryRetryAndGiveUp", storeHookDeliveryRetryAndGiveUp},
		{"HookDeliveryListPrune", storeHookDeliveryListPrune},
		{"ConcurrentHookDeliveryClaims", storeConcurrentHookDeliveryClaims},
	}
}

// storeDelivery queues a delivery of event to hookID, due at next.
func storeDelivery(t *testing.T, s Stores, hookID int64, event string, next time.Time, maxAttempts int) *domain.HookDelivery {
	t.Helper()
	d := &domain.HookDelivery{HookID: hookID, Event: event, Payload: `{"object_kind":"push"}`,
		MaxAttempts: maxAttempts, NextAttemptAt: next, CreatedAt: storeT0}
	if err := s.HookDeliveries.Enqueue(t.Context(), d); err != nil {
		t.Fatalf("enqueue %s: %v", event, err)
	}
	return d
}

func storeDeliveryIDs(ds []domain.HookDelivery) []int64 {
	return storeIDs(ds, func(d domain.HookDelivery) int64 { return d.ID })
}

// storeDeliveryOf reads delivery id of the hook through List.
func storeDeliveryOf(t *testing.T, s Stores, hookID, id int64) domain.HookDelivery {
	t.Helper()
	list, _, err := s.HookDeliveries.List(t.Context(), hookID, domain.Page{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, d := range list {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("delivery %d not listed", id)
	return domain.HookDelivery{}
}

func storeClaimDeliveries(t *testing.T, s Stores, node string, now time.Time, lease time.Duration, max int) []domain.HookDelivery {
	t.Helper()
	got, err := s.HookDeliveries.Claim(t.Context(), node, now, lease, max)
	if err != nil {
		t.Fatalf("Claim by %s: %v", node, err)
	}
	return got
}

func storeHookDeliveryEnqueueJoinsTx(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	h := storeHook(t, s, p.ID, "http://a")
	rollback := errors.New("rollback")
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		d := &domain.HookDelivery{HookID: h.ID, Event: "Push Hook", Payload: "{}", MaxAttempts: 3}
		if err := s.HookDeliveries.Enqueue(ctx, d); err != nil {
			return err
		}
		if d.ID == 0 || d.State != domain.HookDeliveryPending {
			t.Errorf("Enqueue left %+v", d)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("WithinTx: %v", err)
	}
	list, n, err := s.HookDeliveries.List(ctx, h.ID, domain.Page{})
	storeWantList(t, "after rollback", storeDeliveryIDs(list), n, err, nil, 0)
	if got := storeClaimDeliveries(t, s, "a", time.Now().Add(time.Hour), time.Minute, 10); len(got) != 0 {
		t.Errorf("a rolled-back delivery was claimed: %v", storeDeliveryIDs(got))
	}

	var kept domain.HookDelivery
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		kept = domain.HookDelivery{HookID: h.ID, Event: "Push Hook", Payload: `{"a":1}`, MaxAttempts: 3, CreatedAt: storeT0}
		return s.HookDeliveries.Enqueue(ctx, &kept)
	})
	if err != nil {
		t.Fatalf("committed Enqueue: %v", err)
	}
	want := domain.HookDelivery{ID: kept.ID, HookID: h.ID, Event: "Push Hook", Payload: `{"a":1}`,
		State: domain.HookDeliveryPending, MaxAttempts: 3, NextAttemptAt: storeT0, CreatedAt: storeT0, UpdatedAt: storeT0}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("Enqueue (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, storeDeliveryOf(t, s, h.ID, kept.ID)); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	storeWantKind(t, s.HookDeliveries.Enqueue(ctx, &domain.HookDelivery{HookID: h.ID + 100, Event: "Push Hook", MaxAttempts: 1}),
		core.ErrNotFound, "Enqueue to a missing hook")
	storeWantKind(t, s.HookDeliveries.Enqueue(ctx, &domain.HookDelivery{HookID: h.ID, Event: "Push Hook"}),
		core.ErrInvalid, "Enqueue without max attempts")
}

func storeHookDeliveryClaimOrderAndMax(t *testing.T, s Stores) {
	p := storeCIProject(t, s, "p", nil)
	h := storeHook(t, s, p.ID, "http://a")
	late := storeDelivery(t, s, h.ID, "Push Hook", storeT0.Add(2*time.Second), 3)
	first := storeDelivery(t, s, h.ID, "Issue Hook", storeT0, 3)
	second := storeDelivery(t, s, h.ID, "Note Hook", storeT0.Add(time.Second), 3)
	future := storeDelivery(t, s, h.ID, "Push Hook", storeT0.Add(time.Hour), 3)
	now, lease := storeT0.Add(time.Minute), 2*time.Hour

	got := storeClaimDeliveries(t, s, "node-a", now, lease, 2)
	if diff := cmp.Diff([]int64{first.ID, second.ID}, storeDeliveryIDs(got)); diff != "" {
		t.Fatalf("first claim (-want +got):\n%s", diff)
	}
	expires := now.Add(lease)
	for _, d := range got {
		if d.State != domain.HookDeliveryRunning || d.ClaimedBy != "node-a" || d.Attempts != 1 ||
			d.ClaimExpiresAt == nil || !d.ClaimExpiresAt.Equal(expires) || d.Payload != `{"object_kind":"push"}` {
			t.Errorf("claimed %+v", d)
		}
	}
	if d := storeDeliveryOf(t, s, h.ID, first.ID); d.State != domain.HookDeliveryRunning || d.ClaimedBy != "node-a" {
		t.Errorf("stored after claim: %+v", d)
	}
	// A second claimer gets none of the first's rows.
	got = storeClaimDeliveries(t, s, "node-b", now, lease, 10)
	if diff := cmp.Diff([]int64{late.ID}, storeDeliveryIDs(got)); diff != "" {
		t.Errorf("second claim (-want +got):\n%s", diff)
	}
	if got := storeClaimDeliveries(t, s, "node-c", now, lease, 10); len(got) != 0 {
		t.Errorf("third claim took %v; the rest is not due", storeDeliveryIDs(got))
	}
	got = storeClaimDeliveries(t, s, "node-c", future.NextAttemptAt, lease, 10)
	if diff := cmp.Diff([]int64{future.ID}, storeDeliveryIDs(got)); diff != "" {
		t.Errorf("claim once due (-want +got):\n%s", diff)
	}
	if got := storeClaimDeliveries(t, s, "node-c", now, lease, 0); len(got) != 0 {
		t.Errorf("claim of 0 took %v", storeDeliveryIDs(got))
	}
}

func storeHookDeliveryReclaimExpired(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	h := storeHook(t, s, p.ID, "http://a")
	d := storeDelivery(t, s, h.ID, "Push Hook", storeT0, 3)
	lease := time.Minute
	if got := storeClaimDeliveries(t, s, "node-a", storeT0, lease, 1); len(got) != 1 {
		t.Fatalf("node-a claimed %v", storeDeliveryIDs(got))
	}
	if got := storeClaimDeliveries(t, s, "node-b", storeT0.Add(lease-time.Second), lease, 1); len(got) != 0 {
		t.Fatalf("node-b took a claim that had not expired: %v", storeDeliveryIDs(got))
	}
	// node-a crashed: once its claim expired, node-b takes the delivery.
	later := storeT0.Add(lease)
	got := storeClaimDeliveries(t, s, "node-b", later, lease, 1)
	if len(got) != 1 || got[0].ID != d.ID || got[0].ClaimedBy != "node-b" || got[0].Attempts != 2 {
		t.Fatalf("node-b reclaim = %+v", got)
	}
	ok := domain.HookAttempt{Status: 200, Duration: 1500 * time.Millisecond, At: later.Add(time.Second)}
	storeWantKind(t, s.HookDeliveries.Finish(ctx, d.ID, "node-a", ok), core.ErrStale, "Finish by the node that lost the claim")
	if cur := storeDeliveryOf(t, s, h.ID, d.ID); cur.State != domain.HookDeliveryRunning || cur.ClaimedBy != "node-b" || cur.LastStatus != 0 {
		t.Fatalf("a stale Finish changed the delivery: %+v", cur)
	}
	if err := s.HookDeliveries.Finish(ctx, d.ID, "node-b", ok); err != nil {
		t.Fatalf("Finish by node-b: %v", err)
	}
	cur := storeDeliveryOf(t, s, h.ID, d.ID)
	if cur.State != domain.HookDeliveryDelivered || cur.LastStatus != 200 || cur.LastError != "" ||
		cur.LastDuration != 1500*time.Millisecond || cur.DeliveredAt == nil || !cur.DeliveredAt.Equal(ok.At) ||
		cur.ClaimExpiresAt != nil || !cur.UpdatedAt.Equal(ok.At) || cur.Attempts != 2 {
		t.Errorf("delivered = %+v", cur)
	}
	storeWantKind(t, s.HookDeliveries.Finish(ctx, d.ID, "node-b", ok), core.ErrStale, "second Finish")
	storeWantKind(t, s.HookDeliveries.Finish(ctx, d.ID+100, "node-b", ok), core.ErrNotFound, "Finish of a missing delivery")
	if got := storeClaimDeliveries(t, s, "node-c", later.Add(time.Hour), lease, 10); len(got) != 0 {
		t.Errorf("a delivered delivery was claimed: %v", storeDeliveryIDs(got))
	}
}

func storeHookDeliveryRetryAndGiveUp(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	h := storeHook(t, s, p.ID, "http://a")
	d := storeDelivery(t, s, h.ID, "Push Hook", storeT0, 3)
	lease := time.Minute
	now := storeT0
	for attempt := 1; attempt <= 3; attempt++ {
		got := storeClaimDeliveries(t, s, "node-a", now, lease, 10)
		if len(got) != 1 || got[0].Attempts != attempt {
			t.Fatalf("attempt %d: claimed %+v", attempt, got)
		}
		next := now.Add(time.Duration(attempt) * 10 * time.Minute)
		fail := domain.HookAttempt{Status: 502, Err: "502 Bad Gateway", Duration: time.Second, At: now.Add(time.Second), Retry: true, NextAt: next}
		if err := s.HookDeliveries.Finish(ctx, d.ID, "node-a", fail); err != nil {
			t.Fatalf("attempt %d: Finish: %v", attempt, err)
		}
		cur := storeDeliveryOf(t, s, h.ID, d.ID)
		if cur.LastStatus != 502 || cur.LastError != "502 Bad Gateway" || cur.Attempts != attempt || cur.DeliveredAt != nil {
			t.Errorf("attempt %d: stored %+v", attempt, cur)
		}
		if attempt == 3 {
			if cur.State != domain.HookDeliveryFailed {
				t.Errorf("after the last attempt: state %s, want failed", cur.State)
			}
			break
		}
		if cur.State != domain.HookDeliveryPending || !cur.NextAttemptAt.Equal(next) {
			t.Errorf("attempt %d: state %s next %v, want pending at %v", attempt, cur.State, cur.NextAttemptAt, next)
		}
		if got := storeClaimDeliveries(t, s, "node-b", next.Add(-time.Second), lease, 10); len(got) != 0 {
			t.Fatalf("attempt %d: claimed before NextAt: %v", attempt, storeDeliveryIDs(got))
		}
		now = next
	}
	if got := storeClaimDeliveries(t, s, "node-b", now.Add(24*time.Hour), lease, 10); len(got) != 0 {
		t.Errorf("a failed delivery was claimed: %v", storeDeliveryIDs(got))
	}

	// A failure that asks for no retry (a 4xx) gives up at once.
	e := storeDelivery(t, s, h.ID, "Push Hook", storeT0, 5)
	if got := storeClaimDeliveries(t, s, "node-a", storeT0, lease, 10); len(got) != 1 || got[0].ID != e.ID {
		t.Fatalf("claim: %v", storeDeliveryIDs(got))
	}
	if err := s.HookDeliveries.Finish(ctx, e.ID, "node-a", domain.HookAttempt{Status: 404, Err: "404 Not Found", At: storeT0}); err != nil {
		t.Fatal(err)
	}
	if cur := storeDeliveryOf(t, s, h.ID, e.ID); cur.State != domain.HookDeliveryFailed || cur.Attempts != 1 || cur.LastStatus != 404 {
		t.Errorf("after a 404: %+v", cur)
	}
	// A connection error has no status.
	c := storeDelivery(t, s, h.ID, "Push Hook", storeT0, 5)
	storeClaimDeliveries(t, s, "node-a", storeT0, lease, 10)
	if err := s.HookDeliveries.Finish(ctx, c.ID, "node-a", domain.HookAttempt{Err: "connection refused", At: storeT0, Retry: true, NextAt: storeT0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if cur := storeDeliveryOf(t, s, h.ID, c.ID); cur.State != domain.HookDeliveryPending || cur.LastStatus != 0 || cur.LastError != "connection refused" {
		t.Errorf("after a connection error: %+v", cur)
	}
}

func storeHookDeliveryListPrune(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	h, other := storeHook(t, s, p.ID, "http://a"), storeHook(t, s, p.ID, "http://b")
	var ids []int64
	for i := range 4 {
		d := &domain.HookDelivery{HookID: h.ID, Event: "Push Hook", MaxAttempts: 1, CreatedAt: storeT0.Add(time.Duration(i) * time.Hour)}
		if err := s.HookDeliveries.Enqueue(ctx, d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	o := storeDelivery(t, s, other.ID, "Push Hook", storeT0, 1)
	list, n, err := s.HookDeliveries.List(ctx, h.ID, domain.Page{Page: 1, PerPage: 3})
	storeWantList(t, "page 1", storeDeliveryIDs(list), n, err, []int64{ids[3], ids[2], ids[1]}, 4)
	list, n, err = s.HookDeliveries.List(ctx, h.ID, domain.Page{Page: 2, PerPage: 3})
	storeWantList(t, "page 2", storeDeliveryIDs(list), n, err, []int64{ids[0]}, 4)
	list, n, err = s.HookDeliveries.List(ctx, other.ID+100, domain.Page{Page: 1, PerPage: 3})
	storeWantList(t, "missing hook", storeDeliveryIDs(list), n, err, nil, 0)

	// Finish the first three of h and the other hook's: deliver 0 and
	// the other's, fail 1; 2 stays running, 3 pending.
	claimed := storeClaimDeliveries(t, s, "n", storeT0.Add(10*time.Hour), time.Hour, 10)
	if len(claimed) != 5 {
		t.Fatalf("claimed %v", storeDeliveryIDs(claimed))
	}
	storeClaimDeliveries(t, s, "n", storeT0.Add(10*time.Hour), time.Hour, 10)
	finish := func(id int64, status int) {
		t.Helper()
		if err := s.HookDeliveries.Finish(ctx, id, "n", domain.HookAttempt{Status: status, At: storeT0.Add(11 * time.Hour)}); err != nil {
			t.Fatalf("Finish %d: %v", id, err)
		}
	}
	finish(ids[0], 200)
	finish(ids[1], 400)
	finish(o.ID, 204)
	// ids[3] back to pending via a retry, so it is unfinished too.
	if err := s.HookDeliveries.Finish(ctx, ids[3], "n", domain.HookAttempt{Status: 500, Retry: true, NextAt: storeT0}); err != nil {
		t.Fatal(err)
	}
	// max_attempts 1: that retry gave up. Enqueue an unfinished old one.
	pending := storeDelivery(t, s, h.ID, "Push Hook", storeT0.Add(100*time.Hour), 1)

	pruned, err := s.HookDeliveries.Prune(ctx, storeT0.Add(2*time.Hour))
	if err != nil || pruned != 3 {
		t.Fatalf("Prune = %d, %v; want 3 (ids[0], ids[1], the other hook's)", pruned, err)
	}
	list, n, err = s.HookDeliveries.List(ctx, h.ID, domain.Page{})
	storeWantList(t, "after Prune", storeDeliveryIDs(list), n, err, []int64{ids[3], ids[2], pending.ID}, 3)
	// pending has CreatedAt storeT0 and ids[2] is running: neither goes.
	if pruned, err := s.HookDeliveries.Prune(ctx, storeT0.Add(24*time.Hour)); err != nil || pruned != 1 {
		t.Fatalf("second Prune = %d, %v; want 1 (the failed ids[3])", pruned, err)
	}

	// Deleting the hook deletes its deliveries.
	if err := s.Hooks.Delete(ctx, p.ID, h.ID); err != nil {
		t.Fatal(err)
	}
	list, n, err = s.HookDeliveries.List(ctx, h.ID, domain.Page{})
	storeWantList(t, "after hook delete", storeDeliveryIDs(list), n, err, nil, 0)
}

// storeConcurrentHookDeliveryClaims races claimers as nodes do: each
// delivery is handed out exactly once.
func storeConcurrentHookDeliveryClaims(t *testing.T, s Stores) {
	const deliveries, claimers = 200, 8
	p := storeCIProject(t, s, "p", nil)
	h := storeHook(t, s, p.ID, "http://a")
	for i := range deliveries {
		storeDelivery(t, s, h.ID, fmt.Sprintf("Push Hook %d", i), storeT0, 3)
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	storeNoErrors(t, storeRaceN(claimers, func(i int) error {
		node := fmt.Sprintf("node-%d", i)
		for {
			got, err := s.HookDeliveries.Claim(t.Context(), node, storeT0, time.Hour, 7)
			if err != nil || len(got) == 0 {
				return err
			}
			for _, d := range got {
				mu.Lock()
				seen[d.ID]++
				mu.Unlock()
				if err := s.HookDeliveries.Finish(t.Context(), d.ID, node, domain.HookAttempt{Status: 200, At: storeT0}); err != nil {
					return fmt.Errorf("finish %d: %w", d.ID, err)
				}
			}
		}
	}))
	if len(seen) != deliveries {
		t.Errorf("%d deliveries handed out, want %d", len(seen), deliveries)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("delivery %d handed out %d times", id, n)
		}
	}
	list, _, err := s.HookDeliveries.List(t.Context(), h.ID, domain.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range list {
		if d.State != domain.HookDeliveryDelivered || d.Attempts != 1 {
			t.Errorf("delivery %d: state %s after %d attempts", d.ID, d.State, d.Attempts)
		}
	}
}
