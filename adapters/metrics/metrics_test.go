package metrics_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/adapters/metrics"
)

func scrape(t *testing.T, r *metrics.Registry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/-/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: status %d", rec.Code)
	}
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// TestRegistryLabels: requests are counted by pattern, method and status;
// an empty pattern is "unmatched" and an unknown method "other", so
// clients cannot mint label values; git runs and deliveries by outcome.
func TestRegistryLabels(t *testing.T) {
	t.Parallel()
	r, err := metrics.New()
	if err != nil {
		t.Fatal(err)
	}
	r.ObserveRequest("/api/v4/projects/{id}", "GET", 200, 10*time.Millisecond)
	r.ObserveRequest("/api/v4/projects/{id}", "GET", 200, 20*time.Millisecond)
	r.ObserveRequest("", "GET", 404, time.Millisecond)
	r.ObserveRequest("", "BREW", 405, time.Millisecond)
	r.ObserveGit(time.Millisecond, nil)
	r.ObserveGit(time.Millisecond, errors.New("exit status 128"))
	r.ObserveGit(time.Millisecond, nil)
	r.ObserveDelivery(200, false, time.Millisecond)
	r.ObserveDelivery(500, false, time.Millisecond)
	r.ObserveDelivery(0, true, 0)
	r.ObserveEventFailure("push")
	r.ObserveEventFailure("push")
	r.ObserveJobStarted(3 * time.Second)
	r.ObserveJobFinished("success", 40*time.Second)
	r.ObserveJobFinished("failed", 2*time.Second)
	if err := r.WatchCIQueue(func() (float64, bool) { return 7, true }); err != nil {
		t.Fatal(err)
	}
	text := scrape(t, r)
	for _, want := range []string{
		`hearth_http_requests_total{method="GET",route="/api/v4/projects/{id}",status="200"} 2`,
		`hearth_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`hearth_http_requests_total{method="other",route="unmatched",status="405"} 1`,
		`hearth_http_request_duration_seconds_count{method="GET",route="/api/v4/projects/{id}"} 2`,
		`hearth_git_processes_total{outcome="ok"} 2`,
		`hearth_git_processes_total{outcome="error"} 1`,
		`hearth_git_process_duration_seconds_count 3`,
		`hearth_webhook_deliveries_total{outcome="success"} 1`,
		`hearth_webhook_deliveries_total{outcome="failed"} 1`,
		`hearth_webhook_deliveries_total{outcome="refused"} 1`,
		`hearth_event_handler_failures_total{event="push"} 2`,
		`hearth_ci_job_queue_duration_seconds_count 1`,
		`hearth_ci_job_duration_seconds_bucket{status="success",le="60"} 1`,
		`hearth_ci_job_duration_seconds_bucket{status="success",le="30"} 0`,
		`hearth_ci_job_duration_seconds_count{status="failed"} 1`,
		`hearth_ci_pending_jobs 7`,
		`go_goroutines `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("scrape lacks %q", want)
		}
	}
	if strings.Contains(text, "BREW") {
		t.Error("a client's made-up method became a label value")
	}
}

// TestRegistriesAreIndependent: two registries (two apps in one process,
// parallel tests) neither collide nor share counts: no global state.
func TestRegistriesAreIndependent(t *testing.T) {
	t.Parallel()
	a, err := metrics.New()
	if err != nil {
		t.Fatal(err)
	}
	b, err := metrics.New()
	if err != nil {
		t.Fatal(err)
	}
	a.ObserveRequest("/only/in/a", "GET", 200, time.Millisecond)
	if strings.Contains(scrape(t, b), "/only/in/a") {
		t.Error("a request observed by one registry shows in another")
	}
}

func TestGuard(t *testing.T) {
	t.Parallel()
	none := metrics.NewGuard(nil)
	nets := metrics.NewGuard([]netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32")})
	for _, c := range []struct {
		remote          string
		byDefault, nets bool
	}{
		{"127.0.0.1:1234", true, true},
		{"127.8.9.10:1234", true, true},
		{"[::1]:1234", true, true},
		{"[::ffff:127.0.0.1]:1234", true, true},
		{"203.0.113.7:1234", false, true},
		{"[::ffff:203.0.113.7]:1234", false, true},
		{"203.0.114.7:1234", false, false},
		{"[2001:db8::7]:443", false, true},
		{"[fe80::1%eth0]:1234", false, false},
		{"10.0.0.1:1234", false, false},
		{"203.0.113.7", false, true},
		{"", false, false},
		{"@", false, false},
		{"localhost:1234", false, false},
	} {
		if got := none.Allows(c.remote); got != c.byDefault {
			t.Errorf("default guard: Allows(%q) = %v, want %v", c.remote, got, c.byDefault)
		}
		if got := nets.Allows(c.remote); got != c.nets {
			t.Errorf("guard with networks: Allows(%q) = %v, want %v", c.remote, got, c.nets)
		}
	}
}
