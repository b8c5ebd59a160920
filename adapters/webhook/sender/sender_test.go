package sender

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/adapters/webhook/netguard"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

const agent = "Hearth/test"

// recorder is a loopback receiver that counts requests and keeps the last.
type recorder struct {
	hits    atomic.Int64
	last    atomic.Pointer[http.Request]
	body    atomic.Pointer[string]
	respond http.HandlerFunc
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.hits.Add(1)
	b, _ := io.ReadAll(r.Body)
	s := string(b)
	rc.body.Store(&s)
	rc.last.Store(r)
	if rc.respond != nil {
		rc.respond(w, r)
		return
	}
	_, _ = io.WriteString(w, "ok")
}

func local() *Sender { return New(netguard.Guard{AllowLocal: true}, 5*time.Second, agent) }

func TestSendsGitLabHeaders(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	res := local().Send(context.Background(), domain.HookTarget{URL: srv.URL + "/hook?x=1", Token: "s3cret"}, ports.HookMessage{DeliveryID: 42, Event: domain.HookEventPush, Payload: []byte(`{"object_kind":"push"}`)})
	if res.Err != nil || res.Status != 200 || res.Body != "ok" || res.Duration <= 0 {
		t.Fatalf("response = %+v", res)
	}
	r := rc.last.Load()
	for k, want := range map[string]string{"Content-Type": "application/json", "User-Agent": agent,
		"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": "s3cret", "X-Hearth-Delivery": "42"} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if r.Method != http.MethodPost || r.URL.RawQuery != "x=1" || *rc.body.Load() != `{"object_kind":"push"}` {
		t.Errorf("request = %s %s body %q", r.Method, r.URL, *rc.body.Load())
	}

	// No token: no header at all, as GitLab sends none.
	local().Send(context.Background(), domain.HookTarget{URL: srv.URL}, ports.HookMessage{Event: domain.HookEventIssue, Payload: []byte(`{}`)})
	if _, ok := rc.last.Load().Header["X-Gitlab-Token"]; ok {
		t.Error("X-Gitlab-Token sent for a hook without a token")
	}
	if _, ok := rc.last.Load().Header["X-Hearth-Delivery"]; ok {
		t.Error("X-Hearth-Delivery sent without a delivery")
	}
}

func TestKeepsTheStartOfTheResponseAndStatus(t *testing.T) {
	t.Parallel()
	rc := &recorder{respond: func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, strings.Repeat("x", domain.HookResponseLimit+100))
	}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	res := local().Send(context.Background(), domain.HookTarget{URL: srv.URL}, ports.HookMessage{Event: domain.HookEventPush, Payload: []byte(`{}`)})
	if res.Err != nil || res.Status != http.StatusBadGateway || len(res.Body) != domain.HookResponseLimit || res.Refused {
		t.Fatalf("status %d, body %d bytes, err %v, refused %v", res.Status, len(res.Body), res.Err, res.Refused)
	}
}

func TestDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	inner := &recorder{}
	target := httptest.NewServer(inner)
	defer target.Close()
	outer := &recorder{respond: func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusFound)
	}}
	srv := httptest.NewServer(outer)
	defer srv.Close()
	res := local().Send(context.Background(), domain.HookTarget{URL: srv.URL}, ports.HookMessage{Event: domain.HookEventPush, Payload: []byte(`{}`)})
	if res.Status != http.StatusFound || outer.hits.Load() != 1 || inner.hits.Load() != 0 {
		t.Fatalf("status %d, outer %d hits, redirect target %d hits", res.Status, outer.hits.Load(), inner.hits.Load())
	}
}

func TestRefusesLocalAndOtherSchemesWithoutSending(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	strict := New(netguard.Guard{}, 5*time.Second, agent)
	for _, u := range []string{srv.URL, "http://[::1]:1/", "http://0.0.0.0/", "file:///etc/passwd", "gopher://127.0.0.1:70/_x",
		"http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]/"} {
		res := strict.Send(context.Background(), domain.HookTarget{URL: u}, ports.HookMessage{Event: domain.HookEventPush, Payload: []byte(`{}`)})
		if res.Err == nil || !res.Refused || res.Status != 0 {
			t.Errorf("%s: response %+v, want a refusal", u, res)
		}
	}
	if n := rc.hits.Load(); n != 0 {
		t.Fatalf("receiver got %d requests", n)
	}
}

func TestTimeoutIsAFailureToRetry(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	rc := &recorder{respond: func(http.ResponseWriter, *http.Request) { <-release }}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	defer close(release)
	s := New(netguard.Guard{AllowLocal: true}, 200*time.Millisecond, agent)
	res := s.Send(context.Background(), domain.HookTarget{URL: srv.URL}, ports.HookMessage{Event: domain.HookEventPush, Payload: []byte(`{}`)})
	if res.Err == nil || res.Refused || res.Status != 0 {
		t.Fatalf("response = %+v, want a timeout", res)
	}
	if strings.Contains(res.Err.Error(), srv.URL) {
		t.Errorf("error repeats the URL: %v", res.Err)
	}
}

func TestVerifiesTLSOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	srv := httptest.NewTLSServer(rc)
	defer srv.Close()
	s := local()
	if res := s.Send(context.Background(), domain.HookTarget{URL: srv.URL, VerifyTLS: true}, ports.HookMessage{Event: domain.HookEventPush, Payload: []byte(`{}`)}); res.Err == nil || res.Refused {
		t.Fatalf("self-signed certificate accepted with verification on: %+v", res)
	}
	if res := s.Send(context.Background(), domain.HookTarget{URL: srv.URL}, ports.HookMessage{Event: domain.HookEventPush, Payload: []byte(`{}`)}); res.Err != nil || res.Status != 200 {
		t.Fatalf("verification off: %+v", res)
	}
}
