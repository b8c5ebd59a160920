// Package metrics is Hearth's Prometheus adapter: a registry of Hearth's
// own (never the global default one) holding HTTP request counts and
// latencies, git process, webhook delivery and event handler failure
// counts, the Go runtime,
// process and database pool collectors, and the handler that serves it
// in the text exposition format. The rest of Hearth reports to it through
// technology-free callbacks (httpx.RequestObserver, gitcli's run
// observer, the bus's failure observer), so nothing outside this package and app imports Prometheus.
package metrics

import (
	"database/sql"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Unmatched is the route label of requests no route matched (404s and
// 405s), so that scanners probing random paths add no label values.
const Unmatched = "unmatched"

// Registry holds Hearth's metrics.
type Registry struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	gitRuns     *prometheus.CounterVec
	gitLatency  prometheus.Histogram
	deliveries  *prometheus.CounterVec
	hookLatency prometheus.Histogram
	busFailures *prometheus.CounterVec
	jobWait     prometheus.Histogram
	jobRun      *prometheus.HistogramVec
}

// jobBuckets span CI work: seconds to hours.
var jobBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400}

// New builds a registry with Hearth's metrics and the Go runtime and
// process collectors.
func New() (*Registry, error) {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_http_requests_total",
			Help: "HTTP requests served, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hearth_http_request_duration_seconds",
			Help:    "Time from a request's arrival to the end of its response, by route pattern and method.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
		gitRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_git_processes_total",
			Help: "git processes run by the gitcli backend (cat-file aside), by outcome (ok or error).",
		}, []string{"outcome"}),
		gitLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hearth_git_process_duration_seconds",
			Help:    "Run time of the git processes of the gitcli backend (cat-file aside).",
			Buckets: prometheus.DefBuckets,
		}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_webhook_deliveries_total",
			Help: "Webhook delivery attempts, by outcome: success (2xx), failed (another status, or no answer) or refused (the URL guard blocked the address).",
		}, []string{"outcome"}),
		hookLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hearth_webhook_delivery_duration_seconds",
			Help:    "Time of webhook delivery attempts that were sent.",
			Buckets: prometheus.DefBuckets,
		}),
		busFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_event_handler_failures_total",
			Help: "Event bus handlers run after commit that failed or panicked, by event name.",
		}, []string{"event"}),
		jobWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hearth_ci_job_queue_duration_seconds",
			Help:    "Time CI jobs waited pending before a runner took them.",
			Buckets: jobBuckets,
		}),
		jobRun: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hearth_ci_job_duration_seconds",
			Help:    "Run time of finished CI jobs (start to finish), by final status.",
			Buckets: jobBuckets,
		}, []string{"status"}),
	}
	for _, c := range []prometheus.Collector{
		r.requests, r.latency, r.gitRuns, r.gitLatency, r.deliveries, r.hookLatency, r.busFailures,
		r.jobWait, r.jobRun,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := r.reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: register collector: %w", err)
		}
	}
	return r, nil
}

// WatchDB adds the connection pool statistics of db (go_sql_* metrics,
// labelled db_name=name).
func (r *Registry) WatchDB(db *sql.DB, name string) error {
	if err := r.reg.Register(collectors.NewDBStatsCollector(db, name)); err != nil {
		return fmt.Errorf("metrics: register database pool stats: %w", err)
	}
	return nil
}

// knownMethods bounds the method label: a client may send any token as
// its method, and each would become a series.
var knownMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

// ObserveRequest records one finished request; it has the shape of
// httpx.RequestObserver. An empty pattern (no route matched) is counted
// as Unmatched.
func (r *Registry) ObserveRequest(pattern, method string, status int, took time.Duration) {
	if pattern == "" {
		pattern = Unmatched
	}
	if !knownMethods[method] {
		method = "other"
	}
	r.requests.WithLabelValues(pattern, method, strconv.Itoa(status)).Inc()
	r.latency.WithLabelValues(pattern, method).Observe(took.Seconds())
}

// ObserveGit records one git process that ran for took and ended with err.
func (r *Registry) ObserveGit(took time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	r.gitRuns.WithLabelValues(outcome).Inc()
	r.gitLatency.Observe(took.Seconds())
}

// ObserveDelivery records one webhook delivery attempt: the status
// answered (0 when none came), whether the URL guard refused it before
// sending, and how long it took.
func (r *Registry) ObserveDelivery(status int, refused bool, took time.Duration) {
	switch {
	case refused:
		r.deliveries.WithLabelValues("refused").Inc()
		return
	case status >= 200 && status < 300:
		r.deliveries.WithLabelValues("success").Inc()
	default:
		r.deliveries.WithLabelValues("failed").Inc()
	}
	r.hookLatency.Observe(took.Seconds())
}

// ObserveEventFailure records an after-commit event handler that failed
// or panicked. Event names are the domain's fixed set, a bounded label.
func (r *Registry) ObserveEventFailure(event string) {
	r.busFailures.WithLabelValues(event).Inc()
}

// ObserveJobStarted records how long a CI job waited pending before a
// runner took it.
func (r *Registry) ObserveJobStarted(waited time.Duration) {
	r.jobWait.Observe(waited.Seconds())
}

// ObserveJobFinished records a CI job's run time with its final status
// (success, failed, canceled: the domain's bounded set).
func (r *Registry) ObserveJobFinished(status string, ran time.Duration) {
	r.jobRun.WithLabelValues(status).Observe(ran.Seconds())
}

// WatchCIQueue adds hearth_ci_pending_jobs, read from pending at each
// scrape; pending reports false when it could not count (the gauge then
// reads NaN rather than a made-up 0).
func (r *Registry) WatchCIQueue(pending func() (float64, bool)) error {
	g := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hearth_ci_pending_jobs",
		Help: "CI jobs waiting for a runner (pending, not superseded by a retry), across every project.",
	}, func() float64 {
		if n, ok := pending(); ok {
			return n
		}
		return math.NaN()
	})
	if err := r.reg.Register(g); err != nil {
		return fmt.Errorf("metrics: register CI queue depth: %w", err)
	}
	return nil
}

// Handler serves the registry in the Prometheus text format (or
// OpenMetrics / protobuf when the scraper asks). Collection errors are
// reported to the scraper in the response (HTTPErrorOnError would hide
// every metric behind one failing collector).
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		Registry:          r.reg, // promhttp_metric_handler_errors_total
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: false,
	})
}
