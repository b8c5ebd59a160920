package jobs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// readFixture is a private project with two pipelines:
// master (success): build (success, runner, artifacts, archived trace),
// test (failed), deploy (manual); feature (running): lint (running, live
// trace), queue (pending).
type readFixture struct {
	repo                            repo
	dev, reporter                   person
	master, feature                 *domain.Pipeline
	build, test, deploy, lint, pend domain.Job
	runner                          *domain.Runner
	archive                         []byte
}

func (s *server) readFixture() *readFixture {
	s.T.Helper()
	f := &readFixture{repo: s.project("ci", "private")}
	f.dev = s.person("dev", "bio", "builds things")
	f.reporter = s.person("rep")
	s.member(f.repo.id, f.dev, domain.Developer)
	s.member(f.repo.id, f.reporter, domain.Reporter)
	f.runner = s.runner("r1", false, f.repo.id)

	build := job("build", "build", 0, domain.CISuccess)
	build.UserID, build.RunnerID = &f.dev.id, &f.runner.ID
	build.Coverage = ptr(87.5)
	test := job("test", "test", 1, domain.CIFailed)
	test.FailureReason = domain.FailureScript
	test.AllowFailure = true
	deploy := job("deploy", "deploy", 2, domain.CIManual)
	deploy.When = domain.WhenManual
	var jobs []domain.Job
	f.master, jobs = s.pipeline(f.repo.id, "master", f.repo.master, domain.CIFailed, build, test, deploy)
	f.build, f.test, f.deploy = jobs[0], jobs[1], jobs[2]
	lint := job("lint", "test", 0, domain.CIRunning)
	lint.RunnerID = &f.runner.ID
	f.feature, jobs = s.pipeline(f.repo.id, "feature", f.repo.feature, domain.CIRunning, lint, job("queue", "test", 0, domain.CIPending))
	f.lint, f.pend = jobs[0], jobs[1]

	f.archive = []byte(strings.Repeat("PK\x03\x04 zip bytes ", 50000))
	s.artifacts(f.build, f.archive, nil)
	s.archivedTrace(f.build, "Running build\nJob succeeded\n")
	s.liveTrace(f.lint, "linting...\n")
	return f
}

func ptr[T any](v T) *T { return &v }

