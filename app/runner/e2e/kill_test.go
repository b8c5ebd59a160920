package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/modules/runners"
)

// runnerProc is a runner running as a child process (this test binary
// re-executed with runnerConfigEnv).
type runnerProc struct {
	cmd *exec.Cmd
	out *bytes.Buffer
}

func spawnRunner(t *testing.T, configPath string) *runnerProc {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), runnerConfigEnv+"="+configPath)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the runner process: %v", err)
	}
	p := &runnerProc{cmd: cmd, out: &out}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			_ = p.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("runner process %d output:\n%s", cmd.Process.Pid, out.String())
		}
	})
	return p
}

const killYML = `
victim:
  script:
    - 'echo $$ > %[1]s/shell.pid'
    - 'echo started'
    - 'sleep 600'
`

const afterYML = `
stages: [one, two]
first:
  stage: one
  script: ['echo first']
second:
  stage: two
  script: ['echo second']
also:
  stage: two
  script: ['echo also']
`

// TestRunnerKilled: the runner process dies by kill -9 in the middle of a
// job. After the heartbeat timeout the sweep fails that job with
// stuck_or_timeout_failure, a restarted runner (same configuration) takes
// the next jobs, and nothing stays pending or running.
func TestRunnerKilled(t *testing.T) {
	t.Parallel()
	var svc *runners.Service
	srv := apptest.New(t, serverConfig(nil), apptest.With(fx.Populate(&svc)))
	p := newProject(t, srv, "killed")
	rc := runnerConfig(t, srv.URL, 1)
	cfgPath := filepath.Join(t.TempDir(), "runner.yml")
	if err := rc.Save(cfgPath); err != nil {
		t.Fatal(err)
	}
	first := spawnRunner(t, cfgPath)

	dir := t.TempDir()
	sha := p.push(map[string]string{".gitlab-ci.yml": fmt.Sprintf(killYML, dir)})
	plID := p.pipelineOf("main", sha)
	jobs := p.waitJobs(plID, 20*time.Second, map[string]string{"victim": "running"}, "running")
	waitFiles(t, dir, 15*time.Second, "shell.pid")
	shell := readPIDs(t, dir, "shell.pid")
	// The job's process group outlives a runner killed by SIGKILL (no
	// runner can clean up after that); the test does.
	t.Cleanup(func() { killGroups(shell) })
	p.waitTrace(jobs["victim"].ID, "started", 10*time.Second)

	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	killGroups(shell)

	// Nothing is stale yet: the job keeps running on the server.
	ctx := context.Background()
	if res, err := svc.Sweep(ctx); err != nil || res.StuckRunning != 0 {
		t.Fatalf("early sweep: %+v %v", res, err)
	}
	p.waitJobs(plID, time.Second, map[string]string{"victim": "running"}, "running")

	srv.Advance(srv.Config.CI.HeartbeatTimeout + time.Minute)
	res, err := svc.Sweep(ctx)
	if err != nil || res.StuckRunning != 1 {
		t.Fatalf("sweep after the heartbeat timeout: %+v %v", res, err)
	}
	jobs = p.waitJobs(plID, 5*time.Second, map[string]string{"victim": "failed"}, "failed")
	if r := jobs["victim"].FailureReason; r != "stuck_or_timeout_failure" {
		t.Errorf("failure_reason %q, want stuck_or_timeout_failure", r)
	}
	if tr := p.trace(jobs["victim"].ID); !bytes.Contains([]byte(tr), []byte("started")) {
		t.Errorf("the trace streamed before the kill is lost: %q", tr)
	}

	// A restarted runner takes the next jobs.
	spawnRunner(t, cfgPath)
	sha = p.push(map[string]string{".gitlab-ci.yml": afterYML}, "next")
	next := p.pipelineOf("next", sha)
	p.waitJobs(next, 20*time.Second, map[string]string{"first": "success", "second": "success", "also": "success"}, "success")

	// Nothing else is stuck.
	for _, scope := range []string{"pending", "running"} {
		resp := srv.JSON(t, "GET", p.api("/jobs?scope=%s&per_page=1", scope), srv.RootToken, nil, 200, nil)
		if got := resp.Header.Get("X-Total"); got != "0" {
			t.Errorf("%s jobs left: %s", scope, got)
		}
	}
	p.waitJobs(plID, time.Second, map[string]string{"victim": "failed"}, "failed")
}
