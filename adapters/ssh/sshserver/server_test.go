package sshserver

import (
	"context"
	"crypto/rsa"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

func TestShellPrintsWelcome(t *testing.T) {
	e := startServer(t, nil)
	c := e.dial(t)
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var out strings.Builder
	sess.Stdout = &out
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	if err := sess.Wait(); err != nil {
		t.Fatalf("wait: %v (want exit status 0)", err)
	}
	if got, want := out.String(), "Welcome to Hearth, @root!\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if len(e.shell.recorded()) != 0 {
		t.Error("shell request ran a command")
	}
}

func TestExecPassesStreamsAndStatus(t *testing.T) {
	e := startServer(t, nil)
	c := e.dial(t)

	r := execute(t, c, echoCommand, "0032want abc\n", nil)
	if r.err != nil || r.status != 0 {
		t.Fatalf("echo: err %v status %d", r.err, r.status)
	}
	if r.stdout != "0032want abc\n" || r.stderr != echoStderr {
		t.Errorf("echo: stdout %q stderr %q", r.stdout, r.stderr)
	}

	r = execute(t, c, statusCommand, "", nil)
	if r.err != nil || r.status != statusExit {
		t.Errorf("status: err %v status %d, want %d", r.err, r.status, statusExit)
	}

	runs := e.shell.recorded()
	if len(runs) != 2 || runs[0].command != echoCommand || runs[1].command != statusCommand {
		t.Fatalf("runs %+v", runs)
	}
	if runs[0].caller != e.caller || runs[0].protocol != "" {
		t.Errorf("run got caller %p protocol %q, want %p and none", runs[0].caller, runs[0].protocol, e.caller)
	}
}

func TestGitProtocolEnv(t *testing.T) {
	e := startServer(t, nil)
	c := e.dial(t)
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for name, value := range map[string]string{
		"LANG":         "C",
		"GIT_DIR":      "/etc",
		"LD_PRELOAD":   "/tmp/x.so",
		"GIT_PROTOCOL": "version=2\n",
	} {
		if err := sess.Setenv(name, value); err == nil {
			t.Errorf("env %s=%q accepted", name, value)
		}
	}
	if err := sess.Setenv("GIT_PROTOCOL", strings.Repeat("a", maxProtocolLen+1)); err == nil {
		t.Error("oversized GIT_PROTOCOL accepted")
	}
	if err := sess.Setenv("GIT_PROTOCOL", "version=2"); err != nil {
		t.Fatalf("GIT_PROTOCOL refused: %v", err)
	}
	if err := sess.Run(statusCommand); err == nil {
		t.Fatal("want exit status")
	}
	runs := e.shell.recorded()
	if len(runs) != 1 || runs[0].protocol != "version=2" {
		t.Errorf("runs %+v, want protocol version=2", runs)
	}
}

func TestDisallowedCommandsRefusedBeforeShell(t *testing.T) {
	e := startServer(t, nil)
	c := e.dial(t)
	for name, cmd := range map[string]string{
		"empty":    "",
		"blank":    "   ",
		"newline":  "git-upload-pack 'a/b.git'\nrm -rf /",
		"nul":      "git-upload-pack 'a/b.git'\x00x",
		"too long": "git-upload-pack '" + strings.Repeat("a", maxCommandLen) + "'",
	} {
		r := execute(t, c, cmd, "", nil)
		if r.err != nil || r.status != 1 || r.stderr != "GitLab: Disallowed command\n" {
			t.Errorf("%s: err %v status %d stderr %q", name, r.err, r.status, r.stderr)
		}
	}
	if runs := e.shell.recorded(); len(runs) != 0 {
		t.Errorf("shell ran %+v", runs)
	}
	// The shell decides on the rest: a command it refuses is passed on.
	r := execute(t, c, "sh", "", nil)
	if r.status != 1 || r.stderr != "GitLab: Disallowed command\n" {
		t.Errorf("sh: status %d stderr %q", r.status, r.stderr)
	}
}

