package ci_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestConcurrentJobEvents: the jobs of a stage finishing at once, each in
// its own transaction, leave the pipeline consistent: the next stage is
// enqueued exactly once and the pipeline ends with the right status.
func TestConcurrentJobEvents(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("parallel", "private")
		var cfg strings.Builder
		const n = 12
		for i := range n {
			fmt.Fprintf(&cfg, "build%d:\n  stage: build\n  script: x\n", i)
		}
		cfg.WriteString("final:\n  stage: deploy\n  script: x\n")
		s.commit(pid, "master", "ci", map[string]string{".gitlab-ci.yml": cfg.String()})
		id := apptest.ID(s.pipelines(pid, "")[0])
		jobs := s.jobs(id)
		var wg sync.WaitGroup
		for _, j := range jobs {
			if j.Stage != "build" {
				continue
			}
			wg.Add(1)
			go func(id int64) {
				defer wg.Done()
				if err := s.tryDrive(id, domain.CISuccess); err != nil {
					t.Error(err)
				}
			}(j.ID)
		}
		wg.Wait()
		jobs = s.jobs(id)
		final := job(t, jobs, "final")
		if final.Status != domain.CIPending || len(jobs) != n+1 {
			t.Fatalf("after the build stage: %s", states(jobs))
		}
		if p := s.pipeline(pid, id); p.Status != "running" {
			t.Fatalf("pipeline %s", p.Status)
		}
		s.drive(final.ID, domain.CISuccess)
		if p := s.pipeline(pid, id); p.Status != "success" {
			t.Fatalf("pipeline %s", p.Status)
		}
	})
}
