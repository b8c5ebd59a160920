package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/runner"
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
	if _, err := run(ctx, "runner", "register", "--url", srv.URL, "--registration-token", "reg-token", "--config", cfg); err == nil ||
		!strings.Contains(err.Error(), "exists") {
		t.Fatalf("a second register over the config: %v", err)
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

// TestRunnerHelperProcess is `hearth` itself when re-executed by a test
// with HEARTH_TEST_MAIN_ARGS set (one argument a line).
func TestRunnerHelperProcess(t *testing.T) {
	args := os.Getenv("HEARTH_TEST_MAIN_ARGS")
	if args == "" {
		t.Skip("only a helper process")
	}
	cmd := rootCmd()
	cmd.SetArgs(strings.Split(args, "\n"))
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "hearth:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// jobServer is a protocol server handing out shell jobs that need no git.
type jobServer struct {
	*httptest.Server
	mu       sync.Mutex
	queue    []string // scripts
	next     int64
	traces   map[int64]string
	final    map[int64]string // state/failure_reason
	requests int
}

func newJobServer(t *testing.T) *jobServer {
	s := &jobServer{traces: map[int64]string{}, final: map[int64]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v4/jobs/request", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests++
		if len(s.queue) == 0 {
			w.WriteHeader(204)
			return
		}
		script := s.queue[0]
		s.queue = s.queue[1:]
		s.next++
		id := s.next
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": id, "token": fmt.Sprintf("glcbt-%d", id),
			"job_info":    map[string]any{"id": id, "name": "j", "project_id": 1},
			"git_info":    map[string]any{"repo_url": "http://x:y@127.0.0.1:1/g/p.git", "sha": strings.Repeat("a", 40), "ref": "main"},
			"runner_info": map[string]any{"timeout": 600},
			"variables":   []map[string]any{{"key": "GIT_STRATEGY", "value": "none", "public": true}},
			"steps":       []map[string]any{{"name": "script", "script": []string{script}, "timeout": 600, "when": "on_success"}},
		})
	})
	mux.HandleFunc("PUT /api/v4/jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		var b struct {
			State         string `json:"state"`
			FailureReason string `json:"failure_reason"`
		}
		_ = json.NewDecoder(r.Body).Decode(&b)
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		s.mu.Lock()
		if b.State != "running" {
			s.final[id] = b.State + "/" + b.FailureReason
		}
		s.mu.Unlock()
		w.Header().Set("Job-Status", "running")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = w.Write([]byte("{}"))
	})
	mux.HandleFunc("PATCH /api/v4/jobs/{id}/trace", func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		s.mu.Lock()
		s.traces[id] += string(data)
		n := len(s.traces[id])
		s.mu.Unlock()
		w.Header().Set("Job-Status", "running")
		w.Header().Set("Range", fmt.Sprintf("0-%d", n))
		w.WriteHeader(202)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *jobServer) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// startRunner runs `hearth runner run` in a child process.
func startRunner(t *testing.T, url string) (*exec.Cmd, chan error) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "runner.yml")
	c := runner.Config{URL: url, Token: "glrt-signals", BuildsDir: filepath.Join(dir, "builds"), ShutdownTimeout: 20 * time.Second}
	if err := c.Save(cfg); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunnerHelperProcess$")
	cmd.Env = append(os.Environ(), "HEARTH_TEST_MAIN_ARGS="+strings.Join([]string{"runner", "run", "--config", cfg}, "\n"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("runner output:\n%s", out.String())
		}
	})
	return cmd, done
}

func TestRunnerSignals(t *testing.T) {
	t.Parallel()
	t.Run("SIGTERM waits for the running job", func(t *testing.T) {
		t.Parallel()
		s := newJobServer(t)
		s.queue = []string{"echo started; sleep 1.5; echo finished"}
		cmd, done := startRunner(t, s.URL)
		s.waitFor(t, "the job to start", func() bool { return strings.Contains(s.traces[1], "started") })
		_ = cmd.Process.Signal(syscall.SIGTERM)
		time.Sleep(200 * time.Millisecond)
		s.mu.Lock()
		s.queue = append(s.queue, "echo never")
		s.mu.Unlock()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("exit: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the runner did not stop")
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.final[1] != "success/" || !strings.Contains(s.traces[1], "finished") || len(s.queue) != 1 {
			t.Fatalf("final %q, queue %v, trace:\n%s", s.final[1], s.queue, s.traces[1])
		}
	})
	t.Run("a second SIGINT cancels the running job", func(t *testing.T) {
		t.Parallel()
		s := newJobServer(t)
		s.queue = []string{"echo started; sleep 600"}
		cmd, done := startRunner(t, s.URL)
		s.waitFor(t, "the job to start", func() bool { return strings.Contains(s.traces[1], "started") })
		_ = cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(300 * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("exit: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the runner did not stop")
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.final[1] != "failed/runner_system_failure" {
			t.Fatalf("final %q", s.final[1])
		}
	})
}