func TestSessionRequestsRefused(t *testing.T) {
	e := startServer(t, nil)
	c := e.dial(t)

	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err == nil {
		t.Error("pty-req accepted")
	}
	if err := sess.RequestSubsystem("sftp"); err == nil {
		t.Error("subsystem sftp accepted")
	}
	for _, req := range []string{"x11-req", "auth-agent-req@openssh.com"} {
		if ok, err := sess.SendRequest(req, true, nil); ok || err != nil {
			t.Errorf("%s: ok %v err %v", req, ok, err)
		}
	}
	_ = sess.Close()

	// One exec per channel: a second exec, and env once started, are
	// refused while the first runs.
	ch, reqs, err := c.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	go ssh.DiscardRequests(reqs)
	execPayload := ssh.Marshal(struct{ Command string }{echoCommand})
	if ok, err := ch.SendRequest("exec", true, execPayload); !ok || err != nil {
		t.Fatalf("first exec: ok %v err %v", ok, err)
	}
	if ok, _ := ch.SendRequest("exec", true, execPayload); ok {
		t.Error("second exec accepted")
	}
	if ok, _ := ch.SendRequest("shell", true, nil); ok {
		t.Error("shell after exec accepted")
	}
	envPayload := ssh.Marshal(struct{ Name, Value string }{"GIT_PROTOCOL", "version=2"})
	if ok, _ := ch.SendRequest("env", true, envPayload); ok {
		t.Error("env after exec accepted")
	}
	if _, err := ch.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	_ = ch.CloseWrite()
	out, err := io.ReadAll(ch)
	if err != nil || string(out) != "ping" {
		t.Errorf("exec output %q err %v", out, err)
	}
	_ = ch.Close()
	if n := len(e.shell.recorded()); n != 1 {
		t.Errorf("shell ran %d times, want 1", n)
	}
}

func TestForwardingRefused(t *testing.T) {
	e := startServer(t, nil)
	c := e.dial(t)

	if _, err := c.Dial("tcp", e.srv.Addr().String()); !isProhibited(err) {
		t.Errorf("direct-tcpip: %v, want prohibited", err)
	}
	for _, typ := range []string{"x11", "forwarded-tcpip", "direct-streamlocal@openssh.com"} {
		if _, _, err := c.OpenChannel(typ, nil); !isProhibited(err) {
			t.Errorf("%s: %v, want prohibited", typ, err)
		}
	}
	if ln, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		_ = ln.Close()
		t.Error("tcpip-forward accepted")
	}
	if ok, _, err := c.SendRequest("tcpip-forward", true, ssh.Marshal(struct {
		Addr string
		Port uint32
	}{"127.0.0.1", 0})); ok || err != nil {
		t.Errorf("tcpip-forward: ok %v err %v", ok, err)
	}
	// The connection still serves git after all that.
	if r := execute(t, c, echoCommand, "x", nil); r.err != nil || r.stdout != "x" {
		t.Errorf("exec after refusals: %+v", r)
	}
}

func isProhibited(err error) bool {
	var oce *ssh.OpenChannelError
	return errors.As(err, &oce) && oce.Reason == ssh.Prohibited
}

func TestChannelsPerConnectionBounded(t *testing.T) {
	e := startServer(t, nil)
	c := e.dial(t)
	for i := range maxChannelsPerConn {
		if _, _, err := c.OpenChannel("session", nil); err != nil {
			t.Fatalf("channel %d: %v", i, err)
		}
	}
	_, _, err := c.OpenChannel("session", nil)
	var oce *ssh.OpenChannelError
	if !errors.As(err, &oce) || oce.Reason != ssh.ResourceShortage {
		t.Errorf("channel beyond the cap: %v, want resource shortage", err)
	}
}

func TestAuthentication(t *testing.T) {
	e := startServer(t, nil)

	stranger := newSigner(t)
	if c, err := e.dialWith(ssh.PublicKeys(stranger)); err == nil {
		_ = c.Close()
		t.Fatal("unknown key signed in")
	}
	if c, err := e.dialWith(ssh.Password("secret"), ssh.KeyboardInteractive(
		func(string, string, []string, []bool) ([]string, error) { return nil, nil })); err == nil {
		_ = c.Close()
		t.Fatal("password or keyboard-interactive signed in")
	}
	if c, err := e.dialWith(); err == nil {
		_ = c.Close()
		t.Fatal("none signed in")
	}

	// A refused key lets the client try its next one.
	c, err := e.dialWith(ssh.PublicKeys(stranger, e.key))
	if err != nil {
		t.Fatalf("second key refused: %v", err)
	}
	if r := execute(t, c, statusCommand, "", nil); r.status != statusExit {
		t.Errorf("exec: %+v", r)
	}
	_ = c.Close()
	if runs := e.shell.recorded(); runs[0].caller != e.caller {
		t.Error("run did not get the key's caller")
	}

	// A key deleted between connections is refused on the next one.
	calls := e.auth.callCount()
	e.auth.remove(e.key.PublicKey())
	if c, err := e.dialWith(ssh.PublicKeys(e.key)); err == nil {
		_ = c.Close()
		t.Fatal("deleted key signed in")
	}
	if e.auth.callCount() == calls {
		t.Error("the deleted key was not looked up again")
	}
}

