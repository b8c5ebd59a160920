package contracttests

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// systemHookCases are the subtests of system hooks, hook routing and the
// outbox's dealings with hooks (targets, disabling, failure records).
func systemHookCases() []storeCase {
	return []storeCase{
		{"SystemHookCRUD", storeSystemHookCRUD},
		{"SystemHooksApartFromProjectHooks", storeSystemHooksApart},
		{"HookRouterHooksFor", storeHookRouterHooksFor},
		{"HookDeliveryClaimTargetsSkipsDisabled", storeHookDeliveryClaimTargets},
		{"HookDeliveryFinishFailureRecord", storeHookDeliveryFinishFailureRecord},
		{"HookDeliveryGetRecord", storeHookDeliveryGetRecord},
		{"HookDeliveryCascades", storeHookDeliveryCascades},
		{"HookDeliveryEnqueueFor", storeHookDeliveryEnqueueFor},
	}
}

// storeSystemHook creates a system hook with GitLab's defaults and url.
func storeSystemHook(t *testing.T, s Stores, url string, mod func(h *domain.SystemHook)) *domain.SystemHook {
	t.Helper()
	h := domain.NewSystemHook(url)
	h.CreatedAt = storeT0
	if mod != nil {
		mod(&h)
	}
	if err := s.SystemHooks.Create(t.Context(), &h); err != nil {
		t.Fatalf("create system hook %s: %v", url, err)
	}
	return &h
}

func storeSystemHookIDs(hs []domain.SystemHook) []int64 {
	return storeIDs(hs, func(h domain.SystemHook) int64 { return h.ID })
}

