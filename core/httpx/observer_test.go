package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/httpx"
)

type observed struct {
	pattern, method string
	status          int
	took            time.Duration
}

// TestRequestObserverSeesRoutePatterns checks that the observer gets the
// route's pattern, never the raw path, with the status actually sent, and
// "" for requests no route matched.
func TestRequestObserverSeesRoutePatterns(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []observed
	obs := func(pattern, method string, status int, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, observed{pattern, method, status, took})
	}
	routes := httpx.Routes{Module: "test", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/things/{id}", SelfAuth: true, Handle: func(w http.ResponseWriter, r *http.Request) error {
			if id, _ := httpx.PathParam(r, "id"); id == "missing" {
				return core.ErrNotFound
			}
			return httpx.OK(w, map[string]string{"ok": "yes"})
		}},
		{Method: http.MethodPost, Pattern: "/quiet", SelfAuth: true, Handle: func(http.ResponseWriter, *http.Request) error { return nil }},
		{Method: http.MethodGet, Pattern: "/boom", SelfAuth: true, Handle: func(http.ResponseWriter, *http.Request) error { panic("boom") }},
	}}
	rt, err := httpx.NewRouter(httpx.RouterParams{Logger: zap.NewNop(), Observer: obs, Routes: []httpx.Routes{routes}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/v4/things/42"},
		{http.MethodGet, "/api/v4/things/group%2Fproject"},
		{http.MethodGet, "/api/v4/things/missing"},
		{http.MethodPost, "/api/v4/quiet"},
		{http.MethodGet, "/api/v4/boom"},
		{http.MethodGet, "/no/such/route"},
	} {
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
	}
	want := []observed{
		{"/api/v4/things/{id}", "GET", 200, 0},
		{"/api/v4/things/{id}", "GET", 200, 0},
		{"/api/v4/things/{id}", "GET", 404, 0},
		{"/api/v4/quiet", "POST", 200, 0},
		{"/api/v4/boom", "GET", 500, 0},
		{"", "GET", 404, 0},
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(want) {
		t.Fatalf("observed %d requests, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.pattern != w.pattern || g.method != w.method || g.status != w.status {
			t.Errorf("request %d: observed %q %s %d, want %q %s %d", i, g.pattern, g.method, g.status, w.pattern, w.method, w.status)
		}
		if g.took <= 0 {
			t.Errorf("request %d: duration %v, want > 0", i, g.took)
		}
	}
}

// TestRouterWithoutObserver serves as before when nothing observes.
func TestRouterWithoutObserver(t *testing.T) {
	t.Parallel()
	rt, err := httpx.NewRouter(httpx.RouterParams{Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/nothing", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("status %d, want 404", rec.Code)
	}
}
