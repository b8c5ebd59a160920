package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// receiver is a loopback webhook receiver that counts the requests it gets.
func receiver(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func ok(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "delivered") }

func post(ctx context.Context, c *http.Client, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(`{"object_kind":"push"}`))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return c.Do(req)
}

func wantBlocked(t *testing.T, err error, reason string) {
	t.Helper()
	var b *BlockedError
	if !errors.As(err, &b) {
		t.Fatalf("request error = %v, want a *BlockedError", err)
	}
	if b.Reason != reason || b.Addr == "" {
		t.Fatalf("BlockedError = %+v, want reason %q and the dialled address", b, reason)
	}
	if !IsBlocked(err) {
		t.Fatal("IsBlocked = false")
	}
}

func TestClientDelivery(t *testing.T) {
	t.Parallel()
	srv, hits := receiver(t, ok)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	res := stubResolver{"rebind.test": {"127.0.0.1"}}
	cases := []struct {
		name   string
		url    string
		reason string
	}{
		{"loopback literal", srv.URL, MsgLocalhost},
		{"name resolving to loopback", "http://rebind.test:" + itoa(port) + "/hook", MsgLocalhost},
		{"localhost", "http://localhost:" + itoa(port) + "/hook", MsgLocalhost},
		{"ipv4-mapped ipv6", "http://[::ffff:127.0.0.1]:" + itoa(port) + "/hook", MsgLocalhost},
		{"legacy numeric form", "http://2130706433:" + itoa(port) + "/hook", MsgLocalhost},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := post(context.Background(), Guard{Resolver: res}.Client(5*time.Second, true), c.url)
			wantBlocked(t, err, c.reason)
		})
	}
	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		resp, err := post(context.Background(), Guard{AllowLocal: true, Resolver: res}.Client(5*time.Second, true),
			"http://rebind.test:"+itoa(port)+"/hook")
		if err != nil {
			t.Fatalf("with AllowLocal, delivery failed: %v", err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || string(body) != "delivered" {
			t.Fatalf("got %d %q, want 200 delivered", resp.StatusCode, body)
		}
	})
	t.Cleanup(func() {
		// Only the allowed delivery may have reached the receiver.
		if n := hits.Load(); n != 1 {
			t.Errorf("receiver got %d requests, want 1", n)
		}
	})
}

func TestClientRefusesDNSRebinding(t *testing.T) {
	t.Parallel()
	srv, hits := receiver(t, ok)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	g := Guard{Resolver: &rebindResolver{}}
	u := "http://rebind.test:" + itoa(port) + "/hook"
	if err := g.CheckURL(context.Background(), u); err != nil {
		t.Fatalf("CheckURL while the name looks public = %v, want nil", err)
	}
	_, err := post(context.Background(), g.Client(5*time.Second, true), u)
	wantBlocked(t, err, MsgLocalhost)
	if n := hits.Load(); n != 0 {
		t.Fatalf("receiver got %d requests, want 0", n)
	}
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	target, targetHits := receiver(t, ok)
	first, _ := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/secret", http.StatusFound)
	})
	resp, err := post(context.Background(), Guard{AllowLocal: true}.Client(5*time.Second, true), first.URL)
	if err != nil {
		t.Fatalf("delivery failed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != target.URL+"/secret" {
		t.Fatalf("got %d to %q, want the 302 itself", resp.StatusCode, resp.Header.Get("Location"))
	}
	if n := targetHits.Load(); n != 0 {
		t.Fatalf("redirect target got %d requests, want 0", n)
	}
}

func TestClientTLSVerification(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(ok))
	t.Cleanup(srv.Close)
	g := Guard{AllowLocal: true}
	if _, err := post(context.Background(), g.Client(5*time.Second, true), srv.URL); err == nil {
		t.Fatal("verified delivery to a self-signed receiver succeeded, want a certificate error")
	} else if IsBlocked(err) {
		t.Fatalf("certificate failure reported as blocked: %v", err)
	}
	resp, err := post(context.Background(), g.Client(5*time.Second, false), srv.URL)
	if err != nil {
		t.Fatalf("unverified delivery failed: %v", err)
	}
	resp.Body.Close()
	// Local addresses stay refused over TLS too.
	_, err = post(context.Background(), Guard{}.Client(5*time.Second, false), srv.URL)
	wantBlocked(t, err, MsgLocalhost)
}

func TestClientIgnoresProxy(t *testing.T) {
	t.Parallel()
	tr, ok := Guard{}.Client(time.Second, true).Transport.(*http.Transport)
	if !ok {
		t.Fatal("Client transport is not *http.Transport")
	}
	if tr.Proxy != nil {
		req := &http.Request{URL: &url.URL{Scheme: "http", Host: "example.org"}}
		if p, _ := tr.Proxy(req); p != nil {
			t.Fatalf("Client would use proxy %v", p)
		}
	}
}

func TestControl(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr   string
		reason string // "" when allowed
	}{
		{"127.0.0.1:80", MsgLocalhost},
		{"[::1]:443", MsgLocalhost},
		{"[::ffff:127.0.0.1]:80", MsgLocalhost},
		{"10.0.0.1:80", MsgLocalNetwork},
		{"169.254.169.254:80", MsgLinkLocal},
		{"[fe80::1%eth0]:80", MsgLinkLocal},
		{"0.0.0.0:80", MsgLocalhost},
		{"93.184.216.34:443", ""},
		{"[2606:2800:220:1:248:1893:25c8:1946]:443", ""},
		{"example.org:80", MsgHostnameInvalid},
		{"garbage", MsgHostnameInvalid},
	}
	for _, c := range cases {
		err := Guard{}.control("tcp4", c.addr, nil)
		if c.reason == "" {
			if err != nil {
				t.Errorf("control(%s) = %v, want nil", c.addr, err)
			}
			continue
		}
		var b *BlockedError
		if !errors.As(err, &b) || b.Reason != c.reason || b.Addr != c.addr {
			t.Errorf("control(%s) = %v, want %q", c.addr, err, c.reason)
		}
		allowed := Guard{AllowLocal: true}.control("tcp4", c.addr, nil)
		if (allowed == nil) != (c.reason != MsgHostnameInvalid) {
			t.Errorf("AllowLocal control(%s) = %v", c.addr, allowed)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
