package app_test

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// TestRateLimits: with rate_limit on, one user's 1,000 requests in a row
// get 429 beyond the allowance, with Retry-After and GitLab's RateLimit-*
// headers, while another user is unaffected; sign-ins are throttled per
// address; the allowance comes back with time.
func TestRateLimits(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t, apptest.Configure(func(c *config.Config) {
		c.RateLimit = config.RateLimit{Enabled: true, AuthenticatedPerPeriod: 50, UnauthenticatedPerPeriod: 30,
			Period: time.Minute, SignInPerPeriod: 5, SignInPeriod: time.Minute,
			GitAuthMaxRetry: 10, GitAuthFindTime: time.Minute, GitAuthBanTime: time.Hour}
	}))
	c := srv.Client(t)
	_, aliceToken := c.User("alice")
	_, bobToken := c.User("bob")

	ok, limited := 0, 0
	var first *http.Response
	var firstBody []byte
	for range 1000 {
		resp, body := srv.Do(t, "GET", "/user", aliceToken, nil)
		switch resp.StatusCode {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			if limited == 0 {
				first, firstBody = resp, body
			}
			limited++
		default:
			t.Fatalf("GET /user: %d %s", resp.StatusCode, body)
		}
	}
	// A minute's allowance of 50, refilled at one token every 1.2 s:
	// 1,000 quick requests get their 50, and at most a token or two more.
	if ok < 50 || ok > 52 || limited != 1000-ok {
		t.Fatalf("%d allowed, %d throttled; want the allowance of 50", ok, limited)
	}
	h := first.Header
	retry, err := strconv.Atoi(h.Get("Retry-After"))
	reset, err2 := strconv.ParseInt(h.Get("RateLimit-Reset"), 10, 64)
	_, err3 := http.ParseTime(h.Get("RateLimit-ResetTime"))
	if err != nil || retry < 1 || retry > 2 || err2 != nil || reset < time.Now().Unix() || err3 != nil ||
		h.Get("RateLimit-Limit") != "50" || h.Get("RateLimit-Remaining") != "0" || h.Get("RateLimit-Observed") != "50" ||
		string(firstBody) != "Retry later\n" || h.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("throttled answer: %v %q", h, firstBody)
	}
	// Another user has an allowance of their own.
	if resp, body := srv.Do(t, "GET", "/user", bobToken, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob: %d %s", resp.StatusCode, body)
	}
	// With time, the allowance comes back.
	srv.Advance(time.Minute)
	if resp, body := srv.Do(t, "GET", "/user", aliceToken, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice a minute later: %d %s", resp.StatusCode, body)
	}

	// Sign-in guessing: five tries a minute per address, then 429 even
	// for the right password.
	for i := range 5 {
		resp, body := srv.Do(t, "POST", "/session", "", url.Values{"login": {"bob"}, "password": {"guess-" + strconv.Itoa(i)}})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d %s", i, resp.StatusCode, body)
		}
	}
	resp, body := srv.Do(t, "POST", "/session", "", url.Values{"login": {"bob"}, "password": {"secret-bob"}})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("RateLimit-Limit") != "5" {
		t.Fatalf("sixth sign-in: %d %v %s", resp.StatusCode, resp.Header, body)
	}
}

// TestRateLimitsOffByDefault: as GitLab's, the limits are off unless
// configured: 1,000 requests in a row all pass.
func TestRateLimitsOffByDefault(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	for i := range 1000 {
		if resp, body := srv.Do(t, "GET", "/user", srv.RootToken, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
	}
}

// TestGitAuthFailureBan: with rate_limit on, an address whose git client
// fails HTTP Basic sign-in max_retry times within find time is banned
// (403 "Forbidden" on git and API routes alike, right credentials
// included) until ban time has passed; a success in between starts the
// count again; trusted addresses and servers without rate limits never
// ban.
func TestGitAuthFailureBan(t *testing.T) {
	t.Parallel()
	limits := config.RateLimit{Enabled: true, AuthenticatedPerPeriod: 1000, UnauthenticatedPerPeriod: 1000,
		Period: time.Minute, SignInPerPeriod: 100, SignInPeriod: time.Minute,
		GitAuthMaxRetry: 3, GitAuthFindTime: time.Minute, GitAuthBanTime: time.Hour}
	refs := func(srv *apptest.Server, password string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", srv.URL+"/root/p.git/info/refs?service=git-upload-pack", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("root", password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	newServer := func(limits config.RateLimit) *apptest.Server {
		srv := apptest.New(t, apptest.Configure(func(c *config.Config) { c.RateLimit = limits }))
		srv.Client(t).Project(srv.RootToken, "name", "p", "visibility", "private")
		return srv
	}

	srv := newServer(limits)
	// Two failures, a success, two failures: never three in a row.
	for i, password := range []string{"wrong", "wrong", apptest.RootPassword, "wrong", "wrong"} {
		want := http.StatusUnauthorized
		if password == apptest.RootPassword {
			want = http.StatusOK
		}
		if status, body := refs(srv, password); status != want {
			t.Fatalf("attempt %d: %d %q, want %d", i, status, body, want)
		}
	}
	if status, _ := refs(srv, "wrong"); status != http.StatusUnauthorized {
		t.Fatalf("third failure in a row answered %d, want 401 (the ban starts after it)", status)
	}
	if status, body := refs(srv, apptest.RootPassword); status != http.StatusForbidden || body != "Forbidden\n" {
		t.Fatalf("banned address with the right password: %d %q, want 403 Forbidden", status, body)
	}
	if resp, body := srv.Do(t, "GET", "/user", srv.RootToken, nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("banned address on the API: %d %s", resp.StatusCode, body)
	}
	srv.Advance(time.Hour)
	if status, body := refs(srv, apptest.RootPassword); status != http.StatusOK {
		t.Fatalf("after the ban time: %d %q", status, body)
	}

	trusted := limits
	trusted.GitAuthTrusted = []string{"127.0.0.1", "::1"}
	off := limits
	off.Enabled = false
	for name, srv := range map[string]*apptest.Server{"trusted": newServer(trusted), "off": newServer(off)} {
		for i := range 10 {
			if status, body := refs(srv, "wrong"); status != http.StatusUnauthorized {
				t.Fatalf("%s: failure %d: %d %q", name, i, status, body)
			}
		}
		// (A token: ten wrong passwords lock root's password sign-in.)
		if status, body := refs(srv, srv.RootToken); status != http.StatusOK {
			t.Fatalf("%s: after 10 failures: %d %q, want no ban", name, status, body)
		}
	}
}