func storeSystemHookCRUD(t *testing.T, s Stores) {
	ctx := t.Context()
	until := storeT0.Add(time.Hour)
	h := &domain.SystemHook{URL: "https://example.com/sys", Token: "s3cr3t <&>", TagPushEvents: true,
		FailureCount: 2, DisabledUntil: &until, CreatedAt: storeT0}
	if err := s.SystemHooks.Create(ctx, h); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if h.ID == 0 {
		t.Fatal("Create left ID 0")
	}
	want := *h
	want.UpdatedAt = storeT0
	got, err := s.SystemHooks.Get(ctx, h.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	d := storeSystemHook(t, s, "http://d", nil)
	if got, err := s.SystemHooks.Get(ctx, d.ID); err != nil || !got.PushEvents || !got.EnableSSLVerification || got.TagPushEvents {
		t.Errorf("default system hook = %+v, %v", got, err)
	}
	c := storeSystemHook(t, s, "http://c", nil)
	list, n, err := s.SystemHooks.List(ctx, domain.Page{Page: 1, PerPage: 2})
	storeWantList(t, "page 1", storeSystemHookIDs(list), n, err, []int64{h.ID, d.ID}, 3)
	list, n, err = s.SystemHooks.List(ctx, domain.Page{Page: 2, PerPage: 2})
	storeWantList(t, "page 2", storeSystemHookIDs(list), n, err, []int64{c.ID}, 3)

	if err := s.SystemHooks.Delete(ctx, d.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	storeWantKind(t, s.SystemHooks.Delete(ctx, d.ID), core.ErrNotFound, "second Delete")
	_, err = s.SystemHooks.Get(ctx, d.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get of a deleted system hook")
	list, n, err = s.SystemHooks.List(ctx, domain.Page{})
	storeWantList(t, "after Delete", storeSystemHookIDs(list), n, err, []int64{h.ID, c.ID}, 2)
}

// storeSystemHooksApart: the two kinds share ids but neither store sees
// the other's hooks.
func storeSystemHooksApart(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	ph := storeHook(t, s, p.ID, "http://project")
	sh := storeSystemHook(t, s, "http://system", nil)
	if ph.ID == sh.ID {
		t.Fatalf("a project hook and a system hook share id %d", ph.ID)
	}
	_, err := s.SystemHooks.Get(ctx, ph.ID)
	storeWantKind(t, err, core.ErrNotFound, "SystemHooks.Get of a project hook")
	storeWantKind(t, s.SystemHooks.Delete(ctx, ph.ID), core.ErrNotFound, "SystemHooks.Delete of a project hook")
	_, err = s.Hooks.Get(ctx, p.ID, sh.ID)
	storeWantKind(t, err, core.ErrNotFound, "Hooks.Get of a system hook")
	storeWantKind(t, s.Hooks.Delete(ctx, p.ID, sh.ID), core.ErrNotFound, "Hooks.Delete of a system hook")
	_, err = s.Hooks.Update(ctx, p.ID, sh.ID, func(*domain.ProjectHook) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Hooks.Update of a system hook")

	list, n, err := s.SystemHooks.List(ctx, domain.Page{})
	storeWantList(t, "system hooks", storeSystemHookIDs(list), n, err, []int64{sh.ID}, 1)
	plist, n, err := s.Hooks.List(ctx, p.ID, domain.Page{})
	storeWantList(t, "project hooks", storeIDs(plist, func(h domain.ProjectHook) int64 { return h.ID }), n, err, []int64{ph.ID}, 1)
	if _, err := s.Hooks.Get(ctx, p.ID, ph.ID); err != nil {
		t.Errorf("the project hook after the refused deletes: %v", err)
	}
	if _, err := s.SystemHooks.Get(ctx, sh.ID); err != nil {
		t.Errorf("the system hook after the refused deletes: %v", err)
	}
}

func storeHookRouterHooksFor(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	a := storeHook(t, s, p.ID, "http://a") // push only
	b := &domain.ProjectHook{ProjectID: p.ID, URL: "http://b", TagPushEvents: true, IssuesEvents: true,
		ConfidentialIssuesEvents: true, MergeRequestsEvents: true, CreatedAt: storeT0}
	c := &domain.ProjectHook{ProjectID: p.ID, URL: "http://c", NoteEvents: true, JobEvents: true,
		PipelineEvents: true, WikiPageEvents: true, CreatedAt: storeT0}
	for _, h := range []*domain.ProjectHook{b, c} {
		if err := s.Hooks.Create(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	o := storeHook(t, s, other.ID, "http://other")
	s1 := storeSystemHook(t, s, "http://s1", nil) // push
	s2 := storeSystemHook(t, s, "http://s2", func(h *domain.SystemHook) { h.PushEvents, h.TagPushEvents = false, true })
	s3 := storeSystemHook(t, s, "http://s3", func(h *domain.SystemHook) { h.PushEvents = false })
	// A disabled hook is routed to all the same.
	until := storeT0.Add(24 * time.Hour)
	if _, err := s.Hooks.Update(ctx, p.ID, a.ID, func(h *domain.ProjectHook) error { h.DisabledUntil = &until; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		project int64
		kind    domain.HookEventKind
		want    []int64
	}{
		{p.ID, domain.HookPush, []int64{a.ID, s1.ID}},
		{p.ID, domain.HookTagPush, []int64{b.ID, s2.ID}},
		{p.ID, domain.HookIssues, []int64{b.ID}},
		{p.ID, domain.HookConfidentialIssues, []int64{b.ID}},
		{p.ID, domain.HookMergeRequests, []int64{b.ID}},
		{p.ID, domain.HookNotes, []int64{c.ID}},
		{p.ID, domain.HookJobs, []int64{c.ID}},
		{p.ID, domain.HookPipelines, []int64{c.ID}},
		{p.ID, domain.HookWikiPages, []int64{c.ID}},
		{p.ID, domain.HookSystem, []int64{s1.ID, s2.ID, s3.ID}},
		{0, domain.HookSystem, []int64{s1.ID, s2.ID, s3.ID}},
		{other.ID, domain.HookPush, []int64{o.ID, s1.ID}},
		{other.ID, domain.HookIssues, []int64{}},
		{0, domain.HookPush, []int64{s1.ID}},
		{p.ID + 100, domain.HookTagPush, []int64{s2.ID}},
	} {
		got, err := s.HookRouter.HooksFor(ctx, tc.project, tc.kind)
		if err != nil {
			t.Errorf("HooksFor(%d, %s): %v", tc.project, tc.kind, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("HooksFor(%d, %s) (-want +got):\n%s", tc.project, tc.kind, diff)
		}
	}
	for _, kind := range []domain.HookEventKind{"", "id", "push_events OR 1=1", "system_hooks"} {
		if got, err := s.HookRouter.HooksFor(ctx, p.ID, kind); err == nil {
			t.Errorf("HooksFor of unknown kind %q = %v, want an error", kind, got)
		}
	}
}

func storeHookDeliveryClaimTargets(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	a := &domain.ProjectHook{ProjectID: p.ID, URL: "https://a/hook", Token: "tok-a", PushEvents: true, CreatedAt: storeT0}
	if err := s.Hooks.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	until := storeT0.Add(time.Hour)
	off := &domain.ProjectHook{ProjectID: p.ID, URL: "https://off", PushEvents: true, DisabledUntil: &until, CreatedAt: storeT0}
	if err := s.Hooks.Create(ctx, off); err != nil {
		t.Fatal(err)
	}
	sys := storeSystemHook(t, s, "https://sys", func(h *domain.SystemHook) { h.Token = "tok-s" })
	// The disabled hook's delivery is the oldest: it still waits.
	waiting := storeDelivery(t, s, off.ID, "Push Hook", storeT0.Add(-time.Minute), 3)
	da := storeDelivery(t, s, a.ID, "Push Hook", storeT0, 3)
	ds := storeDelivery(t, s, sys.ID, "Push Hook", storeT0.Add(time.Second), 3)
	// The hook is edited after the delivery was queued: the current URL wins.
	if _, err := s.Hooks.Update(ctx, p.ID, a.ID, func(h *domain.ProjectHook) error {
		h.URL, h.EnableSSLVerification = "https://a/new", false
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := storeClaimDeliveries(t, s, "n", storeT0.Add(time.Minute), time.Hour, 10)
	if diff := cmp.Diff([]int64{da.ID, ds.ID}, storeDeliveryIDs(got)); diff != "" {
		t.Fatalf("claim while a hook is disabled (-want +got):\n%s", diff)
	}
	wantTargets := []domain.HookTarget{
		{URL: "https://a/new", Token: "tok-a", VerifyTLS: false},
		{URL: "https://sys", Token: "tok-s", VerifyTLS: true, System: true},
	}
	if diff := cmp.Diff(wantTargets, []domain.HookTarget{got[0].Target, got[1].Target}); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if got := storeClaimDeliveries(t, s, "n", until.Add(-time.Second), time.Hour, 10); len(got) != 0 {
		t.Errorf("claimed %v before the hook was enabled again", storeDeliveryIDs(got))
	}
	got = storeClaimDeliveries(t, s, "n", until, time.Hour, 10)
	if len(got) != 1 || got[0].ID != waiting.ID || got[0].Target != (domain.HookTarget{URL: "https://off"}) {
		t.Errorf("claim once the hook is enabled = %+v", got)
	}
}

// storeFinishOne queues, claims and finishes one delivery to hookID.
func storeFinishOne(t *testing.T, s Stores, hookID int64, at time.Time, a domain.HookAttempt) *domain.HookDelivery {
	t.Helper()
	d := storeDelivery(t, s, hookID, "Push Hook", at, 1)
	got := storeClaimDeliveries(t, s, "n", at, time.Hour, 10)
	if len(got) != 1 || got[0].ID != d.ID {
		t.Fatalf("claim at %v = %v, want [%d]", at, storeDeliveryIDs(got), d.ID)
	}
	a.At = at
	if err := s.HookDeliveries.Finish(t.Context(), d.ID, "n", a); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return d
}

func storeHookDeliveryFinishFailureRecord(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	h := storeHook(t, s, p.ID, "http://a")
	record := func(what string, count int, until *time.Time) {
		t.Helper()
		got, err := s.Hooks.Get(ctx, p.ID, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.FailureCount != count || !cmp.Equal(got.DisabledUntil, until) {
			t.Errorf("%s: failure count %d, disabled until %v; want %d, %v", what, got.FailureCount, got.DisabledUntil, count, until)
		}
	}
	fail := domain.HookAttempt{Status: 500, Err: "500 Internal Server Error", Response: "oops", DisableAfter: 3}
	at := storeT0
	d := storeFinishOne(t, s, h.ID, at, fail)
	record("after 1 failure", 1, nil)
	if got, err := s.HookDeliveries.Get(ctx, h.ID, d.ID); err != nil || got.LastResponse != "oops" || got.State != domain.HookDeliveryFailed {
		t.Errorf("failed delivery = %+v, %v", got, err)
	}
	at = at.Add(time.Minute)
	storeFinishOne(t, s, h.ID, at, fail)
	record("after 2 failures", 2, nil)
	at = at.Add(time.Minute)
	storeFinishOne(t, s, h.ID, at, fail)
	until := at.Add(domain.HookDisableBackoff(3, 3))
	record("after 3 failures", 3, &until)
	// Disabled: a new delivery waits for until.
	next := storeDelivery(t, s, h.ID, "Push Hook", at, 1)
	if got := storeClaimDeliveries(t, s, "n", until.Add(-time.Second), time.Hour, 10); len(got) != 0 {
		t.Fatalf("claimed %v from a disabled hook", storeDeliveryIDs(got))
	}
	if got := storeClaimDeliveries(t, s, "n", until, time.Hour, 10); len(got) != 1 || got[0].ID != next.ID {
		t.Fatalf("claim once enabled = %v", storeDeliveryIDs(got))
	}
	at = until
	if err := s.HookDeliveries.Finish(ctx, next.ID, "n", domain.HookAttempt{Err: "connection refused", At: at, DisableAfter: 3}); err != nil {
		t.Fatal(err)
	}
	until = at.Add(domain.HookDisableBackoff(4, 3))
	record("after 4 failures", 4, &until)
	if until.Sub(at) != 2*time.Minute {
		t.Errorf("the backoff after 4 failures is %v, want it doubled to 2m", until.Sub(at))
	}
	// A stale Finish changes nothing.
	storeWantKind(t, s.HookDeliveries.Finish(ctx, next.ID, "n", domain.HookAttempt{Status: 200, At: at}), core.ErrStale, "stale Finish")
	record("after a stale Finish", 4, &until)
	// A success resets the record.
	ok := storeFinishOne(t, s, h.ID, until, domain.HookAttempt{Status: 200, Response: "thanks", DisableAfter: 3})
	record("after a success", 0, nil)
	if got, err := s.HookDeliveries.Get(ctx, h.ID, ok.ID); err != nil || got.LastResponse != "thanks" || got.State != domain.HookDeliveryDelivered {
		t.Errorf("delivered = %+v, %v", got, err)
	}
	// DisableAfter 0 counts failures but never disables.
	for i := range 5 {
		storeFinishOne(t, s, h.ID, until.Add(time.Duration(i+1)*time.Minute), domain.HookAttempt{Status: 502, Err: "502"})
	}
	record("after 5 failures without a threshold", 5, nil)

	// A system hook keeps its record the same way, and other hooks are
	// left alone.
	sys := storeSystemHook(t, s, "http://sys", nil)
	storeFinishOne(t, s, sys.ID, storeT0.Add(48*time.Hour), domain.HookAttempt{Status: 404, Err: "404", DisableAfter: 1})
	got, err := s.SystemHooks.Get(ctx, sys.ID)
	wantUntil := storeT0.Add(48*time.Hour + domain.HookDisableBackoff(1, 1))
	if err != nil || got.FailureCount != 1 || got.DisabledUntil == nil || !got.DisabledUntil.Equal(wantUntil) {
		t.Errorf("system hook after a failure = %+v, %v; want disabled until %v", got, err, wantUntil)
	}
	record("the project hook after the system hook's failure", 5, nil)
}

func storeHookDeliveryGetRecord(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	h, other := storeHook(t, s, p.ID, "http://a"), storeHook(t, s, p.ID, "http://b")
	delivered := storeT0.Add(time.Second)
	d := &domain.HookDelivery{HookID: h.ID, Event: "Push Hook", Payload: `{"test":true}`,
		State: domain.HookDeliveryDelivered, Attempts: 1, MaxAttempts: 1, LastStatus: 200,
		LastDuration: 250 * time.Millisecond, LastResponse: "ok <b>", CreatedAt: storeT0, DeliveredAt: &delivered}
	if err := s.HookDeliveries.Record(ctx, d); err != nil {
		t.Fatalf("Record: %v", err)
	}
	if d.ID == 0 {
		t.Fatal("Record left ID 0")
	}
	want := domain.HookDelivery{ID: d.ID, HookID: h.ID, Event: "Push Hook", Payload: `{"test":true}`,
		State: domain.HookDeliveryDelivered, Attempts: 1, MaxAttempts: 1, NextAttemptAt: storeT0, LastStatus: 200,
		LastDuration: 250 * time.Millisecond, LastResponse: "ok <b>", CreatedAt: storeT0, UpdatedAt: storeT0, DeliveredAt: &delivered}
	if diff := cmp.Diff(want, *d); diff != "" {
		t.Errorf("Record (-want +got):\n%s", diff)
	}
	got, err := s.HookDeliveries.Get(ctx, h.ID, d.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, storeDeliveryOf(t, s, h.ID, d.ID)); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	failed := &domain.HookDelivery{HookID: h.ID, Event: "Push Hook", State: domain.HookDeliveryFailed, Attempts: 1,
		LastError: "connection refused", CreatedAt: storeT0}
	if err := s.HookDeliveries.Record(ctx, failed); err != nil {
		t.Fatalf("Record failed: %v", err)
	}
	if got, err := s.HookDeliveries.Get(ctx, h.ID, failed.ID); err != nil || got.State != domain.HookDeliveryFailed ||
		got.LastStatus != 0 || got.LastError != "connection refused" || got.DeliveredAt != nil {
		t.Errorf("recorded failure = %+v, %v", got, err)
	}
	// Recorded deliveries are finished: no claim takes them.
	if got := storeClaimDeliveries(t, s, "n", storeT0.Add(time.Hour), time.Hour, 10); len(got) != 0 {
		t.Errorf("claimed recorded deliveries %v", storeDeliveryIDs(got))
	}
	_, err = s.HookDeliveries.Get(ctx, other.ID, d.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get through another hook")
	_, err = s.HookDeliveries.Get(ctx, h.ID, failed.ID+100)
	storeWantKind(t, err, core.ErrNotFound, "Get of a missing delivery")
	storeWantKind(t, s.HookDeliveries.Record(ctx, &domain.HookDelivery{HookID: other.ID + 100, Event: "Push Hook",
		State: domain.HookDeliveryDelivered, Attempts: 1}), core.ErrNotFound, "Record to a missing hook")
}

// storeHookDeliveryCascades: deleting a hook (either kind) or the
// project deletes the deliveries.
func storeHookDeliveryCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	p, keep := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "keep", nil)
	h := storeHook(t, s, p.ID, "http://a")
	k := storeHook(t, s, keep.ID, "http://keep")
	sys := storeSystemHook(t, s, "http://sys", nil)
	dh := storeDelivery(t, s, h.ID, "Push Hook", storeT0, 1)
	dk := storeDelivery(t, s, k.ID, "Push Hook", storeT0, 1)
	ds := storeDelivery(t, s, sys.ID, "System Hook", storeT0, 1)
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatalf("delete project: %v", err)
	}
	_, err := s.HookDeliveries.Get(ctx, h.ID, dh.ID)
	storeWantKind(t, err, core.ErrNotFound, "delivery of a deleted project's hook")
	if err := s.SystemHooks.Delete(ctx, sys.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.HookDeliveries.Get(ctx, sys.ID, ds.ID)
	storeWantKind(t, err, core.ErrNotFound, "delivery of a deleted system hook")
	if _, err := s.HookDeliveries.Get(ctx, k.ID, dk.ID); err != nil {
		t.Errorf("another project's delivery: %v", err)
	}
	if got := storeClaimDeliveries(t, s, "n", storeT0, time.Hour, 10); len(got) != 1 || got[0].ID != dk.ID {
		t.Errorf("claim after the deletes = %v, want [%d]", storeDeliveryIDs(got), dk.ID)
	}
}

// storeHookDeliveryEnqueueFor: one call queues a copy for each hook that
// still exists, project and system hooks alike, in the caller's
// transaction; a deleted hook is skipped, and nothing is queued when the
// transaction rolls back.
func storeHookDeliveryEnqueueFor(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	a := storeHook(t, s, p.ID, "http://a")
	b := storeHook(t, s, p.ID, "http://b")
	sys := storeSystemHook(t, s, "http://sys", nil)
	gone := storeHook(t, s, p.ID, "http://gone")
	if err := s.Hooks.Delete(ctx, p.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	d := domain.HookDelivery{Event: domain.HookEventPush, Payload: `{"object_kind":"push"}`, MaxAttempts: 3, CreatedAt: storeT0}
	n, err := s.HookDeliveries.EnqueueFor(ctx, []int64{a.ID, gone.ID, b.ID, sys.ID}, d)
	if err != nil || n != 3 {
		t.Fatalf("EnqueueFor = %d, %v; want 3", n, err)
	}
	for _, h := range []int64{a.ID, b.ID, sys.ID} {
		list, total, err := s.HookDeliveries.List(ctx, h, domain.Page{Page: 1, PerPage: 10})
		if err != nil || total != 1 || len(list) != 1 {
			t.Fatalf("hook %d: %d deliveries (%v)", h, total, err)
		}
		got := list[0]
		if got.Event != d.Event || got.Payload != d.Payload || got.MaxAttempts != 3 || got.State != domain.HookDeliveryPending ||
			got.Attempts != 0 || !got.NextAttemptAt.Equal(storeT0) || !got.CreatedAt.Equal(storeT0) {
			t.Fatalf("hook %d: queued %+v", h, got)
		}
	}
	if n, err := s.HookDeliveries.EnqueueFor(ctx, nil, d); err != nil || n != 0 {
		t.Fatalf("EnqueueFor of no hooks = %d, %v", n, err)
	}
	if _, err := s.HookDeliveries.EnqueueFor(ctx, []int64{a.ID}, domain.HookDelivery{Event: "x"}); !errors.Is(err, core.ErrInvalid) {
		t.Fatalf("EnqueueFor without attempts: %v, want ErrInvalid", err)
	}
	// In a transaction that rolls back, nothing stays queued.
	rollback := errors.New("roll back")
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if n, err := s.HookDeliveries.EnqueueFor(ctx, []int64{a.ID, b.ID}, d); err != nil || n != 2 {
			t.Errorf("EnqueueFor in a transaction = %d, %v", n, err)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("WithinTx: %v", err)
	}
	if _, total, _ := s.HookDeliveries.List(ctx, a.ID, domain.Page{Page: 1, PerPage: 10}); total != 1 {
		t.Fatalf("hook a has %d deliveries after a rollback, want 1", total)
	}
	// The copies carry the body wherever they are read: claimed for
	// sending, one by one, and after the others are pruned.
	claimed := storeClaimDeliveries(t, s, "node-a", storeT0, time.Minute, 10)
	if len(claimed) != 3 {
		t.Fatalf("claimed %v, want the 3 queued", storeDeliveryIDs(claimed))
	}
	for _, c := range claimed {
		if c.Payload != d.Payload {
			t.Errorf("claimed delivery %d payload %q, want %q", c.ID, c.Payload, d.Payload)
		}
		at := domain.HookAttempt{Status: 200, At: storeT0.Add(time.Second)}
		if c.HookID == a.ID {
			at = domain.HookAttempt{Status: 500, At: storeT0.Add(time.Second), Retry: true, NextAt: storeT0.Add(time.Hour)}
		}
		if err := s.HookDeliveries.Finish(ctx, c.ID, "node-a", at); err != nil {
			t.Fatal(err)
		}
	}
	if pruned, err := s.HookDeliveries.Prune(ctx, storeT0.Add(time.Minute)); err != nil || pruned != 2 {
		t.Fatalf("Prune = %d, %v; want the 2 delivered", pruned, err)
	}
	for _, c := range claimed {
		if c.HookID != a.ID {
			continue
		}
		got, err := s.HookDeliveries.Get(ctx, a.ID, c.ID)
		if err != nil || got.Payload != d.Payload {
			t.Fatalf("Get of the delivery left after Prune = %+v, %v; want payload %q", got, err, d.Payload)
		}
	}
}
