package sshserver

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"golang.org/x/crypto/ssh"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// sharedHostKeys is a host key directory generated once for the package's
// tests: an RSA 3072 key takes a while to make on a busy machine.
var sharedHostKeys string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sshserver-hostkeys-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedHostKeys = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// fakeAuth signs in the keys it holds, by wire format.
type fakeAuth struct {
	mu    sync.Mutex
	keys  map[string]*domain.Caller
	calls int
}

func newFakeAuth() *fakeAuth { return &fakeAuth{keys: map[string]*domain.Caller{}} }

func (a *fakeAuth) PublicKey(_ context.Context, key []byte) (*domain.Caller, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if c, ok := a.keys[string(key)]; ok {
		return c, nil
	}
	return nil, core.ErrUnauthenticated
}

func (a *fakeAuth) allow(k ssh.PublicKey, c *domain.Caller) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys[string(k.Marshal())] = c
}

func (a *fakeAuth) remove(k ssh.PublicKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.keys, string(k.Marshal()))
}

func (a *fakeAuth) callCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// run is what fakeShell.Run records.
type run struct {
	caller   *domain.Caller
	command  string
	protocol string
}

const (
	echoCommand   = "git-upload-pack 'a/b.git'"
	statusCommand = "git-receive-pack 'a/b.git'"
	echoStderr    = "remote: counting objects\n"
	statusExit    = 3
)

// fakeShell echoes stdin to stdout for echoCommand, exits with statusExit
// for statusCommand, refuses anything else like gitlab-shell, and lets a
// test take over Run through hook.
type fakeShell struct {
	mu   sync.Mutex
	runs []run
	hook func(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (int, bool)
}

func (f *fakeShell) Welcome(c *domain.Caller) string {
	return "Welcome to Hearth, @" + c.User.Username + "!\n"
}

func (f *fakeShell) Run(ctx context.Context, c *domain.Caller, command, protocol string, stdin io.Reader, stdout, stderr io.Writer) int {
	f.mu.Lock()
	f.runs = append(f.runs, run{caller: c, command: command, protocol: protocol})
	hook := f.hook
	f.mu.Unlock()
	if hook != nil {
		if status, ok := hook(ctx, command, stdin, stdout, stderr); ok {
			return status
		}
	}
	switch command {
	case echoCommand:
		_, _ = io.WriteString(stderr, echoStderr)
		if _, err := io.Copy(stdout, stdin); err != nil {
			return 2
		}
		return 0
	case statusCommand:
		return statusExit
	}
	_, _ = io.WriteString(stderr, "GitLab: Disallowed command\n")
	return 1
}

func (f *fakeShell) recorded() []run {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]run(nil), f.runs...)
}

func (f *fakeShell) setHook(h func(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (int, bool)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hook = h
}

// env is a started server with its fakes and one allowed user key.
type env struct {
	srv    *Server
	auth   *fakeAuth
	shell  *fakeShell
	key    ssh.Signer
	caller *domain.Caller
}

func newSigner(t *testing.T) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testLogger(t *testing.T) *zap.Logger {
	return zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
}

// startServer starts a server on a free port; tweak adjusts the options.
// It is shut down when the test ends.
func startServer(t *testing.T, tweak func(*Options)) *env {
	t.Helper()
	e := &env{auth: newFakeAuth(), shell: &fakeShell{}, key: newSigner(t),
		caller: &domain.Caller{User: &domain.User{ID: 7, Username: "root"}}}
	e.auth.allow(e.key.PublicKey(), e.caller)
	o := Options{
		Listen:       "127.0.0.1:0",
		HostKeyDir:   sharedHostKeys,
		LoginTimeout: 10 * time.Second,
		IdleTimeout:  time.Minute,
		Auth:         e.auth,
		Shell:        e.shell,
		Log:          testLogger(t),
	}
	if tweak != nil {
		tweak(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return e
}

// clientConfig trusts exactly the server's host keys.
func (e *env) clientConfig(auth ...ssh.AuthMethod) *ssh.ClientConfig {
	hostKeys := e.srv.HostKeys()
	return &ssh.ClientConfig{
		User: "git",
		Auth: auth,
		HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			for _, k := range hostKeys {
				if bytes.Equal(k.Marshal(), key.Marshal()) {
					return nil
				}
			}
			return errors.New("unknown host key")
		},
		Timeout: 10 * time.Second,
	}
}

func (e *env) dialWith(auth ...ssh.AuthMethod) (*ssh.Client, error) {
	return ssh.Dial("tcp", e.srv.Addr().String(), e.clientConfig(auth...))
}

// dial signs in with the allowed key.
func (e *env) dial(t *testing.T) *ssh.Client {
	t.Helper()
	c, err := e.dialWith(ssh.PublicKeys(e.key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

type result struct {
	stdout, stderr string
	status         int
	err            error // other than a non-zero exit
}

// execute runs command on a new session with stdin and the env vars. It
// may run outside the test's goroutine, so it reports failures in the
// result.
func execute(t *testing.T, c *ssh.Client, command, stdin string, vars map[string]string) result {
	sess, err := c.NewSession()
	if err != nil {
		return result{err: err}
	}
	defer sess.Close()
	for k, v := range vars {
		if err := sess.Setenv(k, v); err != nil {
			return result{err: fmt.Errorf("setenv %s: %w", k, err)}
		}
	}
	var out, errOut bytes.Buffer
	sess.Stdin = strings.NewReader(stdin)
	sess.Stdout, sess.Stderr = &out, &errOut
	err = sess.Run(command)
	r := result{stdout: out.String(), stderr: errOut.String()}
	var ee *ssh.ExitError
	switch {
	case errors.As(err, &ee):
		r.status = ee.ExitStatus()
	case err != nil:
		r.err = err
	}
	return r
}

// waitGoroutines waits for the goroutine count to come back to base.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, want at most %d:\n%s", n, base, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// closedWithin fails unless done is closed within d.
func closedWithin(t *testing.T, done <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: not within %s", what, d)
	}
}
