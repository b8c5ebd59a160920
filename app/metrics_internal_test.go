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
