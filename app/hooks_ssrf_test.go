package app_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// ssrfTable is issue 15's list of hook URLs that must never be dialled
// while local requests are not allowed, with a name of this machine that
// resolves to loopback when it has one.
func ssrfTable(t *testing.T) []string {
	table := []string{"http://127.0.0.1", "http://[::1]", "http://localhost", "http://0.0.0.0",
		"http://169.254.169.254", "http://10.0.0.1", "http://[::ffff:127.0.0.1]", "file:///etc/passwd",
		"gopher://127.0.0.1:70/_GET"}
	if host, err := os.Hostname(); err == nil && host != "localhost" {
		if addrs, err := net.LookupHost(host); err == nil && len(addrs) > 0 && net.ParseIP(addrs[0]).IsLoopback() {
			table = append(table, "http://"+host+"/")
		} else {
			t.Logf("host name %q does not resolve to loopback here; that row is covered by netguard's stub resolver tests", host)
		}
	}
	return table
}

// TestHookSSRFAtCreation: every URL of the table is refused with GitLab's
// 422 when a hook is added.
func TestHookSSRFAtCreation(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	c := srv.Client(t)
	pid := apptest.ID(c.Project(srv.RootToken, "name", "ssrf"))
	for _, u := range ssrfTable(t) {
		c.ExpectBody(422, `{"message":"Invalid url given"}`, "POST", fmt.Sprintf("/projects/%d/hooks", pid), srv.RootToken, apptest.Form("url", u))
	}
}

// TestHookSSRFAtDelivery: a hook that names a local address anyway (saved
// when local requests were allowed, or a name that resolved elsewhere when
// it was saved) is refused again when a delivery is attempted: the
// receiver is never dialled and the delivery fails without retries.
func TestHookSSRFAtDelivery(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer recv.Close()
	srv := apptest.New(t)
	c := srv.Client(t)
	pid := apptest.ID(c.Project(srv.RootToken, "name", "ssrf-delivery"))
	urls := append(ssrfTable(t), recv.URL+"/hook")
	var ids []int64
	for _, u := range urls {
		h := domain.NewProjectHook(pid, u)
		h.IssuesEvents = true
		if err := srv.Store.Hooks().Create(context.Background(), &h); err != nil {
			t.Fatalf("store hook %s: %v", u, err)
		}
		ids = append(ids, h.ID)
	}
	c.Expect(201, "POST", fmt.Sprintf("/projects/%d/issues", pid), srv.RootToken, apptest.Form("title", "probe"))
	for i, id := range ids {
		d := finishedDelivery(t, srv, id)
		if d.State != domain.HookDeliveryFailed || d.Attempts != 1 || d.LastStatus != 0 || d.LastError == "" {
			t.Errorf("%s: delivery %+v, want failed at once with a reason", urls[i], d)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the loopback receiver was dialled %d times", n)
	}
}

// TestHookRedirectNotFollowed: with local requests allowed, a receiver
// that redirects (here to another loopback server) gets one request; the
// redirect is recorded as the answer and not followed.
func TestHookRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	var inner, outer atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { inner.Add(1) }))
	defer target.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		outer.Add(1)
		http.Redirect(w, r, target.URL, http.StatusFound)
	}))
	defer redirect.Close()
	srv := apptest.New(t, apptest.Configure(func(c *config.Config) { c.Webhooks.AllowLocalRequests = true }))
	c := srv.Client(t)
	pid := apptest.ID(c.Project(srv.RootToken, "name", "redirect"))
	hook := apptest.ID(c.Expect(201, "POST", fmt.Sprintf("/projects/%d/hooks", pid), srv.RootToken,
		url.Values{"url": {redirect.URL}, "issues_events": {"true"}}).Object(t))
	c.Expect(201, "POST", fmt.Sprintf("/projects/%d/issues", pid), srv.RootToken, apptest.Form("title", "redirect"))
	d := finishedDelivery(t, srv, hook)
	if d.State != domain.HookDeliveryFailed || d.LastStatus != http.StatusFound || outer.Load() != 1 || inner.Load() != 0 {
		t.Fatalf("delivery %+v; redirecting receiver %d hits, its target %d", d, outer.Load(), inner.Load())
	}
}

// finishedDelivery waits (bounded) for the hook's one delivery to be
// delivered or failed; the workers deliver asynchronously.
func finishedDelivery(t *testing.T, srv *apptest.Server, hookID int64) domain.HookDelivery {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		list, _, err := srv.Store.HookDeliveries().List(context.Background(), hookID, domain.Page{Page: 1, PerPage: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) > 1 {
			t.Fatalf("hook %d has %d deliveries, want 1", hookID, len(list))
		}
		if len(list) == 1 && list[0].State.Finished() {
			return list[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("hook %d: no finished delivery: %+v", hookID, list)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
