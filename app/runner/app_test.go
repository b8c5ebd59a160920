package runner_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/app/runner"
	"github.com/hearth-forge/hearth/core/config"
)

const pipelineYML = `variables:
  GLOBAL: from-yaml
stages: [build, test]
build:
  stage: build
  script:
    - mkdir -p out
    - echo "built $GLOBAL" > out/file.txt
    - echo "secret is $SECRET_VALUE"
    - cat README.md
  artifacts:
    paths: [out/]
test:
  stage: test
  variables:
    LOCAL: job-level
  script:
    - cat out/file.txt
    - echo "local $LOCAL"
  after_script:
    - echo after-test
`

// TestAgainstHearth runs a pipeline on the real server over HTTP: the
// runner registers with the instance token, fetches the repository with
// the job token, passes artifacts from one stage to the next and reports
// the end; the API shows it all.
func TestAgainstHearth(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) { runPipeline(t, c.Srv) },
		apptest.Configure(func(c *config.Config) {
			c.CI.RegistrationToken = regToken
			c.CI.MaxArtifactsBytes = 16 << 20
		}))
}

const regToken = "instance-registration-token-runner-test"

func runPipeline(t *testing.T, srv *apptest.Server) {
	root := srv.RootToken
	var proj struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", root, url.Values{"name": {"runme"}, "visibility": {"private"}}, 201, &proj)
	p := func(format string, args ...any) string {
		return fmt.Sprintf("/projects/%d", proj.ID) + fmt.Sprintf(format, args...)
	}
	const secret = "hush-hush-0123456789"
	srv.JSON(t, "POST", p("/variables"), root, map[string]any{"key": "SECRET_VALUE", "value": secret, "masked": true}, 201, nil)

	ctx := context.Background()
	cl := &runner.Client{URL: srv.URL, SystemID: runner.NewSystemID()}
	id, token, err := cl.Register(ctx, regToken, runner.RegisterOptions{Description: "apptest runner", RunUntagged: true})
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	if got, err := cl.Verify(ctx, token); err != nil || got != id {
		t.Fatalf("verify: %d %v", got, err)
	}
	r := &runner.Runner{
		Config: runner.Config{URL: srv.URL, Token: token, ID: id, Concurrent: 2,
			BuildsDir: t.TempDir(), CacheDir: t.TempDir(), ShutdownTimeout: 10 * time.Second},
		Log:          zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel)),
		PollInterval: 100 * time.Millisecond, TraceInterval: 200 * time.Millisecond,
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		<-done
	})

	var commit struct{ ID string }
	srv.JSON(t, "POST", p("/repository/commits"), root, map[string]any{
		"branch": "main", "commit_message": "Add CI",
		"actions": []map[string]string{
			{"action": "create", "file_path": ".gitlab-ci.yml", "content": pipelineYML},
			{"action": "create", "file_path": "README.md", "content": "readme from the repository\n"},
		},
	}, 201, &commit)

	var pipelineID int64
	var status string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var list []struct {
			ID     int64
			SHA    string
			Status string
		}
		srv.JSON(t, "GET", p("/pipelines?sha=%s", commit.ID), root, nil, 200, &list)
		if len(list) == 1 {
			pipelineID, status = list[0].ID, list[0].Status
			if status == "success" || status == "failed" || status == "canceled" {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	var jobs []struct {
		ID     int64
		Name   string
		Status string
		Runner *struct{ ID int64 }
	}
	srv.JSON(t, "GET", p("/pipelines/%d/jobs", pipelineID), root, nil, 200, &jobs)
	traces := map[string]string{}
	for _, j := range jobs {
		_, body := srv.Do(t, "GET", p("/jobs/%d/trace", j.ID), root, nil)
		traces[j.Name] = string(body)
	}
	if status != "success" {
		t.Fatalf("pipeline %d is %q; jobs %+v; traces:\n%s", pipelineID, status, jobs, traces)
	}
	for _, j := range jobs {
		if j.Status != "success" || j.Runner == nil || j.Runner.ID != id {
			t.Errorf("job %s: %s on %+v", j.Name, j.Status, j.Runner)
		}
	}
	build, test := traces["build"], traces["test"]
	for _, want := range []string{"secret is [MASKED]", "readme from the repository", "$ mkdir -p out", "Job succeeded"} {
		if !strings.Contains(build, want) {
			t.Errorf("build trace lacks %q:\n%s", want, build)
		}
	}
	for _, want := range []string{"built from-yaml", "local job-level", "after-test"} {
		if !strings.Contains(test, want) {
			t.Errorf("test trace lacks %q:\n%s", want, test)
		}
	}
	for name, tr := range traces {
		if strings.Contains(tr, secret) || strings.Contains(tr, token) {
			t.Errorf("trace of %s holds a secret:\n%s", name, tr)
		}
	}
	// The build's artifacts reached the server: by job id.
	for _, j := range jobs {
		if j.Name != "build" {
			continue
		}
		resp, body := srv.Do(t, "GET", p("/jobs/%d/artifacts", j.ID), root, nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "PK") {
			t.Errorf("artifacts of build: %d %.100q", resp.StatusCode, body)
		}
	}
	var commitInfo struct{ Status string }
	srv.JSON(t, "GET", p("/repository/commits/%s", commit.ID), root, nil, 200, &commitInfo)
	if commitInfo.Status != "success" {
		t.Errorf("commit status %q", commitInfo.Status)
	}

	// A job canceled through the API while it sleeps: the runner hears
	// "canceling", kills the script, runs after_script and reports; the
	// job stays canceled.
	srv.JSON(t, "POST", p("/repository/commits"), root, map[string]any{
		"branch": "slow", "start_branch": "main", "commit_message": "slow",
		"actions": []map[string]string{{"action": "update", "file_path": ".gitlab-ci.yml",
			"content": "slow:\n  script:\n    - echo sleeping\n    - sleep 600\n  after_script:\n    - echo cleaned-up\n"}},
	}, 201, &commit)
	var slowID int64
	waitUntil(t, "the slow job to run", func() bool {
		var list []struct {
			ID     int64
			Status string
		}
		srv.JSON(t, "GET", p("/jobs?scope=running"), root, nil, 200, &list)
		if len(list) == 1 {
			slowID = list[0].ID
			_, body := srv.Do(t, "GET", p("/jobs/%d/trace", slowID), root, nil)
			return strings.Contains(string(body), "\nsleeping")
		}
		return false
	})
	canceled := time.Now()
	srv.JSON(t, "POST", p("/jobs/%d/cancel", slowID), root, nil, 201, nil)
	waitUntil(t, "the runner to report the cancel", func() bool {
		_, body := srv.Do(t, "GET", p("/jobs/%d/trace", slowID), root, nil)
		return strings.Contains(string(body), "Job failed: canceled")
	})
	if d := time.Since(canceled); d > 5*time.Second {
		t.Errorf("the cancel took %s", d)
	}
	var slow struct{ Status string }
	srv.JSON(t, "GET", p("/jobs/%d", slowID), root, nil, 200, &slow)
	_, body := srv.Do(t, "GET", p("/jobs/%d/trace", slowID), root, nil)
	if slow.Status != "canceled" || !strings.Contains(string(body), "cleaned-up") {
		t.Errorf("canceled job %q, trace:\n%s", slow.Status, body)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
