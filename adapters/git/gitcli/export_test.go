package gitcli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

// The helpers of this file serve the package's internal tests and, being
// exported from a _test file, its black-box tests (package gitcli_test)
// too, so both kinds of test drive git and the backend the same way.

// CleanGit runs the test's own git with a fixed, isolated environment: it
// must not pick up the hostile settings a test installs for the backend,
// nor the machine's configuration.
func CleanGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// NewTestBackend is a backend over a fresh root (returned too), closed
// when the test ends.
func NewTestBackend(t *testing.T) (*Backend, string) {
	t.Helper()
	root := t.TempDir()
	// The default slots with a patient queue: the contract's concurrent
	// cases (ten forks at once) wait their turn on a loaded machine
	// instead of failing as overloaded (which limit_test.go checks).
	limits := DefaultLimits()
	limits.QueueTimeout = time.Minute
	b, err := New(root, zaptest.NewLogger(t), WithLimits(limits))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b, root
}
