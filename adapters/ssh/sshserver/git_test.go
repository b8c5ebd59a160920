package sshserver

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGitCloneAndPushOverOpenSSH runs real git through ssh(1) and the
// server, with a shell that hands the session to git upload-pack and
// receive-pack: the full-duplex protocol, stdin EOF and exit statuses
// must all pass through for clone and push to succeed.
func TestGitCloneAndPushOverOpenSSH(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	e := startServer(t, nil)
	oc := newOpenSSHClient(t, e)

	root := t.TempDir()
	bare := filepath.Join(root, "srv", "a", "b.git")
	git := func(dir string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, gitBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_SSH_COMMAND="+oc.bin+" "+strings.Join(oc.args, " "))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
		t.Fatal(err)
	}
	git(root, "init", "-q", "--bare", "-b", "main", bare)

	e.shell.setHook(func(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (int, bool) {
		service, repo, ok := strings.Cut(command, " ")
		// git sends the URL's path: '/a/b.git' for ssh://host/a/b.git.
		repo = strings.TrimPrefix(strings.Trim(repo, "'"), "/")
		if !ok || repo != "a/b.git" || (service != "git-upload-pack" && service != "git-receive-pack") {
			return 0, false
		}
		runs := e.shell.recorded()
		cmd := exec.CommandContext(ctx, gitBin, strings.TrimPrefix(service, "git-"), bare)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
		cmd.Env = append(os.Environ(), "GIT_PROTOCOL="+runs[len(runs)-1].protocol)
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), true
			}
			return 1, true
		}
		return 0, true
	})

	url := "ssh://git@127.0.0.1:" + oc.port + "/a/b.git"
	work := filepath.Join(root, "work")
	git(root, "clone", "-q", url, work) // empty repository
	if err := os.WriteFile(filepath.Join(work, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(work, "add", "README")
	git(work, "commit", "-q", "-m", "first")
	git(work, "push", "-q", "origin", "HEAD:main")

	clone := filepath.Join(root, "clone")
	git(root, "-c", "protocol.version=2", "clone", "-q", url, clone)
	data, err := os.ReadFile(filepath.Join(clone, "README"))
	if err != nil || string(data) != "hello\n" {
		t.Fatalf("cloned README %q, %v", data, err)
	}
	if want := strings.TrimSpace(git(work, "rev-parse", "HEAD")); strings.TrimSpace(git(clone, "rev-parse", "HEAD")) != want {
		t.Error("clone's HEAD differs from the pushed commit")
	}
	runs := e.shell.recorded()
	if last := runs[len(runs)-1]; last.protocol != "version=2" {
		t.Errorf("GIT_PROTOCOL of the v2 clone %q, want version=2", last.protocol)
	}
}
