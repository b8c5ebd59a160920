package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to read the outbox
	_ "modernc.org/sqlite"             // the "sqlite" driver, to read the outbox

	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest"
)

// These tests run the real binary, as an operator would, to show that the
// webhook outbox survives what only a process can do to it: a kill -9,
// and several nodes sharing one database.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// hearthBinary builds the binary once for the package's process tests.
func hearthBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hearth-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "hearth")
		if out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// node is one running `hearth serve`.
type node struct {
	cmd    *exec.Cmd
	base   string
	stderr *bytes.Buffer
	done   chan struct{}
}

const rootPassword = "hook-test-root-password"

// startNode runs `hearth serve` in work with the given settings on top of
// a clean environment (no HEARTH_ variables of the caller's).
func startNode(t *testing.T, work string, settings map[string]string) *node {
	t.Helper()
	addr := freeAddr(t)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HEARTH_") {
			env = append(env, kv)
		}
	}
	env = append(env, "HEARTH_LISTEN="+addr, "HEARTH_SSH__LISTEN=127.0.0.1:0", "HEARTH_EXTERNAL_URL=http://"+addr, "HEARTH_ROOT__PASSWORD="+rootPassword,
		"HEARTH_LOG__LEVEL=warn")
	for k, v := range settings {
		env = append(env, k+"="+v)
	}
	cmd := exec.Command(hearthBinary(t), "serve")
	cmd.Dir, cmd.Env = work, env
	n := &node{cmd: cmd, base: "http://" + addr, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = io.Discard, &lockedWriter{w: n.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(n.done) }()
	t.Cleanup(func() { n.kill() })
	waitHealthy(t, n.base)
	return n
}

// kill is kill -9: no shutdown hook runs.
func (n *node) kill() {
	_ = n.cmd.Process.Kill()
	<-n.done
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// api makes one request and decodes a JSON answer into out (when not nil).
func api(t *testing.T, base, token, method, path string, form url.Values, out any) {
	t.Helper()
	req, _ := http.NewRequest(method, base+"/api/v4"+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, body)
		}
	}
}

func signIn(t *testing.T, base string) string {
	t.Helper()
	var s struct {
		PrivateToken string `json:"private_token"`
	}
	api(t, base, "", "POST", "/session", url.Values{"login": {"root"}, "password": {rootPassword}}, &s)
	return s.PrivateToken
}

// queue makes a project with `hooks` hooks on receiverURL (paths /h0 ...)
// and opens `issues` issues: hooks*issues deliveries.
func queue(t *testing.T, base, token, receiverURL string, hooks, issues int) {
	t.Helper()
	var p struct{ ID int64 }
	api(t, base, token, "POST", "/projects", url.Values{"name": {"outbox"}}, &p)
	for i := range hooks {
		api(t, base, token, "POST", fmt.Sprintf("/projects/%d/hooks", p.ID), url.Values{
			"url": {fmt.Sprintf("%s/h%d", receiverURL, i)}, "issues_events": {"true"}, "push_events": {"false"}}, nil)
	}
	for i := range issues {
		api(t, base, token, "POST", fmt.Sprintf("/projects/%d/issues", p.ID), url.Values{"title": {"issue " + strconv.Itoa(i)}}, nil)
	}
}

// receiver records deliveries by the delivery id header, and which hook
// (path) and issue each was for.
type receiver struct {
	mu    sync.Mutex
	seen  map[string]int // delivery id -> times received
	pairs map[string]int // "path issue-id" -> times received
	total int
	delay time.Duration
}

