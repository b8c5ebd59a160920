package app_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// samples parses a Prometheus text exposition into "name{labels}" ->
// value (labels as the server wrote them, sorted by name).
func samples(t *testing.T, text string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func getMetrics(t *testing.T, srv *apptest.Server) string {
	t.Helper()
	resp, err := http.Get(srv.URL + "/-/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /-/metrics from loopback: status %d, body %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want Prometheus text", ct)
	}
	return string(body)
}

// TestMetricsEndpoint: after a few API requests, GET /-/metrics from
// loopback counts them by route pattern (never the raw path), method and
// status, with latencies, "unmatched" for paths no route knows, and shows
// the Go runtime, process, database pool and git process metrics.
func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			testMetricsEndpoint(t, driver)
		})
	}
}

func testMetricsEndpoint(t *testing.T, driver string) {
	srv := apptest.New(t, apptest.Driver(driver))
	var p struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"watched"}}, 201, &p)
	for range 3 {
		srv.JSON(t, "GET", fmt.Sprintf("/projects/%d", p.ID), srv.RootToken, nil, 200, nil)
	}
	srv.JSON(t, "GET", "/projects/root%2Fwatched", srv.RootToken, nil, 200, nil)
	srv.JSON(t, "GET", "/projects/999999", srv.RootToken, nil, 404, nil)
	srv.JSON(t, "GET", fmt.Sprintf("/projects/%d/repository/branches", p.ID), srv.RootToken, nil, 200, nil)
	if resp, _ := srv.Do(t, "GET", "/-/no-such-page-"+t.Name(), "", nil); resp.StatusCode != 404 {
		t.Fatalf("unknown path: status %d", resp.StatusCode)
	}

	text := getMetrics(t, srv)
	got := samples(t, text)
	for key, want := range map[string]float64{
		`hearth_http_requests_total{method="POST",route="/api/v4/projects",status="201"}`:        1,
		`hearth_http_requests_total{method="GET",route="/api/v4/projects/{id}",status="200"}`:    4,
		`hearth_http_requests_total{method="GET",route="/api/v4/projects/{id}",status="404"}`:    1,
		`hearth_http_requests_total{method="GET",route="unmatched",status="404"}`:                1,
		`hearth_http_request_duration_seconds_count{method="GET",route="/api/v4/projects/{id}"}`: 5,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
	if got[`hearth_http_requests_total{method="GET",route="/api/v4/projects/{id}/repository/branches",status="200"}`] != 1 {
		t.Error("the branches request is not counted under its route pattern")
	}
	for key := range got {
		if strings.HasPrefix(key, "hearth_http_") && (strings.Contains(key, "999999") ||
			strings.Contains(key, "no-such-page") || strings.Contains(key, "watched") || strings.Contains(key, fmt.Sprintf("/%d", p.ID))) {
			t.Errorf("a raw request path became a label value: %s", key)
		}
	}
	if got["go_goroutines"] <= 0 {
		t.Error("no go_goroutines")
	}
	if got["process_resident_memory_bytes"] <= 0 {
		t.Error("no process_resident_memory_bytes")
	}
	if _, ok := got[`go_sql_max_open_connections{db_name="`+driver+`"}`]; !ok {
		t.Errorf("no database pool metrics (go_sql_*{db_name=%q})", driver)
	}
	if got[`go_sql_open_connections{db_name="`+driver+`"}`] <= 0 {
		t.Error("the pool shows no open connection after requests that used the database")
	}
	if got[`hearth_git_processes_total{outcome="ok"}`] <= 0 {
		t.Error("no git process counted, though the project's repository was created and listed with gitcli")
	}
	if v, ok := got["hearth_ci_pending_jobs"]; !ok || v != 0 {
		t.Errorf("hearth_ci_pending_jobs = %v (present %v), want 0 on a server without pipelines", v, ok)
	}
	// Two CI jobs waiting and one running, seeded in the store: the gauge
	// counts the waiting ones at the next scrape.
	now := time.Now().UTC()
	job := func(name string, status domain.CIStatus) domain.Job {
		return domain.Job{ProjectID: p.ID, Kind: domain.JobBuild, Name: name, Stage: "test", Status: status,
			Ref: "main", SHA: strings.Repeat("a", 40), When: "on_success", CreatedAt: now, UpdatedAt: now}
	}
	pl := &domain.Pipeline{ProjectID: p.ID, Ref: "main", SHA: strings.Repeat("a", 40), Status: domain.CIPending, Source: "push", CreatedAt: now, UpdatedAt: now}
	if err := srv.Store.Pipelines().Create(t.Context(), pl, []domain.Job{job("a", domain.CIPending), job("b", domain.CIPending), job("c", domain.CIRunning)}); err != nil {
		t.Fatal(err)
	}
	if v := samples(t, getMetrics(t, srv))["hearth_ci_pending_jobs"]; v != 2 {
		t.Errorf("hearth_ci_pending_jobs = %v with two jobs waiting, want 2", v)
	}
	if got["hearth_git_process_duration_seconds_count"] <= 0 {
		t.Error("no git process duration observed")
	}
}