func TestLoginTimeoutClosesSilentClient(t *testing.T) {
	e := startServer(t, func(o *Options) { o.LoginTimeout = 200 * time.Millisecond })
	nc, err := net.Dial("tcp", e.srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// The client never sends its version: the server must hang up. The
	// read deadline only bounds the test.
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = io.Copy(io.Discard, nc)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("server kept the connection open past the login timeout")
	}
}

func TestLoginTimeoutClearedAfterAuth(t *testing.T) {
	e := startServer(t, func(o *Options) { o.LoginTimeout = 300 * time.Millisecond })
	c := e.dial(t)
	release := make(chan struct{})
	e.shell.setHook(func(_ context.Context, cmd string, _ io.Reader, stdout, _ io.Writer) (int, bool) {
		if cmd != "slow" {
			return 0, false
		}
		<-release
		_, _ = io.WriteString(stdout, "done")
		return 0, true
	})
	// The command outlives the login timeout, so the deadline set for
	// the handshake must be gone.
	done := make(chan result, 1)
	go func() { done <- execute(t, c, "slow", "", nil) }()
	loginTimer := time.NewTimer(time.Second)
	<-loginTimer.C
	close(release)
	if r := <-done; r.err != nil || r.stdout != "done" {
		t.Errorf("slow command: %+v", r)
	}
}

func TestMaxSessionsPerIP(t *testing.T) {
	e := startServer(t, func(o *Options) { o.MaxSessionsPerIP = 1 })
	first, err := e.dialWith(ssh.PublicKeys(e.key))
	if err != nil {
		t.Fatal(err)
	}
	calls := e.auth.callCount()
	if c, err := e.dialWith(ssh.PublicKeys(e.key)); err == nil {
		_ = c.Close()
		t.Fatal("second connection from the same address accepted")
	}
	if e.auth.callCount() != calls {
		t.Error("the refused connection reached authentication")
	}
	_ = first.Close()
	// The slot frees once the server has seen the first connection go.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := e.dialWith(ssh.PublicKeys(e.key))
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot not released: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestIdleTimeout(t *testing.T) {
	const idle = 500 * time.Millisecond
	e := startServer(t, func(o *Options) { o.IdleTimeout = idle })

	// A command streaming for several idle periods is not cut.
	e.shell.setHook(func(_ context.Context, cmd string, _ io.Reader, stdout, _ io.Writer) (int, bool) {
		if cmd != "stream" {
			return 0, false
		}
		tick := time.NewTicker(idle / 10)
		defer tick.Stop()
		for range 20 {
			<-tick.C
			if _, err := io.WriteString(stdout, "."); err != nil {
				return 2, true
			}
		}
		return 0, true
	})
	c := e.dial(t)
	if r := execute(t, c, "stream", "", nil); r.err != nil || r.status != 0 || r.stdout != strings.Repeat(".", 20) {
		t.Fatalf("streaming command: %+v", r)
	}

	// A connection with nothing going on is closed.
	closed := make(chan struct{})
	go func() {
		_ = c.Wait()
		close(closed)
	}()
	closedWithin(t, closed, 10*time.Second, "idle connection closed")
}

func TestRunContextCancelledOnDisconnect(t *testing.T) {
	e := startServer(t, nil)
	started, cancelled := make(chan struct{}), make(chan struct{})
	e.shell.setHook(func(ctx context.Context, _ string, _ io.Reader, _, _ io.Writer) (int, bool) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return 1, true
	})
	c, err := e.dialWith(ssh.PublicKeys(e.key))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Start("hang"); err != nil {
		t.Fatal(err)
	}
	closedWithin(t, started, 5*time.Second, "run started")
	_ = c.Close()
	closedWithin(t, cancelled, 5*time.Second, "run context cancelled")
}

func TestPanicInShellIsRecovered(t *testing.T) {
	e := startServer(t, nil)
	e.shell.setHook(func(context.Context, string, io.Reader, io.Writer, io.Writer) (int, bool) {
		panic("boom")
	})
	c := e.dial(t)
	if r := execute(t, c, "anything", "", nil); r.err != nil || r.status != 1 {
		t.Errorf("panicking command: %+v, want exit status 1", r)
	}
	e.shell.setHook(nil)
	c2 := e.dial(t)
	if r := execute(t, c2, statusCommand, "", nil); r.status != statusExit {
		t.Errorf("server after a panic: %+v", r)
	}
}

