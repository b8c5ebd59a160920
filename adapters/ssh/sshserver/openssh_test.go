package sshserver

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// opensshClient is ssh(1) set up to sign in to a test server with a key
// of its own and to trust only the server's host keys.
type opensshClient struct {
	bin        string
	args       []string // options before the destination
	port       string
	keyFile    string
	knownHosts string
}

// newOpenSSHClient makes a key with ssh-keygen, allows it for e.caller and
// writes a known_hosts file with the server's host keys. It skips the test
// when OpenSSH is not installed.
func newOpenSSHClient(t *testing.T, e *env) *opensshClient {
	t.Helper()
	sshBin, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client (ssh) not installed; CI installs openssh-client")
	}
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("ssh-keygen not installed; CI installs openssh-client")
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-f", keyFile).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	pubText, err := os.ReadFile(keyFile + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey(pubText)
	if err != nil {
		t.Fatal(err)
	}
	e.auth.allow(pub, e.caller)

	_, port, _ := net.SplitHostPort(e.srv.Addr().String())
	var known bytes.Buffer
	for _, k := range e.srv.HostKeys() {
		known.WriteString("[127.0.0.1]:" + port + " " + string(ssh.MarshalAuthorizedKey(k)))
	}
	knownHosts := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(knownHosts, known.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return &opensshClient{bin: sshBin, port: port, keyFile: keyFile, knownHosts: knownHosts,
		args: []string{"-F", "/dev/null", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
			"-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
			"-o", "GlobalKnownHostsFile=/dev/null", "-i", keyFile}}
}

// TestOpenSSHClient talks to the server with the real ssh(1): the welcome
// without a command, a refused command's status, and a git command with
// stdin, stdout and GIT_PROTOCOL passed as git sends it (SetEnv).
func TestOpenSSHClient(t *testing.T) {
	e := startServer(t, nil)
	oc := newOpenSSHClient(t, e)

	sshRun := func(stdin string, args ...string) (stdout, stderr string, status int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		args = append(append(append([]string{}, oc.args...), "-p", oc.port), args...)
		cmd := exec.CommandContext(ctx, oc.bin, args...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			status = ee.ExitCode()
		default:
			t.Fatalf("ssh: %v", err)
		}
		return out.String(), errOut.String(), status
	}

	out, errOut, status := sshRun("", "git@127.0.0.1")
	if status != 0 || out != "Welcome to Hearth, @root!\n" {
		t.Errorf("ssh git@host: status %d stdout %q stderr %q", status, out, errOut)
	}

	out, errOut, status = sshRun("", "git@127.0.0.1", "sh")
	if status == 0 || !strings.Contains(errOut, "GitLab: Disallowed command") {
		t.Errorf("ssh git@host sh: status %d stdout %q stderr %q", status, out, errOut)
	}

	out, errOut, status = sshRun("0009done\n", "-o", "SetEnv=GIT_PROTOCOL=version=2",
		"git@127.0.0.1", echoCommand)
	if status != 0 || out != "0009done\n" {
		t.Errorf("ssh git@host %s: status %d stdout %q stderr %q", echoCommand, status, out, errOut)
	}
	runs := e.shell.recorded()
	if last := runs[len(runs)-1]; last.command != echoCommand || last.protocol != "version=2" {
		t.Errorf("last run %+v, want %q with protocol version=2", last, echoCommand)
	}
}
