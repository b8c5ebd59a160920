package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/adapters/metrics"
	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Metrics wires Prometheus: the registry (one per app, never the global
// default), the router's request observer, and GET /-/metrics (with
// net/http/pprof under /-/debug/pprof/ when metrics.pprof is on) for
// loopback and metrics.allowed_cidrs only. git processes and webhook
// deliveries report to the registry from newGit and newHookSender.
func Metrics() fx.Option {
	return fx.Options(
		fx.Provide(
			newMetrics,
			func(m *metrics.Registry) httpx.RequestObserver { return m.ObserveRequest },
			httpx.AsRoutes(metricsRoutes),
		),
		fx.Invoke(watchCI),
	)
}

// watchCI reports CI jobs to the metrics: how long each waited and ran,
// from the job events of the changes this node commits, and how many
// wait, counted in the database at each scrape (so every node reports the
// shared queue).
func watchCI(m *metrics.Registry, bus ports.EventBus, jobs ports.JobStore) error {
	bus.Subscribe(domain.JobEvent{}.EventName(), observeJob(m))
	return m.WatchCIQueue(func() (float64, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), ciQueueTimeout)
		defer cancel()
		_, n, err := jobs.List(ctx, domain.JobFilter{Kind: domain.JobBuild, Statuses: []domain.CIStatus{domain.CIPending},
			Latest: true, Page: domain.Page{Page: 1, PerPage: 1}})
		if err != nil {
			return 0, false
		}
		return float64(n), true
	})
}

// ciQueueTimeout bounds the count of pending jobs a scrape runs.
const ciQueueTimeout = 2 * time.Second

// observeJob records a CI job's wait when a runner takes it and its run
// time when it ends (jobs that never started, skipped or canceled while
// pending, have no run time). Commit statuses are not CI work.
func observeJob(m *metrics.Registry) func(context.Context, domain.BusEvent) error {
	return func(_ context.Context, ev domain.BusEvent) error {
		e, ok := ev.(domain.JobEvent)
		if !ok || e.Job.Kind != domain.JobBuild {
			return nil
		}
		j := e.Job
		if j.Status == domain.CIRunning && e.Previous == domain.CIPending && j.QueuedAt != nil && j.StartedAt != nil {
			m.ObserveJobStarted(j.StartedAt.Sub(*j.QueuedAt))
		}
		if j.Status.Completed() && !e.Previous.Completed() && j.StartedAt != nil && j.FinishedAt != nil {
			m.ObserveJobFinished(string(j.Status), j.FinishedAt.Sub(*j.StartedAt))
		}
		return nil
	}
}

// newMetrics builds the registry and adds the database pool's statistics.
func newMetrics(cfg config.Config, store *bunstore.Store) (*metrics.Registry, error) {
	m, err := metrics.New()
	if err != nil {
		return nil, err
	}
	// bun.DB embeds the *sql.DB whose pool it uses.
	if err := m.WatchDB(store.DB().DB, cfg.Storage.Driver); err != nil {
		return nil, err
	}
	return m, nil
}

// metricsRoutes are the monitoring endpoints, at the root like the probes.
// They authenticate no one: the guard decides by the peer's address.
func metricsRoutes(cfg config.Config, m *metrics.Registry) (httpx.Routes, error) {
	nets, err := config.ParseCIDRs(cfg.Metrics.AllowedCIDRs)
	if err != nil {
		return httpx.Routes{}, fmt.Errorf("metrics.allowed_cidrs: %w", err)
	}
	guard := metrics.NewGuard(nets)
	routes := []httpx.Route{
		{Method: http.MethodGet, Pattern: "/-/metrics", SelfAuth: true, Handle: guarded(guard, m.Handler())},
	}
	if cfg.Metrics.Pprof {
		h := guarded(guard, pprofHandler())
		routes = append(routes,
			httpx.Route{Method: http.MethodGet, Pattern: "/-/debug/pprof/*", SelfAuth: true, Handle: h},
			// pprof's symbol lookup takes addresses in a POST body.
			httpx.Route{Method: http.MethodPost, Pattern: "/-/debug/pprof/symbol", SelfAuth: true, RawBody: true, Handle: h},
		)
	}
	return httpx.Routes{Module: "metrics", Root: true, Routes: routes}, nil
}

// guarded serves h to the clients guard allows and answers anyone else
// exactly as a path with no route (404), as GitLab does for its
// monitoring endpoints, so that they cannot even tell the endpoint exists.
func guarded(guard metrics.Guard, h http.Handler) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !guard.Allows(r.RemoteAddr) {
			return httpx.JSON(w, http.StatusNotFound, map[string]string{"error": "404 Not Found"})
		}
		h.ServeHTTP(w, r)
		return nil
	}
}

// pprofHandler serves net/http/pprof's pages on a mux of its own (the
// package also registers them on http.DefaultServeMux, which Hearth never
// serves). The pages expect /debug/pprof/, hence the stripped "/-".
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return http.StripPrefix("/-", mux)
}

// observedSender counts each webhook delivery attempt by outcome.
type observedSender struct {
	next ports.HookSender
	m    *metrics.Registry
}

func (s observedSender) Send(ctx context.Context, t domain.HookTarget, msg ports.HookMessage) ports.HookResponse {
	start := time.Now()
	resp := s.next.Send(ctx, t, msg)
	took := resp.Duration
	if took <= 0 {
		took = time.Since(start)
	}
	s.m.ObserveDelivery(resp.Status, resp.Refused, took)
	return resp
}
