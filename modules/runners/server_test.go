package runners_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/modules/runners"
)

// server is a running Hearth with the CI stores and the runners service
// at hand: pipelines are seeded through the stores (pipeline creation
// from .gitlab-ci.yml is another module's).
type server struct {
	*apptest.Client
	*apptest.Server
	svc       *runners.Service
	pipelines ports.PipelineStore
	jobs      ports.JobStore
	artifacts ports.ArtifactStore
	variables ports.VariableStore
	blob      ports.BlobStore
}

func newServer(t *testing.T, opts ...apptest.Option) *server {
	t.Helper()
	s := &server{}
	opts = append(opts, apptest.With(fx.Populate(&s.svc, &s.pipelines, &s.jobs, &s.artifacts, &s.variables, &s.blob)))
	srv := apptest.New(t, opts...)
	s.Server, s.Client = srv, srv.Client(t)
	return s
}

// eachDriver runs fn against a fresh server on SQLite and on Postgres, in
// parallel.
func eachDriver(t *testing.T, fn func(t *testing.T, s *server), opts ...apptest.Option) {
	t.Helper()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			fn(t, newServer(t, append([]apptest.Option{apptest.Driver(driver)}, opts...)...))
		})
	}
}

// reply is a raw protocol answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
	return m
}

// call sends a runner protocol request: body a map (JSON), []byte or an
// io.Reader (raw), headers as name, value pairs.
func (s *server) call(method, path string, body any, headers ...string) reply {
	s.T.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case io.Reader:
		rd = b
	default:
		data, err := json.Marshal(b)
		if err != nil {
			s.T.Fatal(err)
		}
		rd, ctype = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequest(method, s.API()+path, rd)
	if err != nil {
		s.T.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		s.T.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if (resp.StatusCode == 200 || resp.StatusCode == 201) && len(data) > 0 &&
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && resp.Header.Get("Content-Type") != "application/octet-stream" {
		s.T.Fatalf("%s %s: Content-Type %q", method, path, resp.Header.Get("Content-Type"))
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data}
}

// expect is call that checks the status.
func (s *server) expect(status int, method, path string, body any, headers ...string) reply {
	s.T.Helper()
	r := s.call(method, path, body, headers...)
	if r.status != status {
		s.T.Fatalf("%s %s: %d, want %d: %s", method, path, r.status, status, r.body)
	}
	return r
}

// project creates a project as root and returns its ID and path.
func (s *server) project(name string, kv ...string) (int64, string) {
	s.T.Helper()
	p := s.Project(s.RootToken, append([]string{"name", name}, kv...)...)
	return apptest.ID(p), p["path_with_namespace"].(string)
}

// regToken resets a project's registration token as root.
func (s *server) regToken(pid int64) string {
	s.T.Helper()
	m := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", pid), s.RootToken, nil).Object(s.T)
	return m["token"].(string)
}

// runner registers a runner with a registration token; extra are more
// body fields.
func (s *server) runner(regToken string, extra map[string]any) (int64, string) {
	s.T.Helper()
	body := map[string]any{"token": regToken, "description": "test runner",
		"info": map[string]any{"name": "gitlab-runner", "version": "17.11.0", "platform": "linux", "architecture": "amd64"}}
	for k, v := range extra {
		body[k] = v
	}
	m := s.expect(201, "POST", "/runners", body).json(s.T)
	return int64(m["id"].(float64)), m["token"].(string)
}

// jobSpec describes one job to seed.
type jobSpec struct {
	name   string
	stage  int
	status domain.CIStatus
	tags   []string
	spec   domain.JobSpec
	userID *int64
}

// pipeline seeds a pipeline of project pid on master with jobs; it returns
// the jobs by name.
func (s *server) pipeline(pid int64, jobs ...jobSpec) map[string]domain.Job {
	s.T.Helper()
	sha := strings.Repeat("a", 40)
	u, err := s.Users.UserByLogin(context.Background(), "root")
	if err != nil {
		s.T.Fatal(err)
	}
	root := u.ID
	p := &domain.Pipeline{ProjectID: pid, Ref: "master", SHA: sha, BeforeSHA: strings.Repeat("0", 40),
		Status: domain.CIPending, Source: domain.SourcePush, UserID: &root, ConfigPath: ".gitlab-ci.yml"}
	now := time.Now().UTC()
	var list []domain.Job
	for _, j := range jobs {
		status := j.status
		if status == "" {
			status = domain.CIPending
		}
		uid := j.userID
		if uid == nil {
			uid = &root
		}
		job := domain.Job{ProjectID: pid, Kind: domain.JobBuild, Name: j.name,
			Stage: []string{"build", "test", "deploy"}[j.stage], StageIdx: j.stage, Status: status,
			Ref: "master", SHA: sha, When: domain.WhenOnSuccess, UserID: uid, Tags: j.tags, Spec: j.spec}
		if status == domain.CIPending {
			job.QueuedAt = &now
		}
		if job.Tags == nil {
			job.Tags = []string{}
		}
		list = append(list, job)
	}
	if err := s.pipelines.Create(context.Background(), p, list); err != nil {
		s.T.Fatalf("create pipeline: %v", err)
	}
	out := map[string]domain.Job{}
	for _, j := range list {
		out[j.Name] = j
	}
	return out
}

// job reads a job from the store.
func (s *server) job(id int64) *domain.Job {
	s.T.Helper()
	j, err := s.jobs.GetByID(context.Background(), id)
	if err != nil {
		s.T.Fatalf("job %d: %v", id, err)
	}
	return j
}

// take asks for a job as the runner and returns its payload (201 wanted).
func (s *server) take(runnerToken string) map[string]any {
	s.T.Helper()
	return s.expect(201, "POST", "/jobs/request", map[string]any{"token": runnerToken, "info": map[string]any{"name": "gitlab-runner"}}).json(s.T)
}

func idOf(m map[string]any) int64 { return int64(m["id"].(float64)) }
