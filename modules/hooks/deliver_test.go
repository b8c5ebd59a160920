package hooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// dlWait bounds every wait for something that must happen; nothing waits
// for something that must not.
const dlWait = 10 * time.Second

var dlT0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

type dlClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *dlClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *dlClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// dlOutbox is ports.HookDeliveryStore in memory, with the port's claim
// and finish rules, reporting each finish on finished.
type dlOutbox struct {
	mu       sync.Mutex
	rows     []domain.HookDelivery
	targets  map[int64]domain.HookTarget
	workers  int // Claim checks it is never asked for more than the free slots
	overflow []string
	claims   int
	claimed  chan int // each Claim's count, when not nil
	finished chan domain.HookAttempt
	pruned   chan time.Time
	recorded []domain.HookDelivery
}

func newDlOutbox(workers int) *dlOutbox {
	return &dlOutbox{targets: map[int64]domain.HookTarget{}, workers: workers,
		finished: make(chan domain.HookAttempt, 100), pruned: make(chan time.Time, 10)}
}

func (o *dlOutbox) add(hookID int64, maxAttempts int, at time.Time) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	id := int64(len(o.rows) + 1)
	o.rows = append(o.rows, domain.HookDelivery{ID: id, HookID: hookID, Event: domain.HookEventPush,
		Payload: fmt.Sprintf(`{"object_kind":"push","secret_payload":%d}`, id), State: domain.HookDeliveryPending,
		MaxAttempts: maxAttempts, NextAttemptAt: at, CreatedAt: at, UpdatedAt: at})
	return id
}

func (o *dlOutbox) row(id int64) domain.HookDelivery {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.rows[id-1]
}

func (o *dlOutbox) Enqueue(context.Context, *domain.HookDelivery) error {
	return errors.New("not used")
}

func (o *dlOutbox) EnqueueFor(context.Context, []int64, domain.HookDelivery) (int, error) {
	return 0, errors.New("not used")
}

func (o *dlOutbox) Claim(_ context.Context, node string, now time.Time, lease time.Duration, max int) ([]domain.HookDelivery, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.claims++
	running := 0
	for _, d := range o.rows {
		if d.State == domain.HookDeliveryRunning && d.ClaimedBy == node {
			running++
		}
	}
	if running+max > o.workers {
		o.overflow = append(o.overflow, fmt.Sprintf("claim of %d with %d running", max, running))
	}
	var out []domain.HookDelivery
	for i := range o.rows {
		d := &o.rows[i]
		due := d.State == domain.HookDeliveryPending && !d.NextAttemptAt.After(now) ||
			d.State == domain.HookDeliveryRunning && !d.ClaimExpiresAt.After(now)
		if !due || len(out) == max {
			continue
		}
		exp := now.Add(lease)
		d.State, d.ClaimedBy, d.ClaimExpiresAt = domain.HookDeliveryRunning, node, &exp
		d.Attempts++
		d.Target = o.targets[d.HookID]
		out = append(out, *d)
	}
	if o.claimed != nil {
		o.claimed <- len(out)
	}
	return out, nil
}

func (o *dlOutbox) Finish(_ context.Context, id int64, node string, a domain.HookAttempt) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if id < 1 || int(id) > len(o.rows) {
		return core.ErrNotFound
	}
	d := &o.rows[id-1]
	if d.State != domain.HookDeliveryRunning || d.ClaimedBy != node {
		return core.ErrStale
	}
	d.LastStatus, d.LastError, d.LastDuration, d.LastResponse = a.Status, a.Err, a.Duration, a.Response
	d.ClaimExpiresAt = nil
	switch {
	case a.Delivered():
		d.State = domain.HookDeliveryDelivered
	case a.Retry && d.Attempts < d.MaxAttempts:
		d.State, d.NextAttemptAt = domain.HookDeliveryPending, a.NextAt
	default:
		d.State = domain.HookDeliveryFailed
	}
	o.finished <- a
	return nil
}