func newReceiver() *receiver {
	return &receiver{seen: map[string]int{}, pairs: map[string]int{}}
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ObjectAttributes struct {
			ID int64 `json:"id"`
		} `json:"object_attributes"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	if rc.delay > 0 {
		time.Sleep(rc.delay)
	}
	rc.mu.Lock()
	rc.seen[r.Header.Get("X-Hearth-Delivery")]++
	rc.pairs[fmt.Sprintf("%s %d", r.URL.Path, body.ObjectAttributes.ID)]++
	rc.total++
	rc.mu.Unlock()
}

// counts returns distinct deliveries, distinct (hook, issue) pairs and
// requests in all.
func (rc *receiver) counts() (ids, pairs, total int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.seen), len(rc.pairs), rc.total
}

// waitFor polls cond for up to limit; deliveries are asynchronous.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// outboxStates counts the outbox rows by state.
func outboxStates(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.Query(`SELECT state, COUNT(*) FROM hook_deliveries GROUP BY state`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

// TestOutboxSurvivesKill9 queues 500 deliveries while the receiver is
// down, kills the server with -9 mid-retries, and restarts it with the
// receiver up: all 500 arrive, none twice.
func TestOutboxSurvivesKill9(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	hooksAddr := freeAddr(t) // nothing listens here yet: connection refused
	settings := map[string]string{
		"HEARTH_WEBHOOKS__ALLOW_LOCAL_REQUESTS":   "true",
		"HEARTH_WEBHOOKS__TIMEOUT":                "1s",
		"HEARTH_WEBHOOKS__RETRY_BACKOFF":          "200ms",
		"HEARTH_WEBHOOKS__MAX_ATTEMPTS":           "100",
		"HEARTH_WEBHOOKS__DISABLE_AFTER_FAILURES": "0",
		"HEARTH_WEBHOOKS__POLL_INTERVAL":          "100ms",
	}
	first := startNode(t, work, settings)
	token := signIn(t, first.base)
	queue(t, first.base, token, "http://"+hooksAddr, 5, 100)

	db, err := sql.Open("sqlite", filepath.Join(work, "data", "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Let the workers fail a few rounds, so rows are pending with retries
	// and running under claims when the process dies.
	// Every change was fanned out to its deliveries by then (the kept
	// events are gone).
	waitFor(t, 10*time.Second, "failed attempts", func() bool {
		var n, kept int
		_ = db.QueryRow(`SELECT COUNT(*) FROM hook_deliveries WHERE attempts >= 2`).Scan(&n)
		_ = db.QueryRow(`SELECT COUNT(*) FROM hook_events`).Scan(&kept)
		return n >= 100 && kept == 0
	})
	first.kill()
	states := outboxStates(t, db)
	if states["pending"]+states["running"] != 500 || states["delivered"] != 0 {
		t.Fatalf("outbox after kill -9: %v, want 500 queued", states)
	}
	t.Logf("outbox after kill -9: %v", states)

	rc := newReceiver()
	ln, err := net.Listen("tcp", hooksAddr)
	if err != nil {
		t.Fatalf("receiver: %v", err)
	}
	srv := &http.Server{Handler: rc}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	// Retries double from 200ms, so how far off the last one is depends on
	// how many rounds failed before the kill (more on a busy machine):
	// wait for the latest scheduled attempt and the claims' leases, plus
	// the time to send 500.
	var lastDue, lastClaim time.Time
	if err := db.QueryRow(`SELECT next_attempt_at FROM hook_deliveries ORDER BY next_attempt_at DESC LIMIT 1`).Scan(&lastDue); err != nil {
		t.Fatal(err)
	}
	_ = db.QueryRow(`SELECT claim_expires_at FROM hook_deliveries WHERE state = 'running' ORDER BY claim_expires_at DESC LIMIT 1`).Scan(&lastClaim)
	limit := 60 * time.Second
	if due := time.Until(lastDue) + 60*time.Second; due > limit {
		limit = due
	}
	if due := time.Until(lastClaim) + 60*time.Second; due > limit {
		limit = due
	}
	t.Logf("last retry due in %v; waiting up to %v", time.Until(lastDue).Round(time.Millisecond), limit)
	startNode(t, work, settings)
	waitFor(t, limit, "500 deliveries", func() bool {
		return outboxStates(t, db)["delivered"] == 500
	})
	ids, pairs, total := rc.counts()
	if ids != 500 || pairs != 500 || total != 500 {
		t.Fatalf("receiver got %d requests, %d distinct deliveries, %d distinct hook and issue pairs; want 500 each", total, ids, pairs)
	}
}

// TestTwoNodesDeliverEachOnce queues 1,000 deliveries on a node that
// sends none, then starts two delivering nodes on the same Postgres: each
// delivery arrives exactly once and both nodes take a share.
func TestTwoNodesDeliverEachOnce(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	rc := newReceiver()
	rc.delay = 5 * time.Millisecond
	recv := &http.Server{Handler: rc}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = recv.Serve(ln) }()
	defer recv.Close()

	settings := func(workers string) map[string]string {
		return map[string]string{
			"HEARTH_STORAGE__DRIVER":                "postgres",
			"HEARTH_STORAGE__DSN":                   dsn,
			"HEARTH_WEBHOOKS__ALLOW_LOCAL_REQUESTS": "true",
			"HEARTH_WEBHOOKS__WORKERS":              workers,
			"HEARTH_WEBHOOKS__POLL_INTERVAL":        "100ms",
		}
	}
	api1 := startNode(t, t.TempDir(), settings("0"))
	token := signIn(t, api1.base)
	queue(t, api1.base, token, "http://"+ln.Addr().String(), 10, 100)

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The sending node fans the changes out (every node does) but sends
	// nothing.
	waitFor(t, 30*time.Second, "1,000 queued deliveries", func() bool {
		return outboxStates(t, db)["pending"] == 1000
	})
	if s := outboxStates(t, db); len(s) != 1 {
		t.Fatalf("outbox before the delivering nodes start: %v", s)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); startNode(t, t.TempDir(), settings("4")) }()
	}
	wg.Wait()
	waitFor(t, 60*time.Second, "1,000 deliveries", func() bool {
		return outboxStates(t, db)["delivered"] == 1000
	})
	ids, pairs, total := rc.counts()
	if ids != 1000 || pairs != 1000 || total != 1000 {
		t.Fatalf("receiver got %d requests, %d distinct deliveries, %d distinct hook and issue pairs; want 1000 each", total, ids, pairs)
	}
	rows, err := db.QueryContext(context.Background(), `SELECT claimed_by, COUNT(*) FROM hook_deliveries GROUP BY claimed_by`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	shares := map[string]int{}
	for rows.Next() {
		var nodeID string
		var n int
		_ = rows.Scan(&nodeID, &n)
		shares[nodeID] = n
	}
	t.Logf("deliveries by node: %v", shares)
	if len(shares) != 2 {
		t.Fatalf("deliveries by node: %v, want both nodes to deliver", shares)
	}
}
