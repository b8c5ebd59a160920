package repository_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// gitServer is a running Hearth for the git HTTP tests.
type gitServer struct{ *repoServer }

func newGitServer(t *testing.T, opts ...apptest.Option) *gitServer {
	return &gitServer{newRepoServer(t, opts...)}
}

type project struct {
	ID                int64
	PathWithNamespace string `json:"path_with_namespace"`
}

// project creates a project as root (in namespace namespaceID when not 0).
func (g *gitServer) project(name, visibility string, namespaceID int64) project {
	g.t.Helper()
	form := url.Values{"name": {name}, "visibility": {visibility}}
	if namespaceID != 0 {
		form.Set("namespace_id", fmt.Sprint(namespaceID))
	}
	var p project
	g.JSON(g.t, "POST", "/projects", g.RootToken, form, 201, &p)
	return p
}

// remote is the git URL of a project with credentials (none when user is "").
func (g *gitServer) remote(path, user, secret string) string {
	u, err := url.Parse(g.URL + "/" + path + ".git")
	if err != nil {
		g.t.Fatal(err)
	}
	if user != "" {
		u.User = url.UserPassword(user, secret)
	}
	return u.String()
}

// gitEnv is an isolated environment for the git CLI: no system or user
// configuration, no prompts, a fixed identity.
func gitEnv(home string) []string {
	return []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"),
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
		"GIT_AUTHOR_NAME=Tester",
		"GIT_AUTHOR_EMAIL=tester@example.com",
		"GIT_COMMITTER_NAME=Tester",
		"GIT_COMMITTER_EMAIL=tester@example.com",
		"LC_ALL=C",
	}
}

// gitCLI runs git in an isolated home.
type gitCLI struct {
	t    testing.TB
	home string
}

func newGit(t testing.TB) gitCLI {
	home := t.TempDir()
	cfg := "[init]\n\tdefaultBranch = master\n[protocol]\n\tversion = 2\n[credential]\n\thelper =\n"
	if err := os.WriteFile(filepath.Join(home, "gitconfig"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return gitCLI{t: t, home: home}
}

// try runs git in dir and returns its combined output and error.
func (g gitCLI) try(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(g.home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// run runs git and fails the test on error.
func (g gitCLI) run(dir string, args ...string) string {
	g.t.Helper()
	out, err := g.try(dir, args...)
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

// fails runs git, expects a failure and returns the output.
func (g gitCLI) fails(dir string, args ...string) string {
	g.t.Helper()
	out, err := g.try(dir, args...)
	if err == nil {
		g.t.Fatalf("git %s succeeded, want a failure\n%s", strings.Join(args, " "), out)
	}
	return out
}

// clone clones remote into a new directory and returns it.
func (g gitCLI) clone(remote string) string {
	g.t.Helper()
	dir := filepath.Join(g.t.TempDir(), "w")
	g.run("", "clone", remote, dir)
	return dir
}

// commit writes file with content in dir and commits it; returns the SHA.
func (g gitCLI) commit(dir, file, content string) string {
	g.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
	g.run(dir, "add", "--", file)
	g.run(dir, "commit", "-q", "-m", "change "+file)
	return g.run(dir, "rev-parse", "HEAD")
}