func (o *dlOutbox) List(context.Context, int64, domain.Page) ([]domain.HookDelivery, int, error) {
	return nil, 0, errors.New("not used")
}

func (o *dlOutbox) Get(context.Context, int64, int64) (*domain.HookDelivery, error) {
	return nil, errors.New("not used")
}

func (o *dlOutbox) Record(_ context.Context, d *domain.HookDelivery) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	d.ID = int64(100 + len(o.recorded))
	o.recorded = append(o.recorded, *d)
	return nil
}

func (o *dlOutbox) Prune(_ context.Context, before time.Time) (int, error) {
	o.pruned <- before
	return 0, nil
}

// dlSender answers with reply and reports each call on calls.
type dlSender struct {
	reply func(ctx context.Context, n int) ports.HookResponse
	calls chan dlSent
	mu    sync.Mutex
	n     int
}

type dlSent struct {
	target  domain.HookTarget
	event   string
	payload string
}

func (f *dlSender) Send(ctx context.Context, t domain.HookTarget, m ports.HookMessage) ports.HookResponse {
	event, payload := m.Event, m.Payload
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	f.calls <- dlSent{t, event, string(payload)}
	return f.reply(ctx, n)
}

func (f *dlSender) count() int { f.mu.Lock(); defer f.mu.Unlock(); return f.n }

func dlAnswer(status int) func(context.Context, int) ports.HookResponse {
	return func(context.Context, int) ports.HookResponse {
		return ports.HookResponse{Status: status, Body: fmt.Sprintf(`{"status":%d}`, status), Duration: 42 * time.Millisecond}
	}
}

type dlRig struct {
	s      *Service
	d      *deliverer
	clock  *dlClock
	outbox *dlOutbox
	sender *dlSender
	logs   *observer.ObservedLogs
}

func newDlRig(t *testing.T, workers int, reply func(context.Context, int) ports.HookResponse) *dlRig {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	cfg := config.Default()
	cfg.Webhooks.Workers = workers
	cfg.Webhooks.PollInterval = time.Hour // only nudges and ended sends wake the loop
	cfg.Webhooks.Timeout = 5 * time.Second
	r := &dlRig{clock: &dlClock{now: dlT0}, outbox: newDlOutbox(workers),
		sender: &dlSender{reply: reply, calls: make(chan dlSent, 100)}, logs: logs}
	r.outbox.targets[7] = domain.HookTarget{URL: "http://203.0.113.7/hook", Token: "s3cr3t-token", VerifyTLS: true}
	r.s = NewService(Params{Config: cfg, Log: zap.New(core), Clock: r.clock, Deliveries: r.outbox, Sender: r.sender})
	r.d = newDeliverer(r.s, "node-a")
	return r
}

func (r *dlRig) start(t *testing.T) {
	t.Helper()
	r.d.start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), dlWait)
		defer cancel()
		_ = r.d.stop(ctx)
	})
}

func (r *dlRig) finish(t *testing.T) domain.HookAttempt {
	t.Helper()
	select {
	case a := <-r.outbox.finished:
		return a
	case <-time.After(dlWait):
		t.Fatal("no delivery finished")
		return domain.HookAttempt{}
	}
}

func (r *dlRig) call(t *testing.T) dlSent {
	t.Helper()
	select {
	case c := <-r.sender.calls:
		return c
	case <-time.After(dlWait):
		t.Fatal("nothing sent")
		return dlSent{}
	}
}

// noSecretsLogged checks the logs never carry the token or the payload.
func (r *dlRig) noSecretsLogged(t *testing.T) {
	t.Helper()
	for _, e := range r.logs.All() {
		line := fmt.Sprint(e.Message, e.ContextMap())
		if strings.Contains(line, "s3cr3t-token") || strings.Contains(line, "secret_payload") {
			t.Errorf("log leaks a secret: %s", line)
		}
	}
}

