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

// TestOpenSSHClient talks to the server with the real ssh(1): the welcome
// without a command, a refused command's status, and a git command with
// stdin, stdout and GIT_PROTOCOL passed as git sends it (SetEnv).
func TestOpenSSHClient(t *testing.T) {
	sshBin, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client (ssh) not installed; CI installs openssh-client")
	}
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("ssh-keygen not installed; CI installs openssh-client")
	}
	e := startServer(t, nil)

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

	sshRun := func(stdin string, args ...string) (stdout, stderr string, status int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		base := []string{"-F", "/dev/null", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
			"-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
			"-o", "GlobalKnownHostsFile=/dev/null", "-i", keyFile, "-p", port}
		cmd := exec.CommandContext(ctx, sshBin, append(base, args...)...)
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
