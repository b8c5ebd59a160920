package hooks_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// dlReceived is one request a receiver got.
type dlReceived struct {
	header http.Header
	body   string
}

// dlReceiver is a loopback webhook endpoint answering status (200 unless
// set) and reporting each request on got.
type dlReceiver struct {
	*httptest.Server
	status atomic.Int32
	got    chan dlReceived
}

func newDlReceiver(t *testing.T) *dlReceiver {
	r := &dlReceiver{got: make(chan dlReceived, 100)}
	r.status.Store(200)
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.got <- dlReceived{req.Header.Clone(), string(b)}
		w.WriteHeader(int(r.status.Load()))
		fmt.Fprintf(w, `{"answered":%d}`, r.status.Load())
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *dlReceiver) next(t *testing.T) dlReceived {
	t.Helper()
	select {
	case g := <-r.got:
		return g
	case <-time.After(15 * time.Second):
		t.Fatal("the receiver got nothing")
		return dlReceived{}
	}
}

// dlServer allows loopback hooks and polls often, so deliveries
// queued straight into the outbox (no node nudges for them) go out soon.
func dlServer() apptest.Option {
	return apptest.Configure(func(c *config.Config) {
		c.Webhooks.AllowLocalRequests = true
		c.Webhooks.Workers = 2
		c.Webhooks.PollInterval = 50 * time.Millisecond
		c.Webhooks.MaxAttempts = 2
	})
}

// dlWaitState polls the deliveries list until delivery id is in state.
func dlWaitState(t *testing.T, e env, path, token string, id int64, state string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		for _, d := range e.Expect(200, "GET", path, token, nil).List(t) {
			if apptest.ID(d) == id && d["state"] == state {
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery %d never %s", id, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestHookDeliveriesAPI(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, e env) {
		rcv := newDlReceiver(t)
		pid := e.project("delivered", "private")
		masterID, master := e.person("master")
		devID, dev := e.person("dev")
		e.AddMember("projects", pid, masterID, int(domain.Master))
		e.AddMember("projects", pid, devID, int(domain.Developer))
		base := fmt.Sprintf("/projects/%d/hooks", pid)
		hookID := apptest.ID(e.Expect(201, "POST", base, master, apptest.Form("url", rcv.URL+"/hook", "token", "s3cr3t")).Object(t))
		events := fmt.Sprintf("%s/%d/events", base, hookID)

		if l := e.Expect(200, "GET", events, master, nil); len(l.List(t)) != 0 || l.Header.Get("X-Total") != "0" {
			t.Fatalf("no deliveries yet: %s", l.Body)
		}

		// A delivery queued as an event would queue it.
		payload := `{"object_kind":"push","ref":"refs/heads/master"}`
		d := domain.HookDelivery{HookID: hookID, Event: domain.HookEventPush, Payload: payload, MaxAttempts: 2}
		if err := e.srv.Store.HookDeliveries().Enqueue(t.Context(), &d); err != nil {
			t.Fatal(err)
		}
		got := rcv.next(t)
		if got.body != payload || got.header.Get("X-Gitlab-Event") != "Push Hook" || got.header.Get("X-Gitlab-Token") != "s3cr3t" ||
			got.header.Get("Content-Type") != "application/json" {
			t.Fatalf("received %v %s", got.header, got.body)
		}
		first := dlWaitState(t, e, events, master, d.ID, "delivered")
		if first["response_status"] != "200" || first["trigger"] != "push_hooks" || first["url"] != rcv.URL+"/hook" ||
			first["attempts"] != 1.0 || first["response_body"] != `{"answered":200}` || first["internal_error_message"] != nil {
			t.Fatalf("delivery %v", first)
		}
		if h := first["request_headers"].(map[string]any); h["X-Gitlab-Token"] != "[REDACTED]" || h["X-Gitlab-Event"] != "Push Hook" {
			t.Fatalf("request headers %v", h)
		}
		if data, _ := json.Marshal(first["request_data"]); string(data) != `{"object_kind":"push","ref":"refs/heads/master"}` {
			t.Fatalf("request_data %s", data)
		}
		if s, _ := json.Marshal(first); strings.Contains(string(s), "s3cr3t") {
			t.Fatalf("the token is shown: %s", s)
		}

		// Resend queues a copy and answers 201 with it; the workers send it.
		rcv.status.Store(500)
		resend := fmt.Sprintf("%s/%d/resend", events, d.ID)
		copied := e.Expect(201, "POST", resend, master, nil).Object(t)
		copyID := apptest.ID(copied)
		if copyID == d.ID || copied["state"] != "pending" || copied["attempts"] != 0.0 || copied["response_status"] != nil ||
			copied["trigger"] != "push_hooks" {
			t.Fatalf("resent %v", copied)
		}
		if got := rcv.next(t); got.body != payload {
			t.Fatalf("resent body %s", got.body)
		}
		// The 500 is retried after retry_backoff: move the clock past it.
		retrying := dlWaitState(t, e, events, master, copyID, "pending")
		if retrying["response_status"] != "500" || retrying["attempts"] != 1.0 || retrying["next_attempt_at"] == nil {
			t.Fatalf("after a 500: %v", retrying)
		}
		e.srv.Advance(e.srv.Config.Webhooks.RetryBackoff)
		rcv.next(t)
		failed := dlWaitState(t, e, events, master, copyID, "failed")
		if failed["attempts"] != 2.0 || failed["response_status"] != "500" || failed["response_body"] != `{"answered":500}` {
			t.Fatalf("given up: %v", failed)
		}

		// Newest first, paginated.
		l := e.Expect(200, "GET", events+"?per_page=1", master, nil)
		if page := l.List(t); len(page) != 1 || apptest.ID(page[0]) != copyID || l.Header.Get("X-Total") != "2" || l.Header.Get("X-Next-Page") != "2" {
			t.Fatalf("page 1: %s %v", l.Body, l.Header)
		}
		e.ExpectBody(400, `{"error":"per_page is invalid"}`, "GET", events+"?per_page=x", master, nil)

		// Access as the hooks API's, and 404 for what is not this hook's.
		e.Expect(401, "GET", events, "", nil)
		e.Expect(401, "POST", resend, "", nil)
		e.Expect(403, "GET", events, dev, nil)
		e.Expect(403, "POST", resend, dev, nil)
		_, stranger := e.person("stranger")
		e.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", events, stranger, nil)
		other := e.project("other", "public")
		otherHook := apptest.ID(e.Expect(201, "POST", fmt.Sprintf("/projects/%d/hooks", other), e.srv.RootToken, apptest.Form("url", rcv.URL)).Object(t))
		root := e.srv.RootToken
		e.ExpectBody(404, `{"message":"404 Not found"}`, "GET", fmt.Sprintf("/projects/%d/hooks/%d/events", other, hookID), root, nil)
		e.ExpectBody(404, `{"message":"404 Not found"}`, "POST", fmt.Sprintf("/projects/%d/hooks/%d/events/%d/resend", other, hookID, d.ID), root, nil)
		e.ExpectBody(404, `{"message":"404 Not found"}`, "POST", fmt.Sprintf("/projects/%d/hooks/%d/events/%d/resend", other, otherHook, d.ID), root, nil)
		e.ExpectBody(404, `{"message":"404 Not found"}`, "POST", fmt.Sprintf("%s/%d/resend", events, copyID+100), master, nil)
		e.ExpectBody(400, `{"error":"hook_log_id is invalid"}`, "POST", events+"/abc/resend", master, nil)
		e.ExpectBody(400, `{"error":"hook_id is invalid"}`, "GET", base+"/abc/events", master, nil)
	}, dlServer())
}
