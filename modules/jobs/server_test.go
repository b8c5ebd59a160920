package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// server is the shared API client on a running Hearth with its blob store
// and the job events published so far. Pipelines and jobs are seeded
// through the stores: creating them from .gitlab-ci.yml is the ci
// module's.
type server struct {
	*apptest.Client
	*apptest.Server
	blobs  ports.BlobStore
	events *events
}

// events records the JobEvents published on the bus.
type events struct {
	mu   sync.Mutex
	list []domain.JobEvent
}

func (e *events) add(ev domain.JobEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
}

// of returns the events of job id so far.
func (e *events) of(id int64) []domain.JobEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []domain.JobEvent
	for _, ev := range e.list {
		if ev.Job.ID == id {
			out = append(out, ev)
		}
	}
	return out
}

func newServer(t *testing.T, opts ...apptest.Option) *server {
	t.Helper()
	var blobs ports.BlobStore
	var bus ports.EventBus
	srv := apptest.New(t, append(opts, apptest.With(fx.Populate(&blobs, &bus)))...)
	ev := &events{}
	bus.SubscribeTx(domain.JobEvent{}.EventName(), func(_ context.Context, e domain.BusEvent) error {
		je := e.(domain.JobEvent)
		if je.Job.Name == failingJob {
			return errors.New("a subscriber failed")
		}
		ev.add(je)
		return nil
	})
	return &server{Client: srv.Client(t), Server: srv, blobs: blobs, events: ev}
}

// failingJob names jobs whose events an in-transaction subscriber
// refuses: the change that published them must roll back.
const failingJob = "explode"

// eachDriver runs fn against a fresh server on SQLite and on Postgres
// (skipped without a Postgres server unless CI is set), in parallel.
func eachDriver(t *testing.T, fn func(t *testing.T, s *server)) {
	t.Helper()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			fn(t, newServer(t, apptest.Driver(driver)))
		})
	}
}

// person is a user with an api token.
type person struct {
	id    int64
	name  string
	token string
}

func (s *server) person(name string, extra ...string) person {
	s.T.Helper()
	id, token := s.User(name, extra...)
	return person{id: id, name: name, token: token}
}

// repo is a project with a master and a feature branch.
type repo struct {
	id      int64
	master  string // head of master
	feature string // head of feature (only on feature)
}

// project creates a project as root with README.md on master and
// feature.txt on feature; extra are more project parameters.
func (s *server) project(name, visibility string, extra ...string) repo {
	s.T.Helper()
	p := s.Project(s.RootToken, append([]string{"name", name, "visibility", visibility}, extra...)...)
	r := repo{id: apptest.ID(p)}
	c := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", r.id), s.RootToken, map[string]any{
		"branch": "master", "commit_message": "Add README\n\nThe body.", "author_name": "Ann Author", "author_email": "ann@example.com",
		"actions": []map[string]any{{"action": "create", "file_path": "README.md", "content": "hello\n"}},
	}).Object(s.T)
	r.master = c["id"].(string)
	c = s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", r.id), s.RootToken, map[string]any{
		"branch": "feature", "start_branch": "master", "commit_message": "Add feature",
		"actions": []map[string]any{{"action": "create", "file_path": "feature.txt", "content": "feature\n"}},
	}).Object(s.T)
	r.feature = c["id"].(string)
	return r
}