func TestDeliverSuccess(t *testing.T) {
	t.Parallel()
	r := newDlRig(t, 2, dlAnswer(200))
	id := r.outbox.add(7, 5, dlT0)
	r.start(t)

	c := r.call(t)
	if c.target != r.outbox.targets[7] || c.event != "Push Hook" || c.payload != r.outbox.row(id).Payload {
		t.Fatalf("sent %+v", c)
	}
	a := r.finish(t)
	if !a.Delivered() || a.Retry || a.Status != 200 || a.Response != `{"status":200}` || !a.At.Equal(dlT0) ||
		a.Duration != 42*time.Millisecond || a.DisableAfter != 4 {
		t.Fatalf("attempt %+v", a)
	}
	if d := r.outbox.row(id); d.State != domain.HookDeliveryDelivered || d.Attempts != 1 {
		t.Fatalf("delivery %+v", d)
	}
	logged := r.logs.FilterMessage("webhook delivered").All()
	if len(logged) != 1 {
		t.Fatalf("logged %v", r.logs.All())
	}
	if f := logged[0].ContextMap(); f["hook_id"] != int64(7) || f["delivery_id"] != id || f["event"] != "Push Hook" || f["status"] != int64(200) {
		t.Fatalf("log fields %v", f)
	}
	r.noSecretsLogged(t)
}

func TestDeliverRetriesServerErrorsWithBackoffThenGivesUp(t *testing.T) {
	t.Parallel()
	r := newDlRig(t, 1, dlAnswer(503))
	id := r.outbox.add(7, 3, dlT0)
	r.start(t)

	// 10s after the first attempt, then 20s: the backoff doubles.
	for i, backoff := range []time.Duration{10 * time.Second, 20 * time.Second} {
		a := r.finish(t)
		if !a.Retry || a.Status != 503 || a.Err != "receiver answered HTTP 503" || !a.NextAt.Equal(r.clock.Now().Add(backoff)) {
			t.Fatalf("attempt %d: %+v", i+1, a)
		}
		if d := r.outbox.row(id); d.State != domain.HookDeliveryPending || d.Attempts != i+1 {
			t.Fatalf("after attempt %d: %+v", i+1, d)
		}
		r.clock.advance(backoff)
		r.s.nudge()
	}
	r.finish(t)
	if d := r.outbox.row(id); d.State != domain.HookDeliveryFailed || d.Attempts != 3 || d.LastStatus != 503 {
		t.Fatalf("after the last attempt: %+v", d)
	}
	if n := r.sender.count(); n != 3 {
		t.Fatalf("%d sends, want 3", n)
	}
	r.noSecretsLogged(t)
}

func TestDeliverClientErrorIsFinal(t *testing.T) {
	t.Parallel()
	r := newDlRig(t, 1, dlAnswer(404))
	id := r.outbox.add(7, 5, dlT0)
	r.start(t)

	a := r.finish(t)
	if a.Retry || a.Delivered() || a.Status != 404 {
		t.Fatalf("attempt %+v", a)
	}
	if d := r.outbox.row(id); d.State != domain.HookDeliveryFailed || d.Attempts != 1 {
		t.Fatalf("delivery %+v", d)
	}
}