func TestJobLists(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		f := s.readFixture()
		base := fmt.Sprintf("/projects/%d/jobs", f.repo.id)

		r := s.Expect(200, "GET", base, f.dev.token, nil)
		list := r.List(t)
		want := []int64{f.pend.ID, f.lint.ID, f.deploy.ID, f.test.ID, f.build.ID}
		if !eq(ids(list), want) {
			t.Fatalf("jobs = %v, want %v (id desc)", ids(list), want)
		}
		if r.Header.Get("X-Total") != "5" || r.Header.Get("X-Page") != "1" {
			t.Errorf("X-Total %q X-Page %q", r.Header.Get("X-Total"), r.Header.Get("X-Page"))
		}
		// build: everything embedded.
		b := list[4]
		wantKeys(t, "listed job", b, readKeys...)
		if b["status"] != "success" || b["stage"] != "build" || b["name"] != "build" || b["ref"] != "master" ||
			b["tag"] != false || b["coverage"] != 87.5 || b["duration"] != 120.0 || b["allow_failure"] != false {
			t.Errorf("build = %v", b)
		}
		if b["created_at"] != "2026-01-02T03:04:05.000Z" || b["started_at"] != "2026-01-02T03:05:05.000Z" ||
			b["finished_at"] != "2026-01-02T03:07:05.000Z" {
			t.Errorf("build times = %v %v %v", b["created_at"], b["started_at"], b["finished_at"])
		}
		if b["web_url"] != fmt.Sprintf("%s/root/ci/-/jobs/%d", s.URL, f.build.ID) {
			t.Errorf("web_url = %v", b["web_url"])
		}
		pl := b["pipeline"].(map[string]any)
		wantKeys(t, "pipeline", pl, "id", "ref", "sha", "status")
		if apptest.ID(pl) != f.master.ID || pl["ref"] != "master" || pl["sha"] != f.repo.master || pl["status"] != "failed" {
			t.Errorf("pipeline = %v", pl)
		}
		c := b["commit"].(map[string]any)
		wantKeys(t, "commit", c, commitKeys...)
		if c["id"] != f.repo.master || c["short_id"] != f.repo.master[:8] || c["title"] != "Add README" ||
			c["message"] != "Add README\n\nThe body." || c["author_name"] != "Ann Author" || c["author_email"] != "ann@example.com" {
			t.Errorf("commit = %v", c)
		}
		u := b["user"].(map[string]any)
		wantKeys(t, "user", u, userKeys...)
		if apptest.ID(u) != f.dev.id || u["username"] != "dev" || u["bio"] != "builds things" || u["web_url"] != s.URL+"/dev" {
			t.Errorf("user = %v", u)
		}
		run := b["runner"].(map[string]any)
		wantKeys(t, "runner", run, "id", "description", "active", "is_shared", "name")
		if apptest.ID(run) != f.runner.ID || run["description"] != "r1 runner" || run["active"] != true ||
			run["is_shared"] != false || run["name"] != "gitlab-runner" {
			t.Errorf("runner = %v", run)
		}
		af := b["artifacts_file"].(map[string]any)
		if af["filename"] != "artifacts.zip" || af["size"] != float64(len(f.archive)) {
			t.Errorf("artifacts_file = %v", af)
		}
		arts := b["artifacts"].([]any)
		if len(arts) != 1 || arts[0].(map[string]any)["file_type"] != "archive" {
			t.Errorf("artifacts = %v", arts)
		}
		// test: failed, no artifacts, no runner, no user.
		tj := list[3]
		wantKeys(t, "failed job", tj, append(readKeys, "failure_reason")...)
		if tj["failure_reason"] != "script_failure" || tj["allow_failure"] != true || tj["artifacts_file"] != nil ||
			tj["runner"] != nil || tj["user"] != nil || tj["coverage"] != nil || len(tj["artifacts"].([]any)) != 0 {
			t.Errorf("test = %v", tj)
		}
		// pending: never started.
		if p := list[0]; p["started_at"] != nil || p["finished_at"] != nil || p["duration"] != nil {
			t.Errorf("pending = %v", p)
		}
		if c := list[0]["commit"].(map[string]any); c["id"] != f.repo.feature {
			t.Errorf("feature job commit = %v", c["id"])
		}

		// Scope: a string, an array, invalid values.
		if l := s.Expect(200, "GET", base+"?scope=success", f.dev.token, nil).List(t); !eq(ids(l), []int64{f.build.ID}) {
			t.Errorf("scope=success: %v", ids(l))
		}
		if l := s.Expect(200, "GET", base+"?scope[]=failed&scope[]=manual", f.dev.token, nil).List(t); !eq(ids(l), []int64{f.deploy.ID, f.test.ID}) {
			t.Errorf("scope[]=failed,manual: %v", ids(l))
		}
		if l := s.Expect(200, "GET", base+"?scope[]=running", f.dev.token, nil).List(t); !eq(ids(l), []int64{f.lint.ID}) {
			t.Errorf("scope[]=running: %v", ids(l))
		}
		s.wantBody(400, `{"error":"scope does not have a valid value"}`, "GET", base+"?scope=bogus", f.dev.token, nil)
		s.wantBody(400, `{"error":"scope does not have a valid value"}`, "GET", base+"?scope[]=success&scope[]=nope", f.dev.token, nil)

		// Pagination.
		r = s.Expect(200, "GET", base+"?per_page=2&page=2", f.dev.token, nil)
		if l := r.List(t); !eq(ids(l), []int64{f.deploy.ID, f.test.ID}) {
			t.Errorf("page 2: %v", ids(l))
		}
		h := r.Header
		if h.Get("X-Total") != "5" || h.Get("X-Total-Pages") != "3" || h.Get("X-Next-Page") != "3" || h.Get("X-Prev-Page") != "1" ||
			!strings.Contains(h.Get("Link"), `rel="next"`) || !strings.Contains(h.Get("Link"), "per_page=2") {
			t.Errorf("headers %v", h)
		}

		// A pipeline's jobs.
		pbase := fmt.Sprintf("/projects/%d/pipelines/%d/jobs", f.repo.id, f.master.ID)
		if l := s.Expect(200, "GET", pbase, f.dev.token, nil).List(t); !eq(ids(l), []int64{f.deploy.ID, f.test.ID, f.build.ID}) {
			t.Errorf("pipeline jobs: %v", ids(l))
		} else {
			wantKeys(t, "pipeline job", l[0], readKeys...)
		}
		if l := s.Expect(200, "GET", pbase+"?scope[]=manual", f.dev.token, nil).List(t); !eq(ids(l), []int64{f.deploy.ID}) {
			t.Errorf("pipeline jobs scope manual: %v", ids(l))
		}
		s.wantBody(400, `{"error":"scope does not have a valid value"}`, "GET", pbase+"?scope=x", f.dev.token, nil)
		s.wantBody(404, `{"message":"404 Pipeline Not Found"}`, "GET", fmt.Sprintf("/projects/%d/pipelines/%d/jobs", f.repo.id, f.feature.ID+100), f.dev.token, nil)
		other := s.project("other", "private")
		s.wantBody(404, `{"message":"404 Pipeline Not Found"}`, "GET", fmt.Sprintf("/projects/%d/pipelines/%d/jobs", other.id, f.master.ID), s.RootToken, nil)
		s.wantBody(404, `{"message":"404 Pipeline Not Found"}`, "GET", fmt.Sprintf("/projects/%d/pipelines/abc/jobs", f.repo.id), s.RootToken, nil)

		// By path.
		if l := s.Expect(200, "GET", "/projects/root%2Fci/jobs?per_page=1", f.reporter.token, nil).List(t); !eq(ids(l), []int64{f.pend.ID}) {
			t.Errorf("by path: %v", ids(l))
		}
	})
}

