package gitcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"go.uber.org/zap"
)

const (
	// homeDir is the backend's HOME, inside the root; the leading dot keeps
	// it out of the repository name space.
	homeDir = ".home"
	// waitDelay bounds how long a cancelled git may keep its output pipes
	// open through a child (upload-pack, pack-objects) after being killed.
	waitDelay = 5 * time.Second
	// maxStderr caps how much of git's stderr is kept in an error.
	maxStderr = 4 << 10
)

// gitEnv is the whole environment of every git process. Nothing is
// inherited except PATH: an operator's (or attacker's) GIT_DIR,
// GIT_CONFIG_*, GIT_TEMPLATE_DIR, XDG_CONFIG_HOME or ~/.gitconfig must not
// change what the backend does, and git must never prompt.
func gitEnv(root, home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		// Commands run outside a repository (init, clone, check-ref-format)
		// start in home, inside root; never discover a repository above it.
		"GIT_CEILING_DIRECTORIES=" + root,
		// Stable, parseable messages.
		"LC_ALL=C",
		// Every write is durable whatever the repository's own config
		// says (repositories made elsewhere, before this backend set it):
		// objects and refs are fsynced before git reports success. These
		// reach every git process and its children (index-pack under
		// receive-pack included).
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=core.fsync", "GIT_CONFIG_VALUE_0=committed",
		"GIT_CONFIG_KEY_1=core.fsyncMethod", "GIT_CONFIG_VALUE_1=fsync",
	}
}

// gitError is a failed git invocation with what it printed on stderr.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := fmt.Sprintf("git %s: %v", strings.Join(e.args, " "), e.err)
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode is git's exit status, or -1 when err is not an exit status
// (git did not start, or was killed).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// run executes git with args in dir and returns its standard output. Args
// are passed as they are, without a shell; callers put values that come
// from users after "--end-of-options" or "--".
func (b *Backend) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return b.runOpts(ctx, runOpts{dir: dir}, args...)
}

// runOpts is what a git invocation may add to run's defaults.
type runOpts struct {
	dir   string
	env   []string  // added to b.env
	stdin io.Reader // nil: /dev/null
	// stdout, when set, receives the output as it comes (nothing is
	// buffered or returned).
	stdout io.Writer
}

// runOpts is run with extra environment, input or a streamed output. The
// process runs once one of the bounded process slots is free, holding it
// until git exits (core.ErrUnavailable when none frees within the queue
// timeout); git is never stopped for the sake of the bound, however long it
// runs (a clone streaming to a slow client).
func (b *Backend) runOpts(ctx context.Context, o runOpts, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, b.git, args...)
	cmd.Dir = o.dir
	cmd.Env = b.env
	if len(o.env) > 0 {
		cmd.Env = append(append([]string(nil), b.env...), o.env...)
	}
	cmd.WaitDelay = waitDelay
	cmd.Stdin = o.stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	if o.stdout != nil {
		cmd.Stdout = o.stdout
	}
	cmd.Stderr = &stderr

	if err := b.procs.acquire(ctx); err != nil {
		return nil, &gitError{args: args, err: err}
	}
	start := time.Now()
	b.runs.Add(1)
	err := cmd.Run()
	b.procs.release()
	took := time.Since(start)
	b.log.Debug("git", zap.Strings("args", args), zap.Duration("took", took), zap.Error(err))
	if b.observe != nil {
		b.observe(took, err)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return stdout.Bytes(), &gitError{args: args, stderr: tail(stderr.Bytes()), err: err}
	}
	return stdout.Bytes(), nil
}

// runIn runs git against the bare repository at gitDir, named explicitly so
// git never searches for one.
func (b *Backend) runIn(ctx context.Context, gitDir string, args ...string) ([]byte, error) {
	return b.run(ctx, gitDir, append([]string{"--git-dir=" + gitDir}, args...)...)
}

// runInOpts is runIn with runOpts (o.dir is gitDir).
func (b *Backend) runInOpts(ctx context.Context, gitDir string, o runOpts, args ...string) ([]byte, error) {
	o.dir = gitDir
	return b.runOpts(ctx, o, append([]string{"--git-dir=" + gitDir}, args...)...)
}

// tail trims stderr to its last maxStderr bytes: the end holds the fatal
// message.
func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > maxStderr {
		b = b[len(b)-maxStderr:]
	}
	return string(b)
}
