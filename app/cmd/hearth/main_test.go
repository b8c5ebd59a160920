package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeFromScratch builds the binary and runs it as a user would: no
// configuration, an empty data directory, a generated root password.
func TestServeFromScratch(t *testing.T) {
	bin := hearthBinary(t)
	work := t.TempDir()
	addr, sshAddr := freeAddr(t), freeAddr(t)
	// Nothing but the listen addresses: the defaults must be enough.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HEARTH_") {
			env = append(env, kv)
		}
	}
	env = append(env, "HEARTH_LISTEN="+addr, "HEARTH_SSH__LISTEN="+sshAddr)

	// Admin commands on a fresh database (they migrate first).
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = work, env
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hearth %v: %v\n%s%s", args, err, out, errOut.String())
		}
		return string(out)
	}
	if out := run("migrate"); !strings.Contains(out, "migrations applied") {
		t.Fatalf("migrate: %s", out)
	}
	// migrate only migrates: the database is there, but no module started
	// (the git backend would have made its repository root).
	if _, err := os.Stat(filepath.Join(work, "data", "hearth.db")); err != nil {
		t.Fatalf("migrate made no database: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "data", "repositories")); !os.IsNotExist(err) {
		t.Fatalf("migrate started the git backend: %v", err)
	}

	serve := exec.Command(bin, "serve")
	serve.Dir, serve.Env = work, env
	stdout, _ := serve.StdoutPipe()
	var stderr bytes.Buffer
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer serve.Process.Kill()
	password := readPassword(t, stdout)
	go io.Copy(io.Discard, stdout)
	waitHealthy(t, "http://"+addr)

	resp, err := http.PostForm("http://"+addr+"/api/v4/session", url.Values{"login": {"root"}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		PrivateToken string `json:"private_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if resp.StatusCode != 201 || s.PrivateToken == "" {
		t.Fatalf("sign in with the printed password: %d", resp.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(work, "data", "hearth.db")); err != nil {
		t.Fatalf("database not under ./data: %v", err)
	}
	// The SSH server listens too, with host keys made under ./data/ssh.
	banner := make([]byte, 8)
	if c, err := net.Dial("tcp", sshAddr); err != nil {
		t.Fatalf("ssh listener: %v", err)
	} else {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = io.ReadFull(c, banner)
		c.Close()
		if err != nil || string(banner) != "SSH-2.0-" {
			t.Fatalf("ssh banner %q: %v", banner, err)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "data", "ssh", "ssh_host_ed25519_key")); err != nil {
		t.Fatalf("ssh host key not under ./data/ssh: %v", err)
	}

	// Admin commands work against the same database while it serves.
	run("admin", "create-user", "--username", "alice", "--email", "alice@example.com", "--password", "alice-password")
	token := strings.TrimSpace(run("admin", "create-token", "--user", "alice", "--scopes", "api"))
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/v4/user", nil)
	req.Header.Set("PRIVATE-TOKEN", token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var me struct{ Username string }
	_ = json.NewDecoder(resp.Body).Decode(&me)
	resp.Body.Close()
	if me.Username != "alice" {
		t.Fatalf("token from create-token is %q's", me.Username)
	}

	// runners-token prints a project's new registration token, which
	// registers a runner.
	req, _ = http.NewRequest("POST", "http://"+addr+"/api/v4/projects", strings.NewReader("name=ci"))
	req.Header.Set("PRIVATE-TOKEN", token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create project: %v %v", err, resp)
	}
	resp.Body.Close()
	regToken := strings.TrimSpace(run("admin", "runners-token", "--project", "alice/ci"))
	if !strings.HasPrefix(regToken, "GR1348941") {
		t.Fatalf("runners-token printed %q", regToken)
	}
	resp, err = http.Post("http://"+addr+"/api/v4/runners", "application/json", strings.NewReader(`{"token":"`+regToken+`"}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("register with the printed token: %v %v", err, resp)
	}
	resp.Body.Close()

	// SIGTERM stops it gracefully.
	_ = serve.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- serve.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited with %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if strings.Contains(stderr.String(), password) || strings.Contains(stderr.String(), token) || strings.Contains(stderr.String(), regToken) {
		t.Fatal("a secret reached the log")
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Fatalf("no graceful shutdown logged:\n%s", stderr.String())
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

var passwordLine = regexp.MustCompile(`^\s{4}(\S+)\s*$`)

func readPassword(t *testing.T, r io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if m := passwordLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				return
			}
		}
		close(found)
	}()
	select {
	case p, ok := <-found:
		if !ok || p == "" {
			t.Fatal("serve printed no root password")
		}
		return p
	case <-time.After(60 * time.Second):
		t.Fatal("serve printed no root password in time")
	}
	return ""
}

func waitHealthy(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/-/readiness")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal(fmt.Sprintf("%s never became ready", base))
}
