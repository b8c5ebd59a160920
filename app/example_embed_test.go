package app_test

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/httpx"
)

// billingModule is a third party's module: its routes join Hearth's router
// and get Hearth's authentication, error shapes and logging.
var billingModule = fx.Module("billing", fx.Provide(httpx.AsRoutes(func() httpx.Routes {
	return httpx.Routes{Module: "billing", Routes: []httpx.Route{{
		Method: http.MethodGet, Pattern: "/billing/plan",
		Handle: func(w http.ResponseWriter, r *http.Request) error {
			if _, err := httpx.RequireUser(r); err != nil {
				return err
			}
			return httpx.OK(w, map[string]string{"plan": "free"})
		},
	}}}
})))

// Example_embed mounts Hearth, with an extra module, inside another server.
func Example_embed() {
	cfg := config.Default()
	cfg.DataDir = "/var/lib/myservice"
	cfg.Storage.DSN = "/var/lib/myservice/hearth.db"
	ctx := context.Background()
	handler, stop, err := app.Handler(ctx, cfg, billingModule)
	if err != nil {
		log.Fatal(err)
	}
	defer stop(ctx)
	mux := http.NewServeMux()
	mux.Handle("/", handler) // /api/v4/... and /-/health
	log.Fatal(http.ListenAndServe("127.0.0.1:9090", mux))
}

// TestEmbed runs what Example_embed shows.
func TestEmbed(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Storage.DSN = filepath.Join(cfg.DataDir, "hearth.db")
	cfg.Log.Level = "error"
	handler, stop, err := app.Handler(context.Background(), cfg, billingModule)
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	mux := http.NewServeMux()
	mux.Handle("/", handler)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/v4/billing/plan")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous: %d", resp.StatusCode)
	}
	for _, p := range []string{"/-/health", "/-/readiness"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != 200 || body["status"] != "ok" {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, body)
		}
	}
}
