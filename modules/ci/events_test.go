package ci_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// recorder keeps the pipeline events the bus delivers after commit.
type recorder struct {
	mu        sync.Mutex
	changes   []string // "id:previous>status(jobs)"
	succeeded []domain.PipelineSucceeded
}

func (r *recorder) listen(s *server) {
	s.bus.Subscribe(domain.PipelineEvent{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
		e := ev.(domain.PipelineEvent)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.changes = append(r.changes, fmt.Sprintf("%d:%s>%s(%d)", e.Pipeline.ID, e.Previous, e.Pipeline.Status, len(e.Jobs)))
		return nil
	})
	s.bus.Subscribe(domain.PipelineSucceeded{}.EventName(), func(_ context.Context, ev domain.BusEvent) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.succeeded = append(r.succeeded, ev.(domain.PipelineSucceeded))
		return nil
	})
}

func (r *recorder) take() ([]string, []domain.PipelineSucceeded) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, s := r.changes, r.succeeded
	r.changes, r.succeeded = nil, nil
	return c, s
}

// TestPipelineEvents: every status change of a pipeline is published once
// with its jobs (the retried ones left out), and a branch pipeline's
// success is announced to the merge requests; a tag's is not.
func TestPipelineEvents(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		var rec recorder
		rec.listen(s)
		pid := s.project("events", "private")
		sha := s.commit(pid, "master", "ci", map[string]string{".gitlab-ci.yml": "a:\n  stage: build\n  script: x\nb:\n  stage: test\n  script: x\n  retry: 1\n"})
		id := apptest.ID(s.pipelines(pid, "")[0])
		changes, _ := rec.take()
		if got := strings.Join(changes, " "); got != fmt.Sprintf("%d:>created(2) %d:created>pending(2)", id, id) {
			t.Fatalf("on creation: %s", got)
		}
		jobs := s.jobs(id)
		s.drive(job(t, jobs, "a").ID, domain.CIRunning)
		s.drive(job(t, jobs, "a").ID, domain.CISuccess)
		s.drive(job(t, s.jobs(id), "b").ID, domain.CIFailed) // retried automatically: still running
		s.drive(job(t, s.jobs(id), "b").ID, domain.CISuccess)
		changes, succeeded := rec.take()
		if got := strings.Join(changes, " "); got != fmt.Sprintf("%d:pending>running(2) %d:running>success(2)", id, id) {
			t.Fatalf("changes: %s", got)
		}
		if len(succeeded) != 1 || succeeded[0].PipelineID != id || succeeded[0].Ref != "master" || succeeded[0].SHA != sha || succeeded[0].ProjectID != pid {
			t.Fatalf("succeeded %+v", succeeded)
		}

		s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/tags", pid), s.RootToken, apptest.Form("tag_name", "v1", "ref", sha))
		tagID := apptest.ID(s.pipelines(pid, "?scope=tags")[0])
		s.drive(job(t, s.jobs(tagID), "a").ID, domain.CISuccess)
		s.drive(job(t, s.jobs(tagID), "b").ID, domain.CISuccess)
		changes, succeeded = rec.take()
		if len(succeeded) != 0 || !strings.HasSuffix(strings.Join(changes, " "), fmt.Sprintf("%d:running>success(2)", tagID)) {
			t.Fatalf("tag pipeline: %v %+v", changes, succeeded)
		}

		// [ci skip] and invalid files are announced once, in their status
		s.commit(pid, "master", "skip [ci skip]", map[string]string{"x": "1"})
		s.commit(pid, "master", "broken", map[string]string{".gitlab-ci.yml": "a: [\n"})
		changes, _ = rec.take()
		if len(changes) != 2 || !strings.HasSuffix(changes[0], ":>skipped(0)") || !strings.HasSuffix(changes[1], ":>failed(0)") {
			t.Fatalf("skipped and failed: %v", changes)
		}
	})
}
