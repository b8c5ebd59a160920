package jobs_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestCommitStatuses(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		r := s.project("st", "private")
		dev, rep, outsider := s.person("dev"), s.person("rep"), s.person("outsider")
		s.member(r.id, dev, domain.Developer)
		s.member(r.id, rep, domain.Reporter)
		post := fmt.Sprintf("/projects/%d/statuses/%s", r.id, r.master)
		list := fmt.Sprintf("/projects/%d/repository/commits/%s/statuses", r.id, r.master)

		// A new status: pending.
		st := s.Expect(201, "POST", post, dev.token, apptest.Form("state", "pending", "ref", "master",
			"target_url", "https://ci.example.com/1", "description", "queued", "coverage", "80.5")).Object(t)
		wantKeys(t, "status", st, statusKeys...)
		id := apptest.ID(st)
		if st["sha"] != r.master || st["ref"] != "master" || st["status"] != "pending" || st["name"] != "default" ||
			st["target_url"] != "https://ci.example.com/1" || st["description"] != "queued" || st["coverage"] != 80.5 ||
			st["allow_failure"] != false || st["started_at"] != nil || st["finished_at"] != nil {
			t.Errorf("status = %v", st)
		}
		author := st["author"].(map[string]any)
		wantKeys(t, "author", author, "id", "name", "username", "state", "avatar_url", "web_url")
		if author["username"] != "dev" {
			t.Errorf("author = %v", author)
		}
		pl, err := s.Store.Pipelines().Latest(context.Background(), r.id, r.master, "master")
		if err != nil || pl.Source != domain.SourceExternal || pl.UserID == nil || *pl.UserID != dev.id {
			t.Fatalf("pipeline of the status: %+v %v", pl, err)
		}
		if j := s.stored(id); j.Kind != domain.JobExternal || j.PipelineID != pl.ID || j.Stage != "external" {
			t.Errorf("stored status %+v", j)
		}
		if ev := s.events.of(id); len(ev) != 1 || ev[0].Previous != "" || ev[0].Job.Status != domain.CIPending {
			t.Errorf("events = %+v", ev)
		}

		// The same name moves the same status: running, then success.
		run := s.Expect(201, "POST", post, dev.token, apptest.Form("state", "running", "ref", "master")).Object(t)
		if apptest.ID(run) != id || run["status"] != "running" || run["started_at"] == nil || run["description"] != "queued" {
			t.Errorf("running = %v", run)
		}
		s.wantBody(400, `{"message":"Cannot transition status via :run from :running (Reason(s): Status cannot transition via \"run\")"}`,
			"POST", post, dev.token, apptest.Form("state", "running", "ref", "master"))
		s.wantBody(400, `{"message":"Cannot transition status via :enqueue from :running (Reason(s): Status cannot transition via \"enqueue\")"}`,
			"POST", post, dev.token, apptest.Form("state", "pending", "ref", "master"))
		ok := s.Expect(201, "POST", post, dev.token, apptest.Form("state", "success", "ref", "master", "description", "passed")).Object(t)
		if apptest.ID(ok) != id || ok["status"] != "success" || ok["finished_at"] == nil || ok["description"] != "passed" {
			t.Errorf("success = %v", ok)
		}
		if ev := s.events.of(id); len(ev) != 3 || ev[1].Previous != domain.CIPending || ev[2].Previous != domain.CIRunning {
			t.Errorf("events = %+v", ev)
		}
		// A finished status is not reused: a new one supersedes it.
		again := s.Expect(201, "POST", post, dev.token, apptest.Form("state", "failed", "ref", "master")).Object(t)
		if apptest.ID(again) == id || again["status"] != "failed" {
			t.Errorf("failed = %v", again)
		}
		if !s.stored(id).Retried {
			t.Errorf("the superseded status is not marked retried")
		}
		// context names a status; so does name.
		ctxSt := s.Expect(201, "POST", post, dev.token, apptest.Form("state", "canceled", "ref", "master", "context", "ci/lint")).Object(t)
		named := s.Expect(201, "POST", post, dev.token, apptest.Form("state", "success", "ref", "master", "name", "ci/test", "context", "ignored")).Object(t)
		if ctxSt["name"] != "ci/lint" || ctxSt["status"] != "canceled" || named["name"] != "ci/test" {
			t.Errorf("names = %v %v", ctxSt["name"], named["name"])
		}
		// Without ref: the default branch when it holds the commit, else
		// the branch that does.
		noRef := s.Expect(201, "POST", post, dev.token, apptest.Form("state", "success", "name", "noref")).Object(t)
		feat := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/statuses/%s", r.id, r.feature), dev.token, apptest.Form("state", "running")).Object(t)
		if noRef["ref"] != "master" || feat["ref"] != "feature" {
			t.Errorf("refs without ref = %v %v", noRef["ref"], feat["ref"])
		}
		onFeature := s.Expect(201, "POST", post, dev.token, apptest.Form("state", "success", "ref", "feature", "name", "f")).Object(t)

		// Listing: the latest of each name on the default branch, oldest first.
		want := []int64{apptest.ID(again), apptest.ID(ctxSt), apptest.ID(named), apptest.ID(noRef)}
		l := s.Expect(200, "GET", list, rep.token, nil)
		if got := ids(l.List(t)); !eq(got, want) {
			t.Errorf("statuses = %v, want %v", got, want)
		}
		wantKeys(t, "listed status", l.List(t)[0], statusKeys...)
		if l.Header.Get("X-Total") != "4" {
			t.Errorf("X-Total %q", l.Header.Get("X-Total"))
		}
		if got := ids(s.Expect(200, "GET", list+"?all=true", rep.token, nil).List(t)); !eq(got, append([]int64{id}, want...)) {
			t.Errorf("all statuses = %v", got)
		}
		if got := ids(s.Expect(200, "GET", list+"?ref=feature", rep.token, nil).List(t)); !eq(got, []int64{apptest.ID(onFeature)}) {
			t.Errorf("feature statuses = %v", got)
		}
		if got := ids(s.Expect(200, "GET", list+"?name=ci/lint", rep.token, nil).List(t)); !eq(got, []int64{apptest.ID(ctxSt)}) {
			t.Errorf("named statuses = %v", got)
		}
		if got := ids(s.Expect(200, "GET", list+"?stage=test", rep.token, nil).List(t)); len(got) != 0 {
			t.Errorf("stage test statuses = %v", got)
		}
		pg := s.Expect(200, "GET", list+"?per_page=3&page=2", rep.token, nil)
		if got := ids(pg.List(t)); !eq(got, want[3:]) || pg.Header.Get("X-Total-Pages") != "2" {
			t.Errorf("page 2 = %v, headers %v", got, pg.Header)
		}
		// CI jobs of the commit are statuses too.
		_, js := s.pipeline(r.id, "master", r.master, domain.CISuccess, job("build", "build", 0, domain.CISuccess))
		if got := ids(s.Expect(200, "GET", list+"?stage=build", rep.token, nil).List(t)); !eq(got, []int64{js[0].ID}) {
			t.Errorf("build statuses = %v", got)
		}
		if got := s.Expect(200, "GET", list+"?stage=build", rep.token, nil).List(t)[0]; got["target_url"] != nil || got["author"] != nil {
			t.Errorf("a CI job as a status = %v", got)
		}

		// Statuses of other systems are not jobs.
		if got := ids(s.Expect(200, "GET", fmt.Sprintf("/projects/%d/jobs", r.id), dev.token, nil).List(t)); !eq(got, []int64{js[0].ID}) {
			t.Errorf("jobs = %v, want only the CI job", got)
		}
		s.wantBody(404, `{"message":"404 Job Not Found"}`, "GET", fmt.Sprintf("/projects/%d/jobs/%d", r.id, id), dev.token, nil)
		s.wantBody(404, `{"message":"404 Job Not Found"}`, "POST", fmt.Sprintf("/projects/%d/jobs/%d/cancel", r.id, apptest.ID(feat)), dev.token, nil)

		// Errors.
		s.wantBody(400, `{"error":"state does not have a valid value"}`, "POST", post, dev.token, apptest.Form("state", "bogus"))
		s.wantBody(400, `{"error":"state is missing"}`, "POST", post, dev.token, apptest.Form("ref", "master"))
		s.wantBody(400, `{"error":"coverage is invalid"}`, "POST", post, dev.token, apptest.Form("state", "success", "coverage", "lots"))
		s.wantBody(404, `{"message":"404 Commit Not Found"}`, "POST", fmt.Sprintf("/projects/%d/statuses/%040d", r.id, 7), dev.token, apptest.Form("state", "success"))
		s.wantBody(404, `{"message":"404 Commit Not Found"}`, "GET", fmt.Sprintf("/projects/%d/repository/commits/%040d/statuses", r.id, 7), dev.token, nil)
		s.wantBody(403, `{"message":"403 Forbidden"}`, "POST", post, rep.token, apptest.Form("state", "success"))
		s.wantBody(401, `{"message":"401 Unauthorized"}`, "POST", post, "", apptest.Form("state", "success"))
		s.wantBody(404, `{"message":"404 Project Not Found"}`, "POST", post, outsider.token, apptest.Form("state", "success"))
		s.wantBody(404, `{"message":"404 Project Not Found"}`, "GET", list, outsider.token, nil)
		s.wantBody(404, `{"message":"404 Project Not Found"}`, "GET", list, "", nil)
		guest := s.person("guest")
		s.member(r.id, guest, domain.Guest)
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", r.id), s.RootToken, map[string]any{"public_jobs": false})
		s.wantBody(404, `{"message":"404 Project Not Found"}`, "GET", list, guest.token, nil)
	})
}

// TestCommitStatusWithoutBranch: a commit no branch holds needs a ref.
func TestCommitStatusWithoutBranch(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.project("st", "private")
	s.Expect(204, "DELETE", fmt.Sprintf("/projects/%d/repository/branches/feature", r.id), s.RootToken, nil)
	s.wantBody(404, `{"message":"404 References for commit Not Found"}`, "POST",
		fmt.Sprintf("/projects/%d/statuses/%s", r.id, r.feature), s.RootToken, apptest.Form("state", "success"))
	st := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/statuses/%s", r.id, r.feature), s.RootToken,
		apptest.Form("state", "success", "ref", "gone")).Object(t)
	if st["ref"] != "gone" {
		t.Errorf("status = %v", st)
	}
}
