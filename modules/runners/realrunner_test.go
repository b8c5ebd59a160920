package runners_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestRealGitlabRunner drives an unmodified gitlab-runner binary (shell
// executor) against the server: register with the project's token, then
// run-single through two dependent jobs that clone with the job token,
// stream their traces, upload and download artifacts. It runs only when
// HEARTH_GITLAB_RUNNER names the binary (it is not part of the repository).
func TestRealGitlabRunner(t *testing.T) {
	bin := os.Getenv("HEARTH_GITLAB_RUNNER")
	if bin == "" {
		t.Skip("HEARTH_GITLAB_RUNNER is not set")
	}
	t.Parallel()
	s := newServer(t)
	p := s.Project(s.RootToken, "name", "real", "visibility", "private")
	pid := apptest.ID(p)
	commit := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/files/hello.txt", pid), s.RootToken,
		apptest.Form("branch", "master", "content", "hello from git", "commit_message", "init")).Object(t)
	_ = commit
	head := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/branches/master", pid), s.RootToken, nil).Object(t)
	sha := head["commit"].(map[string]any)["id"].(string)

	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "config.toml")
	run := func(timeout time.Duration, args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("gitlab-runner %s: %v\n%s", args[0], err, out.String())
		}
		return out.String()
	}
	run(time.Minute, "register", "--non-interactive", "--config", cfgFile, "--url", s.URL,
		"--registration-token", s.regToken(pid), "--executor", "shell", "--name", "real runner")
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	var token string
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && strings.TrimSpace(k) == "token" {
			token = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	if !strings.HasPrefix(token, "glrt-") {
		t.Fatalf("no runner token in config.toml:\n%s", data)
	}

	u, _ := s.Users.UserByLogin(context.Background(), "root")
	pl := &domain.Pipeline{ProjectID: pid, Ref: "master", SHA: sha, Status: domain.CIPending, Source: domain.SourcePush, UserID: &u.ID}
	now := time.Now().UTC()
	jobs := []domain.Job{
		{ProjectID: pid, Kind: domain.JobBuild, Name: "build", Stage: "build", StageIdx: 0, Status: domain.CIPending,
			Ref: "master", SHA: sha, When: domain.WhenOnSuccess, UserID: &u.ID, Tags: []string{}, QueuedAt: &now,
			Spec: domain.JobSpec{
				BeforeScript:  []string{"echo before"},
				Script:        []string{"cat hello.txt", "mkdir -p out", "echo artifact-data > out/a.txt", "echo 'Coverage: 42.5%'"},
				AfterScript:   []string{"echo after"},
				Artifacts:     &domain.ArtifactsSpec{Paths: []string{"out/"}, ExpireIn: "1 week"},
				CoverageRegex: `/Coverage: \d+\.\d+%/`,
			}},
		{ProjectID: pid, Kind: domain.JobBuild, Name: "test", Stage: "test", StageIdx: 1, Status: domain.CIPending,
			Ref: "master", SHA: sha, When: domain.WhenOnSuccess, UserID: &u.ID, Tags: []string{}, QueuedAt: &now,
			Spec: domain.JobSpec{Script: []string{"cat out/a.txt", "test \"$CI_JOB_NAME\" = test", "exit 3"}}},
	}
	if err := s.pipelines.Create(context.Background(), pl, jobs); err != nil {
		t.Fatal(err)
	}
	out := run(3*time.Minute, "run-single", "--url", s.URL, "--token", token, "--executor", "shell",
		"--builds-dir", filepath.Join(dir, "builds"), "--cache-dir", filepath.Join(dir, "cache"),
		"--max-builds", "2", "--wait-timeout", "60")
	t.Logf("run-single:\n%s", out)

	build, test := s.job(jobs[0].ID), s.job(jobs[1].ID)
	if build.Status != domain.CISuccess || build.Coverage == nil || *build.Coverage != 42.5 || !build.RunnerFinished {
		t.Fatalf("build job %+v", build)
	}
	if test.Status != domain.CIFailed || test.FailureReason != domain.FailureScript {
		t.Fatalf("test job %+v", test)
	}
	trace := func(j *domain.Job) string {
		rc, _, err := s.blob.Open(context.Background(), domain.TraceKey(pid, j.ID))
		if err != nil {
			t.Fatalf("trace of %s: %v", j.Name, err)
		}
		defer rc.Close()
		b, _ := io.ReadAll(rc)
		return string(b)
	}
	bt, tt := trace(build), trace(test)
	for _, want := range []string{"hello from git", "before", "after", "Uploading artifacts"} {
		if !strings.Contains(bt, want) {
			t.Errorf("build trace lacks %q:\n%s", want, bt)
		}
	}
	for _, want := range []string{"artifact-data", "Downloading artifacts", "exit status 3"} {
		if !strings.Contains(tt, want) {
			t.Errorf("test trace lacks %q:\n%s", want, tt)
		}
	}
	if strings.Contains(bt+tt, "glcbt-") {
		t.Error("a job token reached a trace")
	}
}

