package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// killGrace is how long a canceled process group has between SIGTERM and
// SIGKILL.
const killGrace = 2 * time.Second

// proc is one command of a job: it runs in its own process group, its
// stdout and stderr go to out, and when ctx ends the whole group gets
// SIGTERM, then SIGKILL after the grace period. When the command exits,
// whatever it left behind in its group is killed too.
type proc struct {
	dir   string
	env   []string
	out   io.Writer
	grace time.Duration
}

// run returns the command's exit code; err is set only when it could not
// run at all. A command stopped by ctx returns a non-zero code and the
// caller reads context.Cause(ctx) for why.
func (p proc) run(ctx context.Context, name string, args ...string) (int, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A real pipe rather than an io.Writer: Wait then does not wait for
	// background children that keep the output open.
	pr, pw, err := os.Pipe()
	if err != nil {
		return -1, fmt.Errorf("output pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return -1, fmt.Errorf("start %s: %w", name, err)
	}
	pw.Close()
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(p.out, pr)
		close(copied)
	}()
	pgid := cmd.Process.Pid
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	grace := p.grace
	if grace <= 0 {
		grace = killGrace
	}
	var werr error
	select {
	case werr = <-waited:
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case werr = <-waited:
		case <-time.After(grace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			werr = <-waited
		}
	}
	// Nothing of the job outlives its step.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-copied:
	case <-time.After(grace):
		// Someone left the group and holds the output open: stop reading.
		pr.Close()
		<-copied
	}
	pr.Close()
	if werr == nil {
		return 0, nil
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) {
		if code := exit.ExitCode(); code >= 0 {
			return code, nil
		}
		return -1, nil // killed by a signal
	}
	return -1, fmt.Errorf("wait for %s: %w", name, werr)
}

// shellScript turns a step's commands into a script that echoes each
// command ("$ cmd", in green as gitlab-runner does) before running it.
func shellScript(lines []string) string {
	var b strings.Builder
	b.WriteString("set -e\n")
	for _, l := range lines {
		shown := l
		if first, _, multi := strings.Cut(strings.TrimSpace(l), "\n"); multi {
			shown = first + " # collapsed multi-line command"
		}
		b.WriteString("printf '\\033[32;1m%s\\033[0;m\\n' " + shellQuote("$ "+shown) + "\n")
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runScript writes the commands to a file in tmpDir and runs it with
// bash -eo pipefail (sh -e without bash).
func (p proc) runScript(ctx context.Context, tmpDir, name string, lines []string) (int, error) {
	file := filepath.Join(tmpDir, name+".sh")
	if err := os.WriteFile(file, []byte(shellScript(lines)), 0o700); err != nil {
		return -1, fmt.Errorf("write the %s script: %w", name, err)
	}
	defer os.Remove(file)
	if bash, err := exec.LookPath("bash"); err == nil {
		return p.run(ctx, bash, "--noprofile", "--norc", "-eo", "pipefail", file)
	}
	return p.run(ctx, "sh", "-e", file)
}
