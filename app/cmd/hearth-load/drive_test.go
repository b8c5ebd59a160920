package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestDrivers runs both drivers for a fraction of a second against a tiny
// server that takes about 1 ms per request and fails every POST, and checks
// the numbers they report are sane.
func TestDrivers(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond)
		if r.Header.Get("PRIVATE-TOKEN") != "tok" || r.Method == "POST" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"version":"9.5.0"}`))
	}))
	t.Cleanup(srv.Close) // parallel subtests run after this function returns
	ctx := context.Background()
	ok := target{Name: "ok", Method: "GET", URL: srv.URL, Token: "tok"}
	bad := target{Name: "bad", Method: "POST", URL: srv.URL, Token: "tok", Body: []byte("title=x")}

	if err := send(ctx, newClient(1, time.Second), ok); err != nil {
		t.Fatalf("send: %v", err)
	}
	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		s := closedLoop(ctx, newClient(4, 5*time.Second), ok, 4, 500*time.Millisecond)
		// 4 clients, ~1 ms each: at most ~2,000 requests, surely more than 100.
		if s.Requests < 100 || s.Requests > 2200 || s.Errors != 0 {
			t.Errorf("closed loop: %d requests, %d errors", s.Requests, s.Errors)
		}
		if s.Rate < 200 || s.P50 < time.Millisecond || s.P50 > s.P90 || s.P90 > s.P99 || s.P99 > 500*time.Millisecond {
			t.Errorf("closed loop: rate %.0f, p50 %s, p90 %s, p99 %s", s.Rate, s.P50, s.P90, s.P99)
		}
		s = closedLoop(ctx, newClient(2, 5*time.Second), bad, 2, 200*time.Millisecond)
		if s.Requests == 0 || s.Errors != s.Requests {
			t.Errorf("failing endpoint: %d requests, %d errors", s.Requests, s.Errors)
		}
	})
	t.Run("open", func(t *testing.T) {
		t.Parallel()
		s := openLoop(ctx, newClient(64, 5*time.Second), ok, 200, time.Second)
		if s.Requests != 200 || s.Success != 1 || s.Errors != 0 {
			t.Errorf("open loop: %d requests, %d errors, success %.3f", s.Requests, s.Errors, s.Success)
		}
		if s.Rate < 150 || s.Rate > 210 || s.P90 < time.Millisecond || !s.Pass() {
			t.Errorf("open loop: rate %.0f, p90 %s, pass %v", s.Rate, s.P90, s.Pass())
		}
		s = openLoop(ctx, newClient(64, 5*time.Second), bad, 100, 200*time.Millisecond)
		if s.Success != 0 || s.Pass() {
			t.Errorf("failing endpoint: success %.3f, pass %v", s.Success, s.Pass())
		}
	})
}

func TestMedianAndTable(t *testing.T) {
	t.Parallel()
	runs := []stats{
		{Rate: 100, P50: 3 * time.Millisecond, Errors: 2},
		{Rate: 300, P50: 1 * time.Millisecond, Errors: 0},
		{Rate: 200, P50: 2 * time.Millisecond, Errors: 1},
	}
	m := median(runs)
	if m.Rate != 200 || m.P50 != 2*time.Millisecond || m.Errors != 1 {
		t.Errorf("median = %+v", m)
	}
	var b bytes.Buffer
	printClosed(&b, []string{"GET /user"}, []stats{m})
	if !strings.Contains(b.String(), "| GET /user | 200 | 2.00 ms |") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestHistory checks the fast-import stream's shape without running git.
func TestHistory(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	writeHistory(&b, shape{Commits: 100, Branches: 3, Tags: 10})
	s := b.String()
	if n := strings.Count(s, "\ncommit refs/heads/") + 1; n != 100 {
		t.Errorf("%d commits, want 100", n)
	}
	if n := strings.Count(s, "reset refs/tags/"); n != 10 {
		t.Errorf("%d tags, want 10", n)
	}
	if !strings.Contains(s, "commit refs/heads/feature-02\n") {
		t.Error("no feature-02 branch")
	}
}
