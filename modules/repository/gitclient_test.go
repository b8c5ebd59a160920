package repository_test

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// hosted is a project as git clients address it.
type hosted struct {
	ID   int64
	Path string // path_with_namespace
}

// hosted creates a project as root (in namespace namespaceID when not 0).
func (s *repoServer) hosted(name, visibility string, namespaceID int64) hosted {
	s.T.Helper()
	kv := []string{"name", name, "visibility", visibility}
	if namespaceID != 0 {
		kv = append(kv, "namespace_id", fmt.Sprint(namespaceID))
	}
	p := s.Project(s.RootToken, kv...)
	return hosted{ID: apptest.ID(p), Path: p["path_with_namespace"].(string)}
}

// remote is the git URL of a project with credentials (none when user is "").
func (s *repoServer) remote(path, user, secret string) string {
	s.T.Helper()
	u, err := url.Parse(s.URL + "/" + path + ".git")
	if err != nil {
		s.T.Fatal(err)
	}
	if user != "" {
		u.User = url.UserPassword(user, secret)
	}
	return u.String()
}

// noPrompts keeps git from asking for credentials on a terminal: a
// refused request fails at once.
var noPrompts = []string{"-c", "core.askPass=true", "-c", "credential.helper="}

// gitClient runs the git CLI as a client of the test server, through
// apptest.Git.
type gitClient struct{ t testing.TB }

// run runs git in dir and fails the test on error.
func (g gitClient) run(dir string, args ...string) string {
	g.t.Helper()
	return apptest.Git(g.t, dir, append(noPrompts, args...)...)
}

// fails runs git in dir the way apptest.Git does, wants a failure and
// returns the output (apptest.Git fails the test on every failure).
func (g gitClient) fails(dir string, args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", append(noPrompts, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_SSH_COMMAND="+apptest.GitSSHCommand(),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err == nil {
		g.t.Fatalf("git %s succeeded, want a failure\n%s", strings.Join(args, " "), out)
	}
	return string(out)
}

// clone clones remote into a new directory and returns it.
func (g gitClient) clone(remote string) string {
	g.t.Helper()
	dir := filepath.Join(g.t.TempDir(), "w")
	g.run("", "clone", remote, dir)
	return dir
}

// commit writes file with content in dir and commits it; returns the SHA.
func (g gitClient) commit(dir, file, content string) string {
	g.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
	g.run(dir, "add", "--", file)
	g.run(dir, "commit", "-q", "-m", "change "+file)
	return g.run(dir, "rev-parse", "HEAD")
}
