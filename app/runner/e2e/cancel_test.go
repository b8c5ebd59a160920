package e2e_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// sleeperYML is one job that records the PIDs of its shell, of a
// background sleep, of a subshell and of the sleep in that subshell, then
// waits (forever, for a test).
func sleeperYML(dir string) string {
	return fmt.Sprintf(`
sleeper:
  script:
    - 'echo $$ > %[1]s/shell.pid'
    - 'sleep 600 & echo $! > %[1]s/child.pid'
    - '(sleep 600 & echo $! > %[1]s/grandchild.pid; wait) & echo $! > %[1]s/sub.pid'
    - 'echo ready'
    - 'sleep 600'
`, dir)
}

var sleeperPIDs = []string{"shell.pid", "child.pid", "sub.pid", "grandchild.pid"}

// TestCancelKillsProcessTree: canceling a running `sleep 600` job through
// the API makes it canceled at once, and its whole process tree (the
// shell, a background child, a subshell and its own child) is gone within
// 5 seconds, checked by PID.
func TestCancelKillsProcessTree(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t, serverConfig(nil))
	p := newProject(t, srv, "cancel")
	startRunner(t, srv.URL, 1)
	dir := t.TempDir()
	sha := p.push(map[string]string{".gitlab-ci.yml": sleeperYML(dir)})
	pid := p.pipelineOf("main", sha)
	jobs := p.waitJobs(pid, 15*time.Second, map[string]string{"sleeper": "running"}, "running")
	waitFiles(t, dir, 15*time.Second, sleeperPIDs...)
	pids := readPIDs(t, dir, sleeperPIDs...)
	t.Cleanup(func() { killGroups(pids) })
	for i, pid := range pids {
		if gone(pid) {
			t.Fatalf("%s (%d) is not running before the cancel", sleeperPIDs[i], pid)
		}
	}
	p.waitTrace(jobs["sleeper"].ID, "ready", 10*time.Second)

	start := time.Now()
	var j job
	srv.JSON(t, "POST", p.api("/jobs/%d/cancel", jobs["sleeper"].ID), srv.RootToken, nil, 201, &j)
	if j.Status != "canceled" {
		t.Errorf("after cancel: status %q, want canceled", j.Status)
	}
	for {
		var alive []string
		for i, pid := range pids {
			if !gone(pid) {
				alive = append(alive, fmt.Sprintf("%s=%d", sleeperPIDs[i], pid))
			}
		}
		if len(alive) == 0 {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("5 s after the cancel still running: %v", alive)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("process tree gone %v after the cancel", time.Since(start).Round(time.Millisecond))
	p.waitJobs(pid, 5*time.Second, map[string]string{"sleeper": "canceled"}, "canceled")
}
