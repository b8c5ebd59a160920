package jobs_test

import (
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestJobAccess: who reads and who changes jobs, traces and artifacts.
func TestJobAccess(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		f := s.readFixture()
		guest, outsider := s.person("guest"), s.person("outsider")
		s.member(f.repo.id, guest, domain.Guest)
		one := fmt.Sprintf("/projects/%d/jobs/%d", f.repo.id, f.build.ID)
		reads := []string{
			fmt.Sprintf("/projects/%d/jobs", f.repo.id),
			fmt.Sprintf("/projects/%d/pipelines/%d/jobs", f.repo.id, f.master.ID),
			one, one + "/trace", one + "/artifacts",
			fmt.Sprintf("/projects/%d/jobs/artifacts/master/download?job=build", f.repo.id),
		}
		writes := []string{"/cancel", "/retry", "/erase", "/artifacts/keep", "/play"}
		notFound := `{"message":"404 Project Not Found"}`

		// A private project without public jobs: guests, outsiders and
		// anonymous see nothing.
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", f.repo.id), s.RootToken, map[string]any{"public_jobs": false})
		for _, who := range []string{guest.token, outsider.token, ""} {
			for _, p := range reads {
				s.wantBody(404, notFound, "GET", p, who, nil)
			}
		}
		for _, who := range []string{guest.token, outsider.token} {
			for _, a := range writes {
				s.wantBody(404, notFound, "POST", one+a, who, nil)
			}
		}
		for _, a := range writes {
			s.wantBody(401, `{"message":"401 Unauthorized"}`, "POST", one+a, "", nil)
		}
		// Reporters read but do not change.
		for _, p := range reads[:5] { // master's pipeline failed: nothing to download by ref
			if resp, body := s.raw("GET", p, f.reporter.token); resp.StatusCode != 200 {
				t.Errorf("reporter GET %s: %d %s", p, resp.StatusCode, body)
			}
		}
		for _, a := range writes {
			s.wantBody(403, `{"message":"403 Forbidden"}`, "POST", one+a, f.reporter.token, nil)
		}
		if j := s.stored(f.build.ID); j.ErasedAt != nil || j.Status != domain.CISuccess {
			t.Errorf("a refused write changed the job")
		}
		// With public jobs, guests of the private project read them too
		// (GitLab's public_builds); outsiders still see no project.
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", f.repo.id), s.RootToken, map[string]any{"public_jobs": true})
		s.Expect(200, "GET", reads[0], guest.token, nil)
		s.wantBody(403, `{"message":"403 Forbidden"}`, "POST", one+"/cancel", guest.token, nil)
		s.wantBody(404, notFound, "GET", reads[0], outsider.token, nil)

		// A public project: jobs show to everyone only when public_jobs.
		pub := s.project("pub", "public", "public_jobs", "false")
		_, js := s.pipeline(pub.id, "master", pub.master, domain.CISuccess, job("build", "build", 0, domain.CISuccess))
		list := fmt.Sprintf("/projects/%d/jobs", pub.id)
		for _, who := range []string{outsider.token, ""} {
			s.wantBody(404, notFound, "GET", list, who, nil)
		}
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pub.id), s.RootToken, map[string]any{"public_jobs": true})
		for _, who := range []string{outsider.token, ""} {
			if l := s.Expect(200, "GET", list, who, nil).List(t); !eq(ids(l), []int64{js[0].ID}) {
				t.Errorf("public jobs: %v", ids(l))
			}
		}
		s.wantBody(403, `{"message":"403 Forbidden"}`, "POST", fmt.Sprintf("/projects/%d/jobs/%d/retry", pub.id, js[0].ID), outsider.token, nil)

		// Jobs disabled: gone, even for masters.
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pub.id), s.RootToken, map[string]any{"jobs_enabled": false})
		s.wantBody(404, notFound, "GET", list, s.RootToken, nil)
		s.wantBody(404, notFound, "POST", fmt.Sprintf("/projects/%d/jobs/%d/retry", pub.id, js[0].ID), s.RootToken, nil)
	})
}
