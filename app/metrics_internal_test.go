package app

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/adapters/metrics"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

type fixedSender struct{ resp ports.HookResponse }

func (f fixedSender) Send(context.Context, domain.HookTarget, ports.HookMessage) ports.HookResponse {
	return f.resp
}

// TestObservedSenderCountsDeliveries: each attempt is counted by outcome
// and passed through unchanged.
func TestObservedSenderCountsDeliveries(t *testing.T) {
	t.Parallel()
	m, err := metrics.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, resp := range []ports.HookResponse{
		{Status: 200, Duration: time.Millisecond},
		{Status: 204, Duration: time.Millisecond},
		{Status: 500, Duration: time.Millisecond},
		{Err: errors.New("connection refused"), Duration: time.Millisecond},
		{Err: errors.New("blocked"), Refused: true},
	} {
		got := observedSender{next: fixedSender{resp}, m: m}.Send(t.Context(), domain.HookTarget{}, ports.HookMessage{})
		if got.Status != resp.Status || got.Refused != resp.Refused || got.Err != resp.Err {
			t.Errorf("response changed on its way: %+v, want %+v", got, resp)
		}
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/-/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`hearth_webhook_deliveries_total{outcome="success"} 2`,
		`hearth_webhook_deliveries_total{outcome="failed"} 2`,
		`hearth_webhook_deliveries_total{outcome="refused"} 1`,
		`hearth_webhook_delivery_duration_seconds_count 4`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestObserveJob: a job taken from the queue records its wait, a job that
// ends its run time by status; commit statuses, jobs that never started
// and repeated final events record nothing.
func TestObserveJob(t *testing.T) {
	t.Parallel()
	m, err := metrics.New()
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) *time.Time { v := time.Unix(1_700_000_000+int64(s), 0); return &v }
	build := func(status domain.CIStatus, queued, started, finished *time.Time) domain.Job {
		return domain.Job{Kind: domain.JobBuild, Status: status, QueuedAt: queued, StartedAt: started, FinishedAt: finished}
	}
	obs := observeJob(m)
	for _, ev := range []domain.JobEvent{
		{Job: build(domain.CIPending, at(0), nil, nil), Previous: domain.CICreated},
		{Job: build(domain.CIRunning, at(0), at(3), nil), Previous: domain.CIPending},
		{Job: build(domain.CISuccess, at(0), at(3), at(45)), Previous: domain.CIRunning},
		{Job: build(domain.CIFailed, at(0), at(3), at(5)), Previous: domain.CIRunning},
		{Job: build(domain.CICanceled, at(0), nil, nil), Previous: domain.CIPending},
		{Job: build(domain.CISkipped, nil, nil, nil), Previous: domain.CICreated},
		{Job: domain.Job{Kind: domain.JobExternal, Status: domain.CISuccess, StartedAt: at(0), FinishedAt: at(9)}, Previous: domain.CIRunning},
	} {
		if err := obs(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/-/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`hearth_ci_job_queue_duration_seconds_count 1`,
		`hearth_ci_job_queue_duration_seconds_sum 3`,
		`hearth_ci_job_duration_seconds_sum{status="success"} 42`,
		`hearth_ci_job_duration_seconds_sum{status="failed"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(body, `status="canceled"`) || strings.Contains(body, `status="skipped"`) {
		t.Error("a job that never started got a run time")
	}
}