// TestMetricsGuard: judged by the TCP peer address, a client outside
// loopback and metrics.allowed_cidrs gets the same 404 as a path with no
// route (X-Forwarded-For changes nothing); once its network is allowed it
// gets the metrics. pprof is off by default and on when configured, under
// the same guard.
func TestMetricsGuard(t *testing.T) {
	t.Parallel()
	serve := func(srv *apptest.Server, path, remote string, hdr map[string]string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = remote
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		srv.Router.ServeHTTP(rec, req)
		return rec
	}
	const outsider = "203.0.113.7:1234"
	plain := apptest.New(t)
	unrouted := serve(plain, "/-/no-such-endpoint", outsider, nil)
	for _, hdr := range []map[string]string{nil, {"X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1"}} {
		rec := serve(plain, "/-/metrics", outsider, hdr)
		if rec.Code != http.StatusNotFound || rec.Body.String() != unrouted.Body.String() {
			t.Errorf("outsider (headers %v): status %d body %q, want the unrouted 404 %q", hdr, rec.Code, rec.Body, unrouted.Body)
		}
	}
	if rec := serve(plain, "/-/metrics", "127.0.0.1:5555", nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "hearth_http_requests_total") {
		t.Errorf("loopback: status %d", rec.Code)
	}
	for _, remote := range []string{"127.0.0.1:5555", outsider} {
		if rec := serve(plain, "/-/debug/pprof/", remote, nil); rec.Code != http.StatusNotFound {
			t.Errorf("pprof is off by default, yet %s got status %d", remote, rec.Code)
		}
	}

	open := apptest.New(t, apptest.Configure(func(c *config.Config) {
		c.Metrics.AllowedCIDRs = []string{"203.0.113.0/24"}
		c.Metrics.Pprof = true
	}))
	if rec := serve(open, "/-/metrics", outsider, nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "go_goroutines") {
		t.Errorf("allowed network: status %d", rec.Code)
	}
	if rec := serve(open, "/-/metrics", "198.51.100.7:1234", nil); rec.Code != http.StatusNotFound {
		t.Errorf("a network outside the list: status %d, want 404", rec.Code)
	}
	if rec := serve(open, "/-/debug/pprof/", outsider, nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("pprof index for an allowed client: status %d", rec.Code)
	}
	if rec := serve(open, "/-/debug/pprof/goroutine?debug=1", "127.0.0.1:5555", nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "goroutine profile") {
		t.Errorf("pprof goroutine profile: status %d body %.200q", rec.Code, rec.Body)
	}
	if rec := serve(open, "/-/debug/pprof/goroutine?debug=1", "198.51.100.7:1234", nil); rec.Code != http.StatusNotFound {
		t.Errorf("pprof for a refused client: status %d, want 404", rec.Code)
	}
}
