package ci_test

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// server is the shared API client on a running Hearth, with the event bus
// so that tests can drive jobs as the runners module will: change the job
// in a transaction and publish its JobEvent.
type server struct {
	*apptest.Client
	*apptest.Server
	bus  ports.EventBus
	blob ports.BlobStore
}

// eachDriver runs fn against a fresh server on SQLite and on Postgres
// (skipped without a Postgres server unless CI is set), in parallel.
func eachDriver(t *testing.T, fn func(t *testing.T, s *server)) {
	t.Helper()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			s := &server{}
			srv := apptest.New(t, apptest.Driver(driver), apptest.With(fx.Populate(&s.bus, &s.blob)))
			s.Server, s.Client = srv, srv.Client(t)
			fn(t, s)
		})
	}
}

// person is a user with an api token.
type person struct {
	id    int64
	name  string
	token string
}

func (s *server) person(name string) person {
	s.T.Helper()
	id, token := s.User(name)
	return person{id: id, name: name, token: token}
}

// project creates a project as root; extra are more project parameters.
func (s *server) project(name, visibility string, extra ...string) int64 {
	s.T.Helper()
	return apptest.ID(s.Project(s.RootToken, append([]string{"name", name, "visibility", visibility}, extra...)...))
}

func (s *server) member(projectID int64, p person, level domain.AccessLevel) {
	s.T.Helper()
	s.AddMember("projects", projectID, p.id, int(level))
}

// commit writes files on branch through the commits API (a PushEvent,
// as a push) as root and returns the new commit's id.
func (s *server) commit(projectID int64, branch, message string, files map[string]string) string {
	s.T.Helper()
	var actions []map[string]string
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		action := "create"
		if s.Send("GET", fmt.Sprintf("/projects/%d/repository/files/%s?ref=%s", projectID, url.PathEscape(p), branch), s.RootToken, nil).Status == 200 {
			action = "update"
		}
		actions = append(actions, map[string]string{"action": action, "file_path": p, "content": files[p]})
	}
	body := map[string]any{"branch": branch, "commit_message": message, "actions": actions}
	if s.Send("GET", fmt.Sprintf("/projects/%d/repository/branches/%s", projectID, branch), s.RootToken, nil).Status == 404 {
		if s.Send("GET", fmt.Sprintf("/projects/%d/repository/branches/master", projectID), s.RootToken, nil).Status == 200 {
			body["start_branch"] = "master"
		}
	}
	c := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", projectID), s.RootToken, body).Object(s.T)
	return c["id"].(string)
}

// pipelineJSON is the full pipeline entity as the tests read it.
type pipelineJSON struct {
	ID          int64                      `json:"id"`
	SHA         string                     `json:"sha"`
	Ref         string                     `json:"ref"`
	Status      string                     `json:"status"`
	BeforeSHA   string                     `json:"before_sha"`
	Tag         bool                       `json:"tag"`
	YAMLErrors  *string                    `json:"yaml_errors"`
	User        *struct{ Username string } `json:"user"`
	StartedAt   *string                    `json:"started_at"`
	FinishedAt  *string                    `json:"finished_at"`
	CommittedAt *string                    `json:"committed_at"`
	Duration    *int                       `json:"duration"`
	Coverage    *string                    `json:"coverage"`
}

// pipelines lists the project's pipelines (newest first) as root.
func (s *server) pipelines(projectID int64, query string) []map[string]any {
	s.T.Helper()
	return s.Expect(200, "GET", fmt.Sprintf("/projects/%d/pipelines%s", projectID, query), s.RootToken, nil).List(s.T)
}

// pipeline reads one pipeline as root.
func (s *server) pipeline(projectID, id int64) pipelineJSON {
	s.T.Helper()
	var p pipelineJSON
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d/pipelines/%d", projectID, id), s.RootToken, nil).Decode(s.T, &p)
	return p
}

// jobs are the pipeline's jobs from the store (retried ones included),
// by stage then id.
func (s *server) jobs(pipelineID int64) []domain.Job {
	s.T.Helper()
	jobs, err := s.Store.Jobs().OfPipeline(context.Background(), pipelineID)
	if err != nil {
		s.T.Fatal(err)
	}
	return jobs
}

// states renders the latest jobs as "name:status" words.
func states(jobs []domain.Job) string {
	var out []string
	for _, j := range jobs {
		if !j.Retried {
			out = append(out, j.Name+":"+string(j.Status))
		}
	}
	return strings.Join(out, " ")
}

// job finds the latest job named name.
func job(t testing.TB, jobs []domain.Job, name string) domain.Job {
	t.Helper()
	for _, j := range jobs {
		if j.Name == name && !j.Retried {
			return j
		}
	}
	t.Fatalf("no job %s in %s", name, states(jobs))
	return domain.Job{}
}

// drive moves a job as a runner would (run, succeed or fail) in a
// transaction that publishes its JobEvent; the pipeline follows.
func (s *server) drive(jobID int64, to domain.CIStatus, coverage ...float64) {
	s.T.Helper()
	ctx := context.Background()
	err := s.Store.Tx().WithinTx(ctx, func(ctx context.Context) error {
		var prev domain.CIStatus
		j, err := s.Store.Jobs().Update(ctx, jobID, func(j *domain.Job) error {
			prev = j.Status
			now := time.Now().UTC()
			if to != domain.CIRunning && j.Status == domain.CIPending {
				if err := j.Run(now); err != nil {
					return err
				}
			}
			if len(coverage) > 0 {
				j.Coverage = &coverage[0]
			}
			switch to {
			case domain.CIRunning:
				return j.Run(now)
			case domain.CISuccess:
				return j.Succeed(now)
			case domain.CIFailed:
				return j.Drop(now, domain.FailureScript)
			}
			return fmt.Errorf("cannot drive to %s", to)
		})
		if err != nil {
			return err
		}
		return s.bus.Publish(ctx, domain.JobEvent{Job: *j, Previous: prev})
	})
	if err != nil {
		s.T.Fatalf("drive job %d to %s: %v", jobID, to, err)
	}
}

// blobs opens the server's blob store (the default directory under its
// data directory).
func (s *server) blobs(t *testing.T) ports.BlobStore {
	t.Helper()
	return s.blob
}

// retryJob retries a finished job as the jobs module does: a copy is
// created and enqueued, the old one marked retried, and the new one's
// JobEvent published (Previous "").
func (s *server) retryJob(jobID int64) int64 {
	s.T.Helper()
	ctx := context.Background()
	var n domain.Job
	err := s.Store.Tx().WithinTx(ctx, func(ctx context.Context) error {
		old, err := s.Store.Jobs().GetByID(ctx, jobID)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		n = old.RetryOf(now, nil)
		if err := s.Store.Jobs().Create(ctx, &n); err != nil {
			return err
		}
		if _, err := s.Store.Jobs().Update(ctx, old.ID, func(j *domain.Job) error { j.Retried = true; return nil }); err != nil {
			return err
		}
		saved, err := s.Store.Jobs().Update(ctx, n.ID, func(j *domain.Job) error { return j.Enqueue(now) })
		if err != nil {
			return err
		}
		n = *saved
		return s.bus.Publish(ctx, domain.JobEvent{Job: n})
	})
	if err != nil {
		s.T.Fatalf("retry job %d: %v", jobID, err)
	}
	return n.ID
}