// TestRealGitlabRunnerCancel cancels a job while the real runner runs it:
// the runner hears "canceling", runs after_script and reports the end,
// and the job stays canceled.
func TestRealGitlabRunnerCancel(t *testing.T) {
	bin := os.Getenv("HEARTH_GITLAB_RUNNER")
	if bin == "" {
		t.Skip("HEARTH_GITLAB_RUNNER is not set")
	}
	t.Parallel()
	s := newServer(t)
	pid := apptest.ID(s.Project(s.RootToken, "name", "cancel", "visibility", "private"))
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/files/a.txt", pid), s.RootToken,
		apptest.Form("branch", "master", "content", "a", "commit_message", "init"))
	head := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/branches/master", pid), s.RootToken, nil).Object(t)
	sha := head["commit"].(map[string]any)["id"].(string)
	_, token := s.runner(s.regToken(pid), nil)
	u, _ := s.Users.UserByLogin(context.Background(), "root")
	pl := &domain.Pipeline{ProjectID: pid, Ref: "master", SHA: sha, Status: domain.CIPending, Source: domain.SourcePush, UserID: &u.ID}
	now := time.Now().UTC()
	jobs := []domain.Job{{ProjectID: pid, Kind: domain.JobBuild, Name: "slow", Stage: "test", Status: domain.CIPending,
		Ref: "master", SHA: sha, When: domain.WhenOnSuccess, UserID: &u.ID, Tags: []string{}, QueuedAt: &now,
		Spec: domain.JobSpec{Script: []string{"echo started", "sleep 60"}, AfterScript: []string{"echo cleaning-up"}}}}
	if err := s.pipelines.Create(context.Background(), pl, jobs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run-single", "--url", s.URL, "--token", token, "--executor", "shell",
		"--builds-dir", filepath.Join(dir, "builds"), "--max-builds", "1", "--wait-timeout", "60")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if j := s.job(jobs[0].ID); j.Status == domain.CIRunning && j.TraceSize > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job never started:\n%s", out.String())
		}
	}
	s.cancel(jobs[0].ID)
	canceled := time.Now()
	_ = cmd.Wait()
	t.Logf("the runner ended %s after the cancel:\n%s", time.Since(canceled).Round(time.Second), out.String())
	j := s.job(jobs[0].ID)
	if j.Status != domain.CICanceled || !j.RunnerFinished {
		t.Fatalf("canceled job %+v\n%s", j, out.String())
	}
	rc, _, err := s.blob.Open(context.Background(), domain.TraceKey(pid, j.ID))
	if err != nil {
		t.Fatalf("trace: %v\n%s", err, out.String())
	}
	defer rc.Close()
	trace, _ := io.ReadAll(rc)
	if !strings.Contains(string(trace), "cleaning-up") {
		t.Fatalf("after_script did not run:\n%s", trace)
	}
}
