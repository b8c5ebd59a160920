package contracttests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// repoGit runs the suite's own git plumbing (building history, reading
// refs) with an environment as isolated as a backend's, so neither the
// developer's configuration nor the backend under test shapes the fixtures.
type repoGit struct {
	t   *testing.T
	env []string
}

func newRepoGit(t *testing.T) repoGit {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("the repository suite needs git: %v", err)
	}
	const when = "2024-03-01T12:00:00Z"
	return repoGit{t: t, env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"LC_ALL=C",
		"GIT_AUTHOR_NAME=Hearth Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_AUTHOR_DATE=" + when,
		"GIT_COMMITTER_NAME=Hearth Test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_COMMITTER_DATE=" + when,
	}}
}

// try runs git in dir and returns its trimmed stdout.
func (g repoGit) try(dir string, args ...string) (string, error) {
	out, err := g.tryRaw(dir, args...)
	return strings.TrimSpace(out), err
}

// tryRaw is try without trimming stdout.
func (g repoGit) tryRaw(dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(g.t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = g.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &repoGitError{args: args, err: err, stderr: stderr.String()}
	}
	return stdout.String(), nil
}

type repoGitError struct {
	args   []string
	err    error
	stderr string
}

func (e *repoGitError) Error() string {
	return "git " + strings.Join(e.args, " ") + ": " + e.err.Error() + ": " + strings.TrimSpace(e.stderr)
}

// run is try that fails the test on error.
func (g repoGit) run(dir string, args ...string) string {
	g.t.Helper()
	out, err := g.try(dir, args...)
	if err != nil {
		g.t.Fatal(err)
	}
	return out
}

// bare runs git against the bare repository at path.
func (g repoGit) bare(path string, args ...string) string {
	g.t.Helper()
	return g.run(path, append([]string{"--git-dir=" + path}, args...)...)
}

// refs lists "<oid> <refname>" for every ref of the bare repository.
func (g repoGit) refs(path string) string {
	g.t.Helper()
	return g.bare(path, "for-each-ref", "--format=%(objectname) %(refname)")
}

// objects lists every object reachable from any ref, sorted.
func (g repoGit) objects(path string) string {
	g.t.Helper()
	lines := strings.Split(g.bare(path, "rev-list", "--all", "--objects"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// fsck fails the test unless the repository passes git fsck --strict.
func (g repoGit) fsck(path string) {
	g.t.Helper()
	g.bare(path, "fsck", "--strict", "--no-progress")
}

// seedHistory pushes into the bare repository at path: three commits on
// main, two on feature (branched from main~1), an annotated tag v1.0 on
// main, a lightweight tag light on feature~1, and the non-branch ref
// refs/merge-requests/1/head. HEAD is expected to name main.
func (g repoGit) seedHistory(path string) {
	g.t.Helper()
	work := g.t.TempDir()
	g.run(work, "init", "--quiet", "--template=", "--initial-branch=main")
	commit := func(file, content, msg string) {
		g.t.Helper()
		if err := os.WriteFile(filepath.Join(work, file), []byte(content), 0o644); err != nil {
			g.t.Fatal(err)
		}
		g.run(work, "add", "--", file)
		g.run(work, "commit", "--quiet", "-m", msg)
	}
	commit("README", "one\n", "main 1")
	commit("README", "two\n", "main 2")
	commit("README", "three\n", "main 3")
	g.run(work, "checkout", "--quiet", "-b", "feature", "main~1")
	commit("feature.txt", "f1\n", "feature 1")
	commit("feature.txt", "f2\n", "feature 2")
	g.run(work, "tag", "-a", "-m", "release 1.0", "v1.0", "main")
	g.run(work, "tag", "light", "feature~1")
	g.run(work, "push", "--quiet", path,
		"refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*", "feature:refs/merge-requests/1/head")
}