func TestAttemptClassifies(t *testing.T) {
	t.Parallel()
	r := newDlRig(t, 1, nil)
	r.clock.now = dlT0
	for _, tc := range []struct {
		resp      ports.HookResponse
		attempts  int
		delivered bool
		retry     bool
		after     time.Duration
		err       string
	}{
		{resp: ports.HookResponse{Status: 200}, delivered: true},
		{resp: ports.HookResponse{Status: 204}, delivered: true},
		{resp: ports.HookResponse{Status: 302}, err: "receiver answered HTTP 302"},
		{resp: ports.HookResponse{Status: 410}, err: "receiver answered HTTP 410"},
		{resp: ports.HookResponse{Status: 500}, attempts: 1, retry: true, after: 10 * time.Second, err: "receiver answered HTTP 500"},
		{resp: ports.HookResponse{Status: 502}, attempts: 4, retry: true, after: 80 * time.Second, err: "receiver answered HTTP 502"},
		{resp: ports.HookResponse{Err: errors.New("dial tcp 203.0.113.7:80: connect: connection refused")}, attempts: 2,
			retry: true, after: 20 * time.Second, err: "dial tcp 203.0.113.7:80: connect: connection refused"},
		{resp: ports.HookResponse{Err: context.DeadlineExceeded}, attempts: 30, retry: true, after: time.Hour, err: "context deadline exceeded"},
		{resp: ports.HookResponse{Err: errors.New("is blocked: requests to loopback addresses are not allowed"), Refused: true},
			attempts: 1, err: "is blocked: requests to loopback addresses are not allowed"},
	} {
		a := r.s.attempt(tc.resp, tc.attempts)
		if a.Delivered() != tc.delivered || a.Retry != tc.retry || a.Err != tc.err || (tc.retry && !a.NextAt.Equal(dlT0.Add(tc.after))) {
			t.Errorf("%+v after %d attempts: got %+v", tc.resp, tc.attempts, a)
		}
	}
}

func TestStorableKeepsText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ok\x00\xff" + strings.Repeat("x", 20): "ok\uFFFD\uFFFDxx", // 2 + 3 + 3 + 2 bytes
		"abcdefghi\u00e9":                      "abcdefghi",        // é would end past the limit
		"short":                                "short",
	} {
		if got := storable(in, 10); got != want {
			t.Errorf("storable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNudgeWakesIdleWorkers(t *testing.T) {
	t.Parallel()
	r := newDlRig(t, 1, dlAnswer(200))
	r.outbox.claimed = make(chan int, 100)
	r.start(t)
	// The first claim found nothing; with an hour's poll interval only the
	// nudge can explain the next one.
	select {
	case n := <-r.outbox.claimed:
		if n != 0 {
			t.Fatalf("claimed %d", n)
		}
	case <-time.After(dlWait):
		t.Fatal("no claim")
	}
	id := r.outbox.add(7, 1, dlT0)
	r.s.nudge()
	r.finish(t)
	if d := r.outbox.row(id); d.State != domain.HookDeliveryDelivered {
		t.Fatalf("delivery %+v", d)
	}
}

func TestDeliverKeepsToWorkerSlots(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	r := newDlRig(t, 2, func(ctx context.Context, n int) ports.HookResponse {
		<-release
		return ports.HookResponse{Status: 200}
	})
	for range 5 {
		r.outbox.add(7, 1, dlT0)
	}
	r.start(t)
	r.call(t)
	r.call(t)
	close(release)
	for range 5 {
		r.finish(t)
	}
	r.outbox.mu.Lock()
	defer r.outbox.mu.Unlock()
	if len(r.outbox.overflow) > 0 {
		t.Fatalf("claimed beyond the free slots: %v", r.outbox.overflow)
	}
}

func TestStopWaitsForSendsInFlight(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	r := newDlRig(t, 2, func(ctx context.Context, n int) ports.HookResponse {
		<-release
		return ports.HookResponse{Status: 200}
	})
	id := r.outbox.add(7, 1, dlT0)
	r.d.start()
	r.call(t)

	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), dlWait)
		defer cancel()
		stopped <- r.d.stop(ctx)
	}()
	close(release)
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
	// Stop returned after the send ended and its outcome was recorded.
	if d := r.outbox.row(id); d.State != domain.HookDeliveryDelivered {
		t.Fatalf("delivery %+v", d)
	}
}

