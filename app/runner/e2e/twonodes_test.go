package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// markerYML: three jobs in two stages; each creates the marker file named
// after its job id with noclobber, so a job that ran twice fails the
// second time, and the marker of a job that never ran is missing; each
// also appends its id to ran.log (O_APPEND: lines never interleave), so a
// second run shows even if its failure reached no one.
func markerYML(dir string) string {
	job := func(name, stage string) string {
		return fmt.Sprintf(`%s:
  stage: %s
  script:
    - 'echo $CI_JOB_ID >> %[3]s/ran.log'
    - 'set -o noclobber'
    - 'echo "$CI_PIPELINE_ID $CI_JOB_NAME" > %[3]s/$CI_JOB_ID'
`, name, stage, dir)
	}
	return "stages: [build, test]\n" + job("build", "build") + job("unit", "test") + job("lint", "test")
}

// TestTwoNodesManyPipelines: two Hearth servers (two fx apps with their
// own HTTP servers, buses and pools) on one Postgres database, a runner
// with concurrency 4 on each, 24 pipelines of 3 jobs pushed at once (one
// push of 24 branches, 72 jobs for 8 slots): every job ran exactly once,
// every pipeline succeeded, and neither server answered a 5xx.
// BenchmarkTwoNodesManyPipelines runs the same with 100 pipelines (the CI
// issue's figure, about 12 s on an idle machine).
func TestTwoNodesManyPipelines(t *testing.T) {
	t.Parallel()
	twoNodesManyPipelines(t, 24)
}

func BenchmarkTwoNodesManyPipelines(b *testing.B) {
	for range b.N {
		twoNodesManyPipelines(b, 100)
	}
}

func twoNodesManyPipelines(t testing.TB, pipelines int) {
	a := apptest.New(t, apptest.Postgres(), serverConfig(nil))
	b := apptest.New(t, apptest.Postgres(), serverConfig(func(c *config.Config) {
		c.Storage.DSN = a.Config.Storage.DSN
		c.DataDir = a.Config.DataDir
	}))
	p := newProject(t, a, "many")
	marks := t.TempDir()
	startRunner(t, a.URL, 4)
	startRunner(t, b.URL, 4)

	branches := make([]string, pipelines)
	for i := range branches {
		branches[i] = fmt.Sprintf("b%03d", i)
	}
	start := time.Now()
	p.push(map[string]string{".gitlab-ci.yml": markerYML(marks)}, branches...)

	// Wait until every pipeline finished.
	deadline := time.Now().Add(120 * time.Second)
	var list []struct {
		ID     int64
		Status string
	}
	for {
		done, total := 0, 0
		list = list[:0]
		for page := 1; ; page++ {
			var batch []struct {
				ID     int64
				Status string
			}
			a.JSON(t, "GET", p.api("/pipelines?per_page=100&page=%d", page), a.RootToken, nil, 200, &batch)
			list = append(list, batch...)
			if len(batch) < 100 {
				break
			}
		}
		for _, pl := range list {
			total++
			switch pl.Status {
			case "success", "failed", "canceled", "skipped":
				done++
			}
		}
		if total == pipelines && done == total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %d of %d pipelines finished (%d created)", time.Since(start).Round(time.Second), done, pipelines, total)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("%d pipelines of 3 jobs on two nodes with two runners (concurrency 4) in %v", pipelines, time.Since(start).Round(time.Millisecond))

	// Every pipeline succeeded; every job id has exactly one marker.
	jobIDs := map[int64]bool{}
	perRunner := map[int64]int{}
	for _, pl := range list {
		if pl.Status != "success" {
			t.Errorf("pipeline %d: %s", pl.ID, pl.Status)
		}
		for name, j := range p.jobs(pl.ID) {
			if j.Status != "success" {
				t.Errorf("pipeline %d: job %s (%d) %s %s", pl.ID, name, j.ID, j.Status, j.FailureReason)
			}
			jobIDs[j.ID] = true
			if j.Runner != nil {
				perRunner[j.Runner.ID]++
			}
		}
	}
	if len(jobIDs) != 3*pipelines {
		t.Errorf("%d jobs, want %d", len(jobIDs), 3*pipelines)
	}
	t.Logf("jobs per runner: %v", perRunner)
	ranLog, err := os.ReadFile(filepath.Join(marks, "ran.log"))
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, id := range strings.Fields(string(ranLog)) {
		if runs[id]++; runs[id] == 2 {
			t.Errorf("job %s ran twice", id)
		}
	}
	if len(runs) != 3*pipelines {
		t.Errorf("%d jobs ran, want %d", len(runs), 3*pipelines)
	}
	entries, err := os.ReadDir(marks)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "ran.log" {
			continue
		}
		id, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil || !jobIDs[id] {
			t.Errorf("marker %s is no job's of these pipelines", e.Name())
		}
		delete(jobIDs, id)
	}
	for id := range jobIDs {
		t.Errorf("job %d left no marker in %s", id, filepath.Base(marks))
	}
	for name, srv := range map[string]*apptest.Server{"a": a, "b": b} {
		if n := serverErrors(srv.Logs()); len(n) > 0 {
			t.Errorf("server %s logged %d 5xx: %s", name, len(n), strings.Join(n[:min(len(n), 3)], "\n"))
		}
	}
}

// serverErrors are the log lines of answers with a 5xx status (and of
// errors the router logs as internal).
func serverErrors(logs string) []string {
	var out []string
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, `"status":5`) || strings.Contains(line, `"level":"error"`) {
			out = append(out, line)
		}
	}
	return out
}