func TestJobReads(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		f := s.readFixture()
		one := func(j domain.Job) string { return fmt.Sprintf("/projects/%d/jobs/%d", f.repo.id, j.ID) }

		b := s.Expect(200, "GET", one(f.build), f.reporter.token, nil).Object(t)
		wantKeys(t, "job", b, readKeys...)
		if apptest.ID(b) != f.build.ID || b["pipeline"].(map[string]any)["id"] != float64(f.master.ID) {
			t.Errorf("job = %v", b)
		}
		s.wantBody(404, `{"message":"404 Job Not Found"}`, "GET", fmt.Sprintf("/projects/%d/jobs/%d", f.repo.id, f.pend.ID+100), f.dev.token, nil)
		s.wantBody(404, `{"message":"404 Job Not Found"}`, "GET", fmt.Sprintf("/projects/%d/jobs/x", f.repo.id), f.dev.token, nil)
		other := s.project("other", "private")
		s.wantBody(404, `{"message":"404 Job Not Found"}`, "GET", fmt.Sprintf("/projects/%d/jobs/%d", other.id, f.build.ID), s.RootToken, nil)

		// Trace: archived in the blob store, live in the database, none.
		resp, body := s.raw("GET", one(f.build)+"/trace", f.dev.token)
		if resp.StatusCode != 200 || string(body) != "Running build\nJob succeeded\n" || resp.Header.Get("Content-Type") != "text/plain" ||
			resp.Header.Get("Content-Disposition") != fmt.Sprintf(`infile; filename="%d.log"`, f.build.ID) {
			t.Errorf("archived trace: %d %q %v", resp.StatusCode, body, resp.Header)
		}
		resp, body = s.raw("GET", one(f.lint)+"/trace", f.dev.token)
		if resp.StatusCode != 200 || string(body) != "linting...\n" {
			t.Errorf("live trace: %d %q", resp.StatusCode, body)
		}
		s.wantBody(404, `{"message":"Build not found or no trace file"}`, "GET", one(f.pend)+"/trace", f.dev.token, nil)
		s.wantBody(404, `{"message":"Build not found or no trace file"}`, "GET", fmt.Sprintf("/projects/%d/jobs/%d/trace", f.repo.id, f.pend.ID+100), f.dev.token, nil)

		// Artifacts: streamed from the blob store.
		resp, body = s.raw("GET", one(f.build)+"/artifacts", f.reporter.token)
		if resp.StatusCode != 200 || string(body) != string(f.archive) {
			t.Fatalf("artifacts: %d, %d bytes", resp.StatusCode, len(body))
		}
		if resp.Header.Get("Content-Disposition") != `attachment; filename="artifacts.zip"` ||
			resp.Header.Get("Content-Type") != "application/octet-stream" || resp.Header.Get("Content-Length") != fmt.Sprint(len(f.archive)) {
			t.Errorf("artifacts headers %v", resp.Header)
		}
		s.wantBody(404, `{"message":"Build not found or no artifacts"}`, "GET", one(f.test)+"/artifacts", f.dev.token, nil)
		s.wantBody(404, `{"message":"Build not found or no artifacts"}`, "GET", fmt.Sprintf("/projects/%d/jobs/%d/artifacts", f.repo.id, f.pend.ID+100), f.dev.token, nil)

		// Download by ref and job name: the latest successful pipeline's.
		dl := func(ref, name string) string {
			return fmt.Sprintf("/projects/%d/jobs/artifacts/%s/download?job=%s", f.repo.id, ref, name)
		}
		s.wantBody(404, `{"message":"Build not found or no artifacts"}`, "GET", dl("master", "build"), f.dev.token, nil) // master's pipeline failed
		ok := job("build", "build", 0, domain.CISuccess)
		_, jobs := s.pipeline(f.repo.id, "master", f.repo.master, domain.CISuccess, ok, job("test", "test", 1, domain.CISuccess))
		fresh := []byte("new archive")
		s.artifacts(jobs[0], fresh, nil)
		s.pipeline(f.repo.id, "master", f.repo.master, domain.CIRunning, job("build", "build", 0, domain.CIRunning))
		resp, body = s.raw("GET", dl("master", "build"), f.dev.token)
		if resp.StatusCode != 200 || string(body) != "new archive" {
			t.Errorf("download by ref: %d %q", resp.StatusCode, body)
		}
		s.wantBody(404, `{"message":"Build not found or no artifacts"}`, "GET", dl("master", "test"), f.dev.token, nil) // no artifacts
		s.wantBody(404, `{"message":"Build not found or no artifacts"}`, "GET", dl("master", "nope"), f.dev.token, nil)
		s.wantBody(404, `{"message":"Build not found or no artifacts"}`, "GET", dl("feature", "lint"), f.dev.token, nil)
		// A ref with a slash, encoded (%2F, and go-gitlab's %2E for dots).
		_, rel := s.pipeline(f.repo.id, "release/1.0", f.repo.master, domain.CISuccess, job("build", "build", 0, domain.CISuccess))
		s.artifacts(rel[0], []byte("release archive"), nil)
		for _, ref := range []string{"release%2F1.0", "release%2F1%2E0"} {
			if resp, body := s.raw("GET", dl(ref, "build"), f.dev.token); resp.StatusCode != 200 || string(body) != "release archive" {
				t.Errorf("download by ref %s: %d %q", ref, resp.StatusCode, body)
			}
		}
		s.wantBody(404, `{"error":"404 Not Found"}`, "GET", fmt.Sprintf("/projects/%d/jobs/artifacts/master/raw/x?job=build", f.repo.id), f.dev.token, nil)
		s.wantBody(400, `{"error":"job is missing"}`, "GET", fmt.Sprintf("/projects/%d/jobs/artifacts/master/download", f.repo.id), f.dev.token, nil)
	})
}