func TestStopAbandonsSendsPastItsDeadline(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 1)
	r := newDlRig(t, 1, func(ctx context.Context, n int) ports.HookResponse {
		<-ctx.Done()
		ended <- ctx.Err()
		return ports.HookResponse{Err: ctx.Err()}
	})
	id := r.outbox.add(7, 5, dlT0)
	r.d.start()
	r.call(t)

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the stop context is out of time already
	if err := r.d.stop(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("stop: %v", err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("send ended with %v", err)
	}
	select {
	case <-r.d.done:
	case <-time.After(dlWait):
		t.Fatal("the delivery loop did not end")
	}
	// Left claimed, not finished: another node takes it over when the
	// lease expires.
	if d := r.outbox.row(id); d.State != domain.HookDeliveryRunning || d.ClaimedBy != "node-a" {
		t.Fatalf("delivery %+v", d)
	}
}

func TestPruneAtStart(t *testing.T) {
	t.Parallel()
	r := newDlRig(t, 1, dlAnswer(200))
	r.start(t)
	select {
	case before := <-r.outbox.pruned:
		if want := dlT0.Add(-7 * 24 * time.Hour); !before.Equal(want) {
			t.Fatalf("pruned before %v, want %v", before, want)
		}
	case <-time.After(dlWait):
		t.Fatal("no prune")
	}
}

// TestNoWorkersSendNothing: a node with no workers starts no claim or
// prune loop (it still fans kept events out when it has an event store,
// which this rig has not): starting and stopping it claims and prunes
// nothing.
func TestNoWorkersSendNothing(t *testing.T) {
	t.Parallel()
	r := newDlRig(t, 0, dlAnswer(200))
	lc := &dlLifecycle{}
	startDelivery(lc, r.s)
	for _, h := range lc.hooks {
		if err := h.OnStart(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range lc.hooks {
		if err := h.OnStop(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	r.outbox.mu.Lock()
	defer r.outbox.mu.Unlock()
	if r.outbox.claims != 0 || len(r.outbox.pruned) != 0 {
		t.Fatalf("a node without workers claimed %d times and pruned %d times", r.outbox.claims, len(r.outbox.pruned))
	}
}

func TestSendNowRecords(t *testing.T) {
	t.Parallel()
	r := newDlRig(t, 1, func(_ context.Context, n int) ports.HookResponse {
		if n == 1 {
			return ports.HookResponse{Status: 201, Body: "ok", Duration: time.Second}
		}
		return ports.HookResponse{Err: errors.New("connection refused")}
	})
	target := r.outbox.targets[7]
	d, err := r.s.sendNow(context.Background(), 7, target, domain.HookEventIssue, []byte(`{"object_kind":"issue"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := r.call(t); c.target != target || c.event != "Issue Hook" {
		t.Fatalf("sent %+v", c)
	}
	if d.ID == 0 || d.State != domain.HookDeliveryDelivered || d.Attempts != 1 || d.LastStatus != 201 || d.LastResponse != "ok" ||
		d.DeliveredAt == nil || d.Payload != `{"object_kind":"issue"}` || d.HookID != 7 {
		t.Fatalf("delivery %+v", d)
	}
	d, err = r.s.sendNow(context.Background(), 7, target, domain.HookEventIssue, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.State != domain.HookDeliveryFailed || d.LastStatus != 0 || d.LastError != "connection refused" || d.DeliveredAt != nil {
		t.Fatalf("delivery %+v", d)
	}
	if got := len(r.outbox.recorded); got != 2 || !slices.EqualFunc(r.outbox.recorded, []domain.HookDelivery{{State: domain.HookDeliveryDelivered}, {State: domain.HookDeliveryFailed}},
		func(a, b domain.HookDelivery) bool { return a.State == b.State }) {
		t.Fatalf("recorded %+v", r.outbox.recorded)
	}
	r.noSecretsLogged(t)
}

type dlLifecycle struct{ hooks []fx.Hook }

func (l *dlLifecycle) Append(h fx.Hook) { l.hooks = append(l.hooks, h) }
