package jobs_test

import (
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestRunnerJobs(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		a, b := s.project("a", "private"), s.project("b", "private")
		master, dev := s.person("master"), s.person("dev")
		s.member(a.id, master, domain.Master)
		s.member(a.id, dev, domain.Developer)
		specific := s.runner("specific", false, a.id, b.id)
		shared := s.runner("shared", true)
		mk := func(name string, st domain.CIStatus, r *domain.Runner) domain.Job {
			j := job(name, "test", 0, st)
			j.RunnerID = &r.ID
			return j
		}
		_, ja := s.pipeline(a.id, "master", a.master, domain.CIRunning, mk("a1", domain.CISuccess, specific), mk("a2", domain.CIRunning, specific), mk("a3", domain.CISuccess, shared))
		_, jb := s.pipeline(b.id, "master", b.master, domain.CIFailed, mk("b1", domain.CIFailed, specific))
		path := fmt.Sprintf("/runners/%d/jobs", specific.ID)

		l := s.Expect(200, "GET", path, s.RootToken, nil)
		list := l.List(t)
		if !eq(ids(list), []int64{jb[0].ID, ja[1].ID, ja[0].ID}) || l.Header.Get("X-Total") != "3" {
			t.Fatalf("runner jobs = %v", ids(list))
		}
		wantKeys(t, "runner job", list[0], append(append([]string{}, readKeys...), "project", "failure_reason")...)
		proj := list[0]["project"].(map[string]any)
		wantKeys(t, "project", proj, "id", "description", "name", "name_with_namespace", "path", "path_with_namespace", "created_at")
		if apptest.ID(proj) != b.id || proj["path_with_namespace"] != "root/b" {
			t.Errorf("project = %v", proj)
		}
		if got := ids(s.Expect(200, "GET", path+"?status=success", s.RootToken, nil).List(t)); !eq(got, []int64{ja[0].ID}) {
			t.Errorf("status=success: %v", got)
		}
		if got := ids(s.Expect(200, "GET", path+"?per_page=1&page=3", s.RootToken, nil).List(t)); !eq(got, []int64{ja[0].ID}) {
			t.Errorf("page 3: %v", got)
		}
		s.wantBody(400, `{"error":"status does not have a valid value"}`, "GET", path+"?status=nope", s.RootToken, nil)
		// A master of a project the runner serves may list them.
		if got := ids(s.Expect(200, "GET", path, master.token, nil).List(t)); len(got) != 3 {
			t.Errorf("master sees %v", got)
		}
		s.wantBody(403, `{"message":"403 Forbidden - No access granted"}`, "GET", path, dev.token, nil)
		s.wantBody(403, `{"message":"403 Forbidden - No access granted"}`, "GET", fmt.Sprintf("/runners/%d/jobs", shared.ID), master.token, nil)
		s.wantBody(401, `{"message":"401 Unauthorized"}`, "GET", path, "", nil)
		s.wantBody(404, `{"message":"404 Runner Not Found"}`, "GET", fmt.Sprintf("/runners/%d/jobs", shared.ID+10), s.RootToken, nil)
		if got := ids(s.Expect(200, "GET", fmt.Sprintf("/runners/%d/jobs", shared.ID), s.RootToken, nil).List(t)); !eq(got, []int64{ja[2].ID}) {
			t.Errorf("shared runner jobs = %v", got)
		}
	})
}