// TestJobListQueries: a page of jobs costs the same number of queries
// whatever its size (no query per job).
func TestJobListQueries(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	f := s.readFixture()
	var more []domain.Job
	for i := range 12 {
		j := job(fmt.Sprintf("j%d", i), "test", 0, domain.CISuccess)
		u := s.person(fmt.Sprintf("u%d", i))
		j.UserID = &u.id
		r := s.runner(fmt.Sprintf("rr%d", i), true)
		j.RunnerID = &r.ID
		more = append(more, j)
	}
	_, more = s.pipeline(f.repo.id, "feature", f.repo.feature, domain.CISuccess, more...)
	for _, j := range more[:6] {
		s.artifacts(j, []byte("x"), nil)
	}
	count := func(perPage int) int64 {
		path := fmt.Sprintf("/projects/%d/jobs?per_page=%d", f.repo.id, perPage)
		s.Expect(200, "GET", path, f.dev.token, nil) // warm caches
		before := s.Queries()
		if l := s.Expect(200, "GET", path, f.dev.token, nil).List(t); len(l) != perPage {
			t.Fatalf("%d jobs, want %d", len(l), perPage)
		}
		return s.Queries() - before
	}
	if small, large := count(2), count(15); small != large {
		t.Errorf("a page of 2 jobs costs %d queries, a page of 15 %d", small, large)
	}
}
