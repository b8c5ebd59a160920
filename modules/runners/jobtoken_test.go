package runners_test

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// gitRun runs git as a client without prompts; it returns the output and
// whether it succeeded.
func gitRun(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.askPass=true", "-c", "credential.helper="}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// TestJobTokenGitAndAPI: what a job token may do through the API and
// git, on each git backend.
func TestJobTokenGitAndAPI(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"gitcli", "gogit"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			testJobTokenGitAndAPI(t, backend)
		})
	}
}

func testJobTokenGitAndAPI(t *testing.T, backend string) {
	s := newServer(t, apptest.Configure(func(c *config.Config) { c.Git.Backend = backend }))
	// A private project of alice's with a commit, and a project she
	// cannot read.
	aliceID, alice := s.User("alice")
	p := s.Project(alice, "name", "app", "visibility", "private")
	pid, path := apptest.ID(p), p["path_with_namespace"].(string)
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/files/README.md", pid), alice,
		apptest.Form("branch", "master", "content", "hello", "commit_message", "init"))
	secretID, _ := s.project("secret", "visibility", "private")
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/files/README.md", secretID), s.RootToken,
		apptest.Form("branch", "master", "content", "hidden", "commit_message", "init"))

	_, rtok := s.runner(s.regToken(pid), nil)
	jobs := s.pipeline(pid, jobSpec{name: "build", userID: &aliceID})
	payload := s.take(rtok)
	tok := payload["token"].(string)
	repoURL := payload["git_info"].(map[string]any)["repo_url"].(string)

	// The API: reads as alice, never writes, never beyond her projects.
	got := s.expect(200, "GET", fmt.Sprintf("/projects/%d", pid), nil, "Job-Token", tok).json(t)
	if got["path_with_namespace"] != path {
		t.Fatalf("project through the job token: %v", got)
	}
	s.expect(200, "GET", fmt.Sprintf("/projects/%d?job_token=%s", pid, tok), nil)
	s.expect(404, "GET", fmt.Sprintf("/projects/%d", secretID), nil, "Job-Token", tok)
	s.expect(403, "POST", "/projects", map[string]any{"name": "evil"}, "Job-Token", tok)
	s.expect(403, "PUT", fmt.Sprintf("/projects/%d", pid), map[string]any{"description": "x"}, "Job-Token", tok)

	// Git: the job fetches its project with the token from the payload.
	dir := filepath.Join(t.TempDir(), "w")
	if out, ok := gitRun(t, "", "clone", repoURL, dir); !ok {
		t.Fatalf("clone with the job token: %s", out)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(data) != "hello" {
		t.Fatalf("cloned README %q %v", data, err)
	}
	// ... never pushes ...
	_ = os.WriteFile(filepath.Join(dir, "x.txt"), []byte("x"), 0o644)
	gitRun(t, dir, "add", "x.txt")
	gitRun(t, dir, "commit", "-q", "-m", "x")
	if out, ok := gitRun(t, dir, "push", "origin", "master"); ok || !strings.Contains(out, "403") {
		t.Fatalf("push with the job token: ok=%v %s", ok, out)
	}
	// ... and reads nothing its user cannot.
	secret := strings.Replace(repoURL, path, "root/secret", 1)
	if out, ok := gitRun(t, "", "clone", secret, filepath.Join(t.TempDir(), "s")); ok {
		t.Fatalf("cloned a project the job's user cannot read: %s", out)
	}

	// The job ends: the token stops working everywhere.
	s.expect(200, "PUT", fmt.Sprintf("/jobs/%d", jobs["build"].ID), map[string]any{"token": tok, "state": "success"})
	s.expect(401, "GET", fmt.Sprintf("/projects/%d", pid), nil, "Job-Token", tok)
	if out, ok := gitRun(t, dir, "fetch", "origin"); ok || !strings.Contains(out, "401") && !strings.Contains(strings.ToLower(out), "authentication failed") {
		t.Fatalf("fetch after the job ended: ok=%v %s", ok, out)
	}
	// A password never stands in for gitlab-ci-token.
	u, _ := url.Parse(repoURL)
	u.User = url.UserPassword("gitlab-ci-token", "secret-alice")
	if _, ok := gitRun(t, "", "ls-remote", u.String()); ok {
		t.Fatal("gitlab-ci-token signed in with a password")
	}
	if j := s.job(jobs["build"].ID); j.Status != domain.CISuccess {
		t.Fatalf("job %+v", j)
	}
}

// TestJobTokenOfAnAdmin: a job of an administrator's pipeline reads as an
// ordinary user.
func TestJobTokenOfAnAdmin(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, alice := s.User("alice")
	hidden := apptest.ID(s.Project(alice, "name", "hidden", "visibility", "private"))
	pid, _ := s.project("own") // root's pipeline
	_, rtok := s.runner(s.regToken(pid), nil)
	s.pipeline(pid, jobSpec{name: "build"})
	tok := s.take(rtok)["token"].(string)
	s.expect(200, "GET", fmt.Sprintf("/projects/%d", pid), nil, "Job-Token", tok)
	s.expect(404, "GET", fmt.Sprintf("/projects/%d", hidden), nil, "Job-Token", tok)
	s.expect(403, "GET", "/runners/all", nil, "Job-Token", tok)
	me := s.expect(200, "GET", "/user", nil, "Job-Token", tok).json(t)
	if me["username"] != "root" || me["is_admin"] == true {
		t.Fatalf("GET /user with a job token: %v", me)
	}
}
