package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunnerCommands drives register, verify, run and unregister against
// a fake protocol server.
func TestRunnerCommands(t *testing.T) {
	t.Parallel()
	var registered, requests atomic.Int32
	var gotTags, gotDesc atomic.Value
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	body := func(r *http.Request) map[string]any {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		return m
	}
	mux.HandleFunc("POST /api/v4/runners", func(w http.ResponseWriter, r *http.Request) {
		b := body(r)
		if b["token"] != "reg-token" {
			reply(w, 403, map[string]string{"message": "403 Forbidden"})
			return
		}
		gotTags.Store(b["tag_list"])
		gotDesc.Store(b["description"])
		registered.Store(1)
		reply(w, 201, map[string]any{"id": 9, "token": "glrt-cli-token"})
	})
	mux.HandleFunc("POST /api/v4/runners/verify", func(w http.ResponseWriter, r *http.Request) {
		if body(r)["token"] != "glrt-cli-token" || registered.Load() == 0 {
			reply(w, 403, map[string]string{"message": "403 Forbidden"})
			return
		}
		reply(w, 200, map[string]any{"id": 9, "token": "glrt-cli-token"})
	})
	mux.HandleFunc("DELETE /api/v4/runners", func(w http.ResponseWriter, r *http.Request) {
		registered.Store(0)
		w.WriteHeader(204)
	})
	mux.HandleFunc("POST /api/v4/jobs/request", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(204)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	cfg := filepath.Join(t.TempDir(), "runner.yml")
	run := func(ctx context.Context, args ...string) (string, error) {
		cmd := rootCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		err := cmd.ExecuteContext(ctx)
		return out.String(), err
	}
	ctx := context.Background()
	if _, err := run(ctx, "runner", "register", "--url", srv.URL, "--registration-token", "wrong", "--config", cfg); err == nil {
		t.Fatal("register with a wrong token succeeded")
	}
	out, err := run(ctx, "runner", "register", "--url", srv.URL+"/", "--registration-token", "reg-token",
		"--tag-list", "a, b", "--description", "cli runner", "--config", cfg)
	if err != nil || !strings.Contains(out, "Runner 9 registered") {
		t.Fatalf("register: %v %s", err, out)
	}
	if gotTags.Load() != "a,b" || gotDesc.Load() != "cli runner" {
		t.Fatalf("sent tags %v description %v", gotTags.Load(), gotDesc.Load())
	}
	st, err := os.Stat(cfg)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", st, err)
	}
	data, _ := os.ReadFile(cfg)
	if !strings.Contains(string(data), "glrt-cli-token") || !strings.Contains(string(data), "- a") ||
		!strings.Contains(string(data), "shutdown_timeout: 30s") || !strings.Contains(string(data), "concurrent: 1") {
		t.Fatalf("config:\n%s", data)
	}
	if out, err := run(ctx, "runner", "verify", "--config", cfg); err != nil || !strings.Contains(out, "Runner 9 is valid") {
		t.Fatalf("verify: %v %s", err, out)
	}

	// run polls until its context ends.
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := run(runCtx, "runner", "run", "--config", cfg, "--concurrent", "2")
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for requests.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
	if requests.Load() == 0 {
		t.Fatal("run never asked for a job")
	}

	if out, err := run(ctx, "runner", "unregister", "--config", cfg); err != nil || !strings.Contains(out, "unregistered") {
		t.Fatalf("unregister: %v %s", err, out)
	}
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		t.Fatalf("config left after unregister: %v", err)
	}
	if _, err := run(ctx, "runner", "verify", "--config", cfg); err == nil {
		t.Fatal("verify without a config succeeded")
	}
}
