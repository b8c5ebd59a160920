package runners_test

import (
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestRunnersAPI(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		masterID, master := s.User("mona")
		devID, dev := s.User("dave")
		_, outsider := s.User("olga")
		p1 := apptest.ID(s.Project(master, "name", "one"))
		p2 := apptest.ID(s.Project(master, "name", "two"))
		p3, _ := s.project("three") // root's; mona is not a member
		s.AddMember("projects", p1, devID, int(domain.Developer))
		_ = masterID

		// Only masters see and reset the registration token.
		s.Expect(403, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", p1), dev, nil)
		s.Expect(404, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", p1), outsider, nil)
		s.Expect(401, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", p1), "", nil)
		tok := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", p1), master, nil).Object(t)
		apptest.HasKeys(t, tok, "token", "token_expires_at")

		r1, _ := s.runner(tok["token"].(string), map[string]any{"description": "first"})
		r3, _ := s.runner(s.regToken(p3), map[string]any{"description": "third", "locked": true})
		shared := s.sharedRunner()

		// GET /runners: the caller's specific runners.
		list := s.Expect(200, "GET", "/runners", master, nil).List(t)
		if fmt.Sprint(apptest.Ordered(list, "id")) != fmt.Sprintf("[%d]", r1) {
			t.Fatalf("mona's runners %v", apptest.Ordered(list, "id"))
		}
		apptest.HasKeys(t, list[0], "id", "description", "ip_address", "active", "is_shared", "name", "online", "status")
		if list[0]["description"] != "first" || list[0]["status"] != "not_connected" || list[0]["is_shared"] != false {
			t.Fatalf("runner entity %v", list[0])
		}
		r := s.Expect(200, "GET", "/runners?scope=active&per_page=1", master, nil)
		if r.Header.Get("X-Total") != "1" || r.Header.Get("X-Per-Page") != "1" {
			t.Fatalf("pagination headers %v", r.Header)
		}
		if l := s.Expect(200, "GET", "/runners?scope=paused", master, nil).List(t); len(l) != 0 {
			t.Fatalf("paused %v", l)
		}
		s.ExpectBody(400, `{"error":"scope does not have a valid value"}`, "GET", "/runners?scope=shared", master, nil)
		if l := s.Expect(200, "GET", "/runners", dev, nil).List(t); len(l) != 0 {
			t.Fatalf("a developer's runners %v", l)
		}
		s.Expect(401, "GET", "/runners", "", nil)
		// Root is no member of p1: its own list has only its project's runner.
		if l := s.Expect(200, "GET", "/runners", s.RootToken, nil).List(t); fmt.Sprint(apptest.Ordered(l, "id")) != fmt.Sprintf("[%d]", r3) {
			t.Fatalf("root's runners %v", apptest.Ordered(l, "id"))
		}

		// GET /runners/all: administrators.
		s.Expect(403, "GET", "/runners/all", master, nil)
		all := s.Expect(200, "GET", "/runners/all", s.RootToken, nil).List(t)
		if len(all) != 3 {
			t.Fatalf("all runners %v", apptest.Ordered(all, "id"))
		}
		if l := s.Expect(200, "GET", "/runners/all?scope=shared", s.RootToken, nil).List(t); fmt.Sprint(apptest.Ordered(l, "id")) != fmt.Sprintf("[%d]", shared) {
			t.Fatalf("shared runners %v", apptest.Ordered(l, "id"))
		}
		if l := s.Expect(200, "GET", "/runners/all?scope=specific", s.RootToken, nil).List(t); len(l) != 2 {
			t.Fatalf("specific runners %v", apptest.Ordered(l, "id"))
		}
		s.Expect(400, "GET", "/runners/all?scope=everything", s.RootToken, nil)

		// GET /runners/:id.
		d := s.Expect(200, "GET", fmt.Sprintf("/runners/%d", r1), master, nil).Object(t)
		apptest.HasKeys(t, d, "tag_list", "run_untagged", "locked", "maximum_timeout", "access_level", "version",
			"revision", "platform", "architecture", "contacted_at", "projects")
		apptest.LacksKeys(t, d, "token")
		projects := d["projects"].([]any)
		if len(projects) != 1 || projects[0].(map[string]any)["path_with_namespace"] != "mona/one" ||
			projects[0].(map[string]any)["name_with_namespace"] != "MONA / one" {
			t.Fatalf("runner projects %v", projects)
		}
		s.ExpectBody(403, `{"message":"403 Forbidden - No access granted"}`, "GET", fmt.Sprintf("/runners/%d", r1), dev, nil)
		s.Expect(403, "GET", fmt.Sprintf("/runners/%d", r3), master, nil)
		s.ExpectBody(404, `{"message":"404 Runner Not Found"}`, "GET", "/runners/999999", master, nil)
		s.Expect(200, "GET", fmt.Sprintf("/runners/%d", shared), outsider, nil)

		// PUT /runners/:id.
		u := s.Expect(200, "PUT", fmt.Sprintf("/runners/%d", r1), master, map[string]any{
			"description": "renamed", "tag_list": []string{"go", "linux"}, "active": false, "maximum_timeout": 1200,
			"access_level": "ref_protected"}).Object(t)
		if u["description"] != "renamed" || fmt.Sprint(u["tag_list"]) != "[go linux]" || u["active"] != false ||
			u["status"] != "not_connected" || u["maximum_timeout"] != float64(1200) || u["access_level"] != "ref_protected" {
			t.Fatalf("updated runner %v", u)
		}
		s.Expect(200, "PUT", fmt.Sprintf("/runners/%d", r1), master, apptest.Form("tag_list", "a,b", "active", "true"))
		s.ExpectBody(400, `{"error":"description, active, paused, tag_list, run_untagged, locked, access_level, maximum_timeout are missing, at least one parameter must be provided"}`,
			"PUT", fmt.Sprintf("/runners/%d", r1), master, map[string]any{})
		s.Expect(400, "PUT", fmt.Sprintf("/runners/%d", r1), master, map[string]any{"access_level": "nope"})
		s.Expect(400, "PUT", fmt.Sprintf("/runners/%d", r1), master, map[string]any{"tag_list": []string{}, "run_untagged": false})
		s.Expect(403, "PUT", fmt.Sprintf("/runners/%d", r1), dev, map[string]any{"description": "x"})
		s.ExpectBody(403, `{"message":"403 Forbidden - Runner is shared"}`, "PUT", fmt.Sprintf("/runners/%d", shared), master, map[string]any{"description": "x"})
		s.Expect(200, "PUT", fmt.Sprintf("/runners/%d", shared), s.RootToken, map[string]any{"description": "x"})

		// Project runners.
		pr := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/runners", p1), master, nil).List(t)
		if fmt.Sprint(apptest.Names(pr, "id")) != fmt.Sprint(apptest.Names([]map[string]any{{"id": float64(r1)}, {"id": float64(shared)}}, "id")) {
			t.Fatalf("project runners %v", apptest.Ordered(pr, "id"))
		}
		if l := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/runners?scope=specific", p1), master, nil).List(t); len(l) != 1 {
			t.Fatalf("specific project runners %v", l)
		}
		s.Expect(403, "GET", fmt.Sprintf("/projects/%d/runners", p1), dev, nil)
		s.Expect(404, "GET", fmt.Sprintf("/projects/%d/runners", p1), outsider, nil)

		// Enable r1 for p2; locked, shared and foreign runners cannot be.
		en := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/runners", p2), master, apptest.Form("runner_id", fmt.Sprint(r1))).Object(t)
		if apptest.ID(en) != r1 {
			t.Fatalf("enabled %v", en)
		}
		s.ExpectBody(409, `{"message":"Runner was already enabled for this project"}`, "POST", fmt.Sprintf("/projects/%d/runners", p2), master, apptest.Form("runner_id", fmt.Sprint(r1)))
		s.ExpectBody(403, `{"message":"403 Forbidden - Runner is locked"}`, "POST", fmt.Sprintf("/projects/%d/runners", p2), master, apptest.Form("runner_id", fmt.Sprint(r3)))
		s.ExpectBody(403, `{"message":"403 Forbidden - Runner is shared"}`, "POST", fmt.Sprintf("/projects/%d/runners", p2), master, apptest.Form("runner_id", fmt.Sprint(shared)))
		s.ExpectBody(400, `{"error":"runner_id is missing"}`, "POST", fmt.Sprintf("/projects/%d/runners", p2), master, nil)
		s.Expect(404, "POST", fmt.Sprintf("/projects/%d/runners", p2), master, apptest.Form("runner_id", "999999"))
		s.Expect(403, "POST", fmt.Sprintf("/projects/%d/runners", p1), dev, apptest.Form("runner_id", fmt.Sprint(r1)))
		d = s.Expect(200, "GET", fmt.Sprintf("/runners/%d", r1), master, nil).Object(t)
		if len(d["projects"].([]any)) != 2 {
			t.Fatalf("projects after enable %v", d["projects"])
		}

		// Disable: not the last project.
		s.Expect(204, "DELETE", fmt.Sprintf("/projects/%d/runners/%d", p2, r1), master, nil)
		s.ExpectBody(404, `{"message":"404 Runner Not Found"}`, "DELETE", fmt.Sprintf("/projects/%d/runners/%d", p2, r1), master, nil)
		s.ExpectBody(403, `{"message":"403 Forbidden - Only one project associated with the runner. Please remove the runner instead"}`,
			"DELETE", fmt.Sprintf("/projects/%d/runners/%d", p1, r1), master, nil)

		// Delete.
		s.Expect(403, "DELETE", fmt.Sprintf("/runners/%d", r1), dev, nil)
		s.Expect(403, "DELETE", fmt.Sprintf("/runners/%d", shared), master, nil)
		s.Expect(204, "DELETE", fmt.Sprintf("/runners/%d", r1), master, nil)
		s.Expect(404, "GET", fmt.Sprintf("/runners/%d", r1), master, nil)
		s.Expect(204, "DELETE", fmt.Sprintf("/runners/%d", shared), s.RootToken, nil)
	}, apptest.Configure(func(c *config.Config) { c.CI.RegistrationToken = "instance-token-for-tests" }))
}

// sharedRunner registers a shared runner with the instance token.
func (s *server) sharedRunner() int64 {
	s.T.Helper()
	id, _ := s.runner("instance-token-for-tests", map[string]any{"description": "shared"})
	return id
}
