package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/uptrace/bun"
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

// invoice is a row of the third party's own table in Hearth's database.
type invoice struct {
	bun.BaseModel `bun:"table:billing_invoices"`
	ID            int64 `bun:",pk,autoincrement"`
	UserID        int64
	Plan          string
}

// invoices is the third party's store. It writes through
// bunstore.Store.Conn, so its rows join Hearth's transactions: whatever
// ports.TxManager.WithinTx rolls back, invoices included.
type invoices struct{ hearth *bunstore.Store }

func (s invoices) Add(ctx context.Context, userID int64, plan string) error {
	_, err := s.hearth.Conn(ctx).NewInsert().Model(&invoice{UserID: userID, Plan: plan}).Exec(ctx)
	return err
}

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

// TestEmbedJoinsTransactions: a third party's store commits and rolls back
// with Hearth's own writes.
func TestEmbedJoinsTransactions(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Storage.DSN = filepath.Join(cfg.DataDir, "hearth.db")
	cfg.Log.Level = "error"
	var store *bunstore.Store
	var tx ports.TxManager
	var usersStore ports.UserStore
	ctx := context.Background()
	_, stop, err := app.Handler(ctx, cfg, fx.Populate(&store, &tx, &usersStore))
	if err != nil {
		t.Fatal(err)
	}
	defer stop(ctx)
	if _, err := store.DB().NewCreateTable().Model((*invoice)(nil)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	bill := invoices{store}
	signUp := func(name string, fail bool) error {
		return tx.WithinTx(ctx, func(ctx context.Context) error {
			u := &domain.User{Username: name, Name: name, Email: name + "@example.com", State: domain.UserActive}
			if err := usersStore.Create(ctx, u); err != nil {
				return err
			}
			if err := bill.Add(ctx, u.ID, "free"); err != nil {
				return err
			}
			if fail {
				return errors.New("card declined")
			}
			return nil
		})
	}
	if err := signUp("declined", true); err == nil {
		t.Fatal("the failed sign-up succeeded")
	}
	if err := signUp("paying", false); err != nil {
		t.Fatal(err)
	}
	n, err := store.DB().NewSelect().Model((*invoice)(nil)).Count(ctx)
	if err != nil || n != 1 {
		t.Fatalf("invoices: %d %v (the rolled-back one must be gone)", n, err)
	}
	if _, err := usersStore.GetByUsername(ctx, "declined"); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("rolled-back user: %v", err)
	}
}
