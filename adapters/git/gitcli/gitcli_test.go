package gitcli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/contracttests"
)

func newRepo(t *testing.T) contracttests.Repo {
	t.Helper()
	b, root := gitcli.NewTestBackend(t)
	return contracttests.Repo{Backend: b, Root: root}
}

// TestRepoSuite runs beside the package's other tests (whether its cases
// run in parallel with each other is RunRepoSuite's choice; newRepo may be
// called from several goroutines at once).
func TestRepoSuite(t *testing.T) {
	t.Parallel()
	contracttests.RunRepoSuite(t, newRepo)
}

// pushCommit commits file=content in a new work tree and pushes it as
// branch to the bare repository at bare.
func pushCommit(t *testing.T, bare, branch, content string) {
	t.Helper()
	work := t.TempDir()
	gitcli.CleanGit(t, work, "init", "--quiet", "--template=", "--initial-branch="+branch)
	if err := os.WriteFile(filepath.Join(work, "file"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitcli.CleanGit(t, work, "add", "file")
	gitcli.CleanGit(t, work, "commit", "--quiet", "-m", content)
	gitcli.CleanGit(t, work, "push", "--quiet", bare, branch)
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// TestHostileEnvironment installs a hostile git configuration through every
// channel the process environment offers and checks the backend ignores all
// of them: hooks that would run, a URL rewrite that would swap the fork's
// source, a different default branch, templates, and GIT_DIR. It sets the
// process environment, so it cannot run in parallel.
func TestHostileEnvironment(t *testing.T) {
	root := t.TempDir()
	evil := t.TempDir()
	marker := filepath.Join(evil, "hook-ran")

	// Hooks that leave a marker if git ever runs them.
	hook := "#!/bin/sh\necho \"$0\" >> " + marker + "\n"
	for _, name := range []string{"reference-transaction", "post-checkout", "pre-receive", "post-receive", "update"} {
		writeFile(t, filepath.Join(evil, "hooks", name), hook, 0o755)
		writeFile(t, filepath.Join(evil, "template", "hooks", name), hook, 0o755)
	}
	// A repository the URL rewrite would fork instead of the real source.
	evilRepo := filepath.Join(evil, "evil.git")
	gitcli.CleanGit(t, evil, "init", "--quiet", "--bare", "--template=", evilRepo)
	pushCommit(t, evilRepo, "evil", "evil content")

	config := "[core]\n\thooksPath = " + filepath.Join(evil, "hooks") + "\n" +
		"[init]\n\tdefaultBranch = evil\n\ttemplateDir = " + filepath.Join(evil, "template") + "\n" +
		"[url \"" + evilRepo + "\"]\n\tinsteadOf = " + root + "\n" +
		"[receive]\n\tfsckObjects = false\n"
	writeFile(t, filepath.Join(evil, "gitconfig"), config, 0o644)
	writeFile(t, filepath.Join(evil, "home", ".gitconfig"), config, 0o644)
	writeFile(t, filepath.Join(evil, "xdg", "git", "config"), config, 0o644)

	t.Setenv("HOME", filepath.Join(evil, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(evil, "xdg"))
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(evil, "gitconfig"))
	t.Setenv("GIT_CONFIG_SYSTEM", filepath.Join(evil, "gitconfig"))
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
	t.Setenv("GIT_CONFIG_VALUE_0", filepath.Join(evil, "hooks"))
	t.Setenv("GIT_CONFIG_PARAMETERS", "'init.defaultbranch'='evil'")
	t.Setenv("GIT_TEMPLATE_DIR", filepath.Join(evil, "template"))
	t.Setenv("GIT_DIR", evilRepo)

	b, err := gitcli.New(root, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	if err := b.Create(ctx, "projects/1.git", ""); err != nil {
		t.Fatalf("Create: %v", err)
	}
	src := filepath.Join(root, "projects", "1.git")
	head, err := os.ReadFile(filepath.Join(src, "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	if string(head) != "ref: refs/heads/master\n" {
		t.Errorf("HEAD = %q: init.defaultBranch leaked in", head)
	}
	if _, err := os.Stat(filepath.Join(src, "hooks")); !os.IsNotExist(err) {
		t.Errorf("repository has a hooks directory (%v): a template leaked in", err)
	}
	cfg := gitcli.CleanGit(t, src, "--git-dir="+src, "config", "--list", "--local")
	for _, want := range []string{"core.fsync=objects,reference", "core.fsyncmethod=fsync", "receive.fsckobjects=true"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("repository config lacks %s:\n%s", want, cfg)
		}
	}

	pushCommit(t, src, "master", "real content")
	want := gitcli.CleanGit(t, src, "--git-dir="+src, "for-each-ref", "--format=%(objectname) %(refname)")

	if err := b.Fork(ctx, "projects/1.git", "projects/2.git"); err != nil {
		t.Fatalf("Fork: %v", err)
	}
	dst := filepath.Join(root, "projects", "2.git")
	if got := gitcli.CleanGit(t, dst, "--git-dir="+dst, "for-each-ref", "--format=%(objectname) %(refname)"); got != want {
		t.Errorf("fork refs = %q, want %q: url.insteadOf leaked in", got, want)
	}
	if _, commits, err := b.Stats(ctx, "projects/2.git", "master"); err != nil || commits != 1 {
		t.Errorf("Stats of the fork = %d commits, %v; want 1", commits, err)
	}
	if err := b.Delete(ctx, "projects/2.git"); err != nil {
		t.Fatalf("Delete: %v", err)
	}

	if out, err := os.ReadFile(marker); err == nil {
		t.Errorf("a hostile hook ran:\n%s", out)
	}
	// GIT_DIR pointed at the evil repository: nothing may have touched it.
	if got := gitcli.CleanGit(t, evil, "--git-dir="+evilRepo, "for-each-ref", "--format=%(refname)"); got != "refs/heads/evil" {
		t.Errorf("the GIT_DIR repository changed: refs %q", got)
	}
	entries, err := os.ReadDir(filepath.Join(root, ".home"))
	if err != nil || len(entries) != 0 {
		t.Errorf("the backend's HOME is not empty: %v %v", entries, err)
	}
}

func TestNewCreatesRoot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "a", "b")
	b, err := gitcli.New(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Create(t.Context(), "projects/1.git", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "projects", "1.git", "HEAD")); err != nil {
		t.Fatal(err)
	}
	if _, err := gitcli.New("", nil); err == nil {
		t.Error("New with an empty root succeeded")
	}
}