// member adds p to a project with level.
func (s *server) member(projectID int64, p person, level domain.AccessLevel) {
	s.T.Helper()
	s.AddMember("projects", projectID, p.id, int(level))
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// job is a CI job of stage (index idx) with status st.
func job(name, stage string, idx int, st domain.CIStatus) domain.Job {
	j := domain.Job{Kind: domain.JobBuild, Name: name, Stage: stage, StageIdx: idx, Status: st,
		When: domain.WhenOnSuccess, Spec: domain.JobSpec{Script: []string{"echo " + name}}, CreatedAt: t0, UpdatedAt: t0}
	if st != domain.CICreated && st != domain.CIManual && st != domain.CIPending {
		started := t0.Add(time.Minute)
		j.StartedAt = &started
	}
	if st.Completed() {
		finished := t0.Add(3 * time.Minute)
		j.FinishedAt = &finished
		j.RunnerFinished = true
	}
	return j
}

// pipeline creates a pipeline of the project for sha on ref with jobs,
// and returns it with the jobs as created (by ID).
func (s *server) pipeline(projectID int64, ref, sha string, st domain.CIStatus, jobs ...domain.Job) (*domain.Pipeline, []domain.Job) {
	s.T.Helper()
	pl := &domain.Pipeline{ProjectID: projectID, Ref: ref, SHA: sha, Status: st, Source: domain.SourcePush,
		CreatedAt: t0, UpdatedAt: t0}
	for i := range jobs {
		jobs[i].Ref, jobs[i].SHA = ref, sha
	}
	if err := s.Store.Pipelines().Create(context.Background(), pl, jobs); err != nil {
		s.T.Fatalf("create pipeline: %v", err)
	}
	return pl, jobs
}

// runner registers a runner serving the projects.
func (s *server) runner(name string, shared bool, projects ...int64) *domain.Runner {
	s.T.Helper()
	ctx := context.Background()
	r := &domain.Runner{TokenDigest: domain.TokenDigest("runner-" + name), Description: name + " runner", Active: true,
		RunUntagged: true, IsShared: shared, AccessLevel: domain.RunnerNotProtected, Name: "gitlab-runner", CreatedAt: t0}
	if err := s.Store.Runners().Create(ctx, r); err != nil {
		s.T.Fatalf("create runner: %v", err)
	}
	for _, p := range projects {
		if err := s.Store.Runners().AddProject(ctx, r.ID, p); err != nil {
			s.T.Fatalf("add runner to project: %v", err)
		}
	}
	return r
}

// artifacts stores an archive of the job in the blob store and its record.
func (s *server) artifacts(j domain.Job, content []byte, expire *time.Time) *domain.Artifact {
	s.T.Helper()
	ctx := context.Background()
	key := domain.ArtifactKey(j.ProjectID, j.ID, "archive")
	n, err := s.blobs.Write(ctx, key, bytes.NewReader(content), 0)
	if err != nil {
		s.T.Fatalf("write artifacts: %v", err)
	}
	a := &domain.Artifact{JobID: j.ID, Type: "archive", Format: "zip", Filename: "artifacts.zip", Size: n, Key: key,
		ExpireAt: expire, CreatedAt: t0}
	if _, err := s.Store.Artifacts().Create(ctx, a); err != nil {
		s.T.Fatalf("create artifact: %v", err)
	}
	if expire != nil {
		if _, err := s.Store.Jobs().Update(ctx, j.ID, func(j *domain.Job) error {
			j.ArtifactsExpireAt = expire
			return nil
		}); err != nil {
			s.T.Fatalf("set expiry: %v", err)
		}
	}
	return a
}

// archivedTrace stores a finished job's trace in the blob store.
func (s *server) archivedTrace(j domain.Job, trace string) {
	s.T.Helper()
	if _, err := s.blobs.Write(context.Background(), domain.TraceKey(j.ProjectID, j.ID), strings.NewReader(trace), 0); err != nil {
		s.T.Fatalf("write trace: %v", err)
	}
}

// liveTrace appends to a running job's trace in the database.
func (s *server) liveTrace(j domain.Job, trace string) {
	s.T.Helper()
	if _, err := s.Store.Jobs().AppendTrace(context.Background(), j.ID, 0, []byte(trace)); err != nil {
		s.T.Fatalf("append trace: %v", err)
	}
}

// stored reads a job from the store.
func (s *server) stored(id int64) *domain.Job {
	s.T.Helper()
	j, err := s.Store.Jobs().GetByID(context.Background(), id)
	if err != nil {
		s.T.Fatalf("read job %d: %v", id, err)
	}
	return j
}

// raw makes a request whose answer is not JSON (traces, artifacts).
func (s *server) raw(method, path, token string) (*http.Response, []byte) {
	s.T.Helper()
	return s.Do(s.T, method, path, token, nil)
}

// wantBody checks a JSON error (or any) body.
func (s *server) wantBody(status int, want, method, path, token string, body any) {
	s.T.Helper()
	s.ExpectBody(status, want, method, path, token, body)
}

// keysOf returns the sorted keys of an object.
func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// wantKeys checks that m has exactly keys.
func wantKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	keys = append([]string(nil), keys...)
	sort.Strings(keys)
	if got := keysOf(m); strings.Join(got, ",") != strings.Join(keys, ",") {
		t.Errorf("%s keys = %v\nwant %v", what, got, keys)
	}
}

// The Job entity's keys: pipeline only in lists and single reads.
var (
	jobKeys = []string{"id", "status", "stage", "name", "ref", "tag", "coverage", "allow_failure", "created_at",
		"started_at", "finished_at", "erased_at", "duration", "user", "commit", "web_url", "artifacts_file", "artifacts",
		"artifacts_expire_at", "runner"}
	readKeys   = append(append([]string{}, jobKeys...), "pipeline")
	commitKeys = []string{"id", "short_id", "title", "created_at", "message", "author_name", "author_email"}
	userKeys   = []string{"id", "name", "username", "state", "avatar_url", "web_url", "created_at", "bio", "location",
		"skype", "linkedin", "twitter", "website_url", "organization"}
	statusKeys = []string{"id", "sha", "ref", "status", "name", "target_url", "description", "created_at", "started_at",
		"finished_at", "allow_failure", "coverage", "author"}
)

func ids(l []map[string]any) []int64 {
	out := make([]int64, 0, len(l))
	for _, m := range l {
		out = append(out, apptest.ID(m))
	}
	return out
}

func eq(a, b []int64) bool { return fmt.Sprint(a) == fmt.Sprint(b) }