func TestHostKeysPersisted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ssh")
	o := Options{HostKeyDir: dir, Auth: newFakeAuth(), Shell: &fakeShell{}}
	s1, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	k1, k2 := s1.HostKeys(), s2.HostKeys()
	if len(k1) != 2 || len(k2) != 2 {
		t.Fatalf("host keys %d and %d, want 2", len(k1), len(k2))
	}
	for i := range k1 {
		if string(k1[i].Marshal()) != string(k2[i].Marshal()) {
			t.Errorf("host key %s changed across New", k1[i].Type())
		}
	}
	if k1[0].Type() != ssh.KeyAlgoED25519 || k1[1].Type() != ssh.KeyAlgoRSA {
		t.Errorf("host key types %s, %s", k1[0].Type(), k1[1].Type())
	}

	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("dir: %v %v, want 0700", fi.Mode(), err)
	}
	for _, name := range []string{"ssh_host_ed25519_key", "ssh_host_rsa_key"} {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, fi.Mode())
		}
		data, _ := os.ReadFile(path)
		if !strings.HasPrefix(string(data), "-----BEGIN OPENSSH PRIVATE KEY-----") {
			t.Errorf("%s is not an OpenSSH private key", name)
		}
		if name == "ssh_host_rsa_key" {
			raw, err := ssh.ParseRawPrivateKey(data)
			if err != nil {
				t.Fatal(err)
			}
			if k, ok := raw.(*rsa.PrivateKey); !ok || k.N.BitLen() != rsaHostKeyBits {
				t.Errorf("rsa host key %T, want %d bits", raw, rsaHostKeyBits)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("dir holds %d files, want the 2 keys (no temp files left)", len(entries))
	}

	// A corrupt key stops New, naming the file.
	bad := filepath.Join(dir, "ssh_host_rsa_key")
	if err := os.WriteFile(bad, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("corrupt key: %v, want an error naming %s", err, bad)
	}
}

func TestShutdownLetsRunningExecFinish(t *testing.T) {
	base := runtime.NumGoroutine()
	e := startServer(t, nil)
	started, release := make(chan struct{}), make(chan struct{})
	e.shell.setHook(func(ctx context.Context, _ string, _ io.Reader, stdout, _ io.Writer) (int, bool) {
		close(started)
		<-release
		if ctx.Err() != nil {
			return 2, true
		}
		_, _ = io.WriteString(stdout, "pushed")
		return 0, true
	})
	busy, err := e.dialWith(ssh.PublicKeys(e.key))
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	idle, err := e.dialWith(ssh.PublicKeys(e.key))
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()

	done := make(chan result, 1)
	go func() { done <- execute(t, busy, "git-receive-pack 'a/b.git'", "", nil) }()
	closedWithin(t, started, 5*time.Second, "push started")

	shutdownErr := make(chan error, 1)
	go func() { shutdownErr <- e.srv.Shutdown(context.Background()) }()

	// The connection with nothing running is closed at once, and new
	// connections are refused, while the push goes on.
	idleClosed := make(chan struct{})
	go func() { _ = idle.Wait(); close(idleClosed) }()
	closedWithin(t, idleClosed, 5*time.Second, "idle connection closed by shutdown")
	if c, err := e.dialWith(ssh.PublicKeys(e.key)); err == nil {
		_ = c.Close()
		t.Error("connection accepted during shutdown")
	}
	select {
	case err := <-shutdownErr:
		t.Fatalf("shutdown returned %v while a push runs", err)
	default:
	}

	close(release)
	if r := <-done; r.err != nil || r.status != 0 || r.stdout != "pushed" {
		t.Errorf("push during shutdown: %+v", r)
	}
	select {
	case err := <-shutdownErr:
		if err != nil {
			t.Errorf("shutdown: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown did not return after the push finished")
	}
	_ = busy.Close()
	_ = idle.Close()
	waitGoroutines(t, base)
}

func TestShutdownOutOfTimeCancelsRun(t *testing.T) {
	base := runtime.NumGoroutine()
	e := startServer(t, nil)
	started, cancelled := make(chan struct{}), make(chan struct{})
	e.shell.setHook(func(ctx context.Context, _ string, _ io.Reader, _, _ io.Writer) (int, bool) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return 1, true
	})
	c, err := e.dialWith(ssh.PublicKeys(e.key))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Start("hang"); err != nil {
		t.Fatal(err)
	}
	closedWithin(t, started, 5*time.Second, "run started")

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := e.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("shutdown: %v, want deadline exceeded", err)
	}
	closedWithin(t, cancelled, time.Second, "run context cancelled")
	if err := sess.Wait(); err == nil {
		t.Error("session ended cleanly, want a dropped connection")
	}
	_ = c.Close()
	waitGoroutines(t, base)
}
