package ci_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/domain"
)

// triggerCI has a job for every pipeline and one only triggers run.
const triggerCI = `build:
  script: [make]
triggered:
  script: [make deploy]
  only: [triggers]
`

// TestTriggers drives the triggers API and the trigger itself: masters
// manage triggers, the token is stored as a digest and shown whole once,
// a trigger runs a pipeline as its owner with its variables reaching the
// runner, and a bad token, a token of another project or an owner who
// lost access run nothing.
func TestTriggers(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("triggered", "private")
		other := s.project("elsewhere", "private")
		m, dev, outsider := s.person("trig-master"), s.person("trig-dev"), s.person("trig-outsider")
		s.member(pid, m, domain.Master)
		s.member(pid, dev, domain.Developer)
		s.commit(pid, "master", "ci", map[string]string{".gitlab-ci.yml": triggerCI})
		base := fmt.Sprintf("/projects/%d/triggers", pid)

		// Permissions: 401, 404 to who cannot see the project, 403 below master.
		s.Expect(401, "GET", base, "", nil)
		s.Expect(404, "GET", base, outsider.token, nil)
		s.Expect(403, "GET", base, dev.token, nil)
		s.Expect(403, "POST", base, dev.token, apptest.Form("description", "nope"))
		s.Expect(400, "POST", base, m.token, nil)

		created := s.Expect(201, "POST", base, m.token, apptest.Form("description", "deploys")).Object(t)
		token := created["token"].(string)
		if !strings.HasPrefix(token, "glptt-") || len(token) < 30 || created["description"] != "deploys" ||
			created["owner"].(map[string]any)["username"] != m.name || created["last_used"] != nil {
			t.Fatalf("created trigger: %v", created)
		}
		apptest.HasKeys(t, created, "id", "created_at", "updated_at", "deleted_at")
		id := apptest.ID(created)
		one := fmt.Sprintf("%s/%d", base, id)

		// Only a digest is stored: no column of the row holds the token.
		s.noSecretIn(t, "ci_triggers", strings.TrimPrefix(token, "glptt-"))
		tr, err := s.Store.Triggers().Get(context.Background(), pid, id)
		if err != nil || tr.TokenDigest != domain.TokenDigest(token) {
			t.Fatalf("stored trigger: %+v %v", tr, err)
		}

		// Later reads show the first four characters after the prefix.
		hint := strings.TrimPrefix(token, "glptt-")[:4]
		l := s.Expect(200, "GET", base, m.token, nil)
		if list := l.List(t); len(list) != 1 || list[0]["token"] != hint || l.Header.Get("X-Total") != "1" {
			t.Fatalf("list: %s", l.Body)
		}
		if got := s.Expect(200, "GET", one, m.token, nil).Object(t); got["token"] != hint {
			t.Fatalf("get: %v", got)
		}
		s.Expect(404, "GET", base+"/999999", m.token, nil)
		s.Expect(400, "GET", base+"/x", m.token, nil)
		s.Expect(403, "PUT", one, dev.token, apptest.Form("description", "x"))
		if got := s.Expect(200, "PUT", one, m.token, apptest.Form("description", "renamed")).Object(t); got["description"] != "renamed" {
			t.Fatalf("update: %v", got)
		}
		if got := s.Expect(200, "POST", one+"/take_ownership", s.RootToken, nil).Object(t); got["owner"].(map[string]any)["username"] != "root" {
			t.Fatalf("take ownership: %v", got)
		}
		s.Expect(200, "POST", one+"/take_ownership", m.token, nil)

		// The trigger runs a pipeline as its owner, with its variables
		// (the push's pipeline is canceled, so that the runner below
		// takes a triggered job).
		for _, pl := range s.pipelines(pid, "") {
			s.Expect(200, "POST", fmt.Sprintf("/projects/%d/pipelines/%d/cancel", pid, apptest.ID(pl)), s.RootToken, nil)
		}
		run := fmt.Sprintf("/projects/%d/trigger/pipeline", pid)
		p := s.Expect(201, "POST", run, "", apptest.Form("token", token, "ref", "master",
			"variables[TRIGGER_KEY]", "trigger value", "variables[SECOND]", "2")).Object(t)
		if p["ref"] != "master" || p["user"].(map[string]any)["username"] != m.name {
			t.Fatalf("triggered pipeline: %v", p)
		}
		if got := states(s.jobs(apptest.ID(p))); got != "build:pending triggered:pending" {
			t.Fatalf("triggered jobs: %s", got)
		}
		if got := s.Expect(200, "GET", one, m.token, nil).Object(t); got["last_used"] == nil {
			t.Fatalf("last_used not set: %v", got)
		}

		// The runner receives the variables, after every other one.
		reg := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", pid), s.RootToken, nil).Object(t)["token"].(string)
		rc := contracttests.RunnerClient{URL: s.URL}
		_, runnerToken, reply, err := rc.Register(context.Background(), reg, nil)
		if err != nil || reply.Status != 201 {
			t.Fatalf("register: %v %d %s", err, reply.Status, reply.Body)
		}
		job, reply, err := rc.RequestJob(context.Background(), runnerToken, "")
		if err != nil || job == nil {
			t.Fatalf("request job: %v %d %s", err, reply.Status, reply.Body)
		}
		for key, want := range map[string]string{"TRIGGER_KEY": "trigger value", "SECOND": "2",
			"CI_PIPELINE_TRIGGERED": "true", "CI_PIPELINE_SOURCE": "trigger", "GITLAB_USER_LOGIN": m.name} {
			if got, ok := job.Variable(key); !ok || got != want {
				t.Errorf("job variable %s = %q (%v), want %q", key, got, ok, want)
			}
		}
		if last := job.Variables[len(job.Variables)-1]; last.Key != "TRIGGER_KEY" || last.Public {
			t.Errorf("trigger variables come last and hidden: %+v", last)
		}

		// A JSON body with a variables object, and the ref in the path
		// (webhooks), which wins over the body's.
		s.Expect(201, "POST", run, "", map[string]any{"token": token, "ref": "master", "variables": map[string]string{"A": "b"}})
		hook := fmt.Sprintf("/projects/%d/ref/master/trigger/pipeline?token=%s", pid, url.QueryEscape(token))
		if p := s.Expect(201, "POST", hook, "", apptest.Form("ref", "nowhere")).Object(t); p["ref"] != "master" {
			t.Fatalf("webhook trigger: %v", p)
		}

		// Refusals.
		s.ExpectBody(400, `{"error":"token is missing"}`, "POST", run, "", apptest.Form("ref", "master"))
		s.ExpectBody(400, `{"error":"variables is invalid"}`, "POST", run, "", apptest.Form("token", token, "ref", "master", "variables", "value"))
		s.ExpectBody(400, `{"message":"variables needs to be a map of key-valued strings"}`, "POST", run, "",
			map[string]any{"token": token, "ref": "master", "variables": map[string]any{"K": []string{"1", "2"}}})
		s.ExpectBody(404, `{"message":"404 Not Found"}`, "POST", run, "", apptest.Form("token", token+"x", "ref", "master"))
		s.Expect(404, "POST", fmt.Sprintf("/projects/%d/trigger/pipeline", other), "", apptest.Form("token", token, "ref", "master"))
		s.Expect(404, "POST", "/projects/999999/trigger/pipeline", "", apptest.Form("token", token, "ref", "master"))
		s.ExpectBody(400, `{"message":{"base":["Reference not found"]}}`, "POST", run, "", apptest.Form("token", token, "ref", "nowhere"))

		// A ref with a slash, encoded in the path.
		s.commit(pid, "feature/x", "branch", map[string]string{"f.txt": "x"})
		slashed := fmt.Sprintf("/projects/%d/ref/feature%%2Fx/trigger/pipeline", pid)
		if p := s.Expect(201, "POST", slashed, "", apptest.Form("token", token)).Object(t); p["ref"] != "feature/x" {
			t.Fatalf("slashed ref: %v", p)
		}

		// A developer owner may not run a protected branch.
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/repository/branches/master/protect", pid), s.RootToken, nil)
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/members/%d", pid, m.id), s.RootToken, apptest.Form("access_level", "30"))
		s.ExpectBody(400, `{"message":{"base":["Insufficient permissions for protected ref 'master'"]}}`, "POST", run, "", apptest.Form("token", token, "ref", "master"))
		s.Expect(201, "POST", run, "", apptest.Form("token", token, "ref", "feature/x"))

		// An invalid configuration makes a failed pipeline, as GitLab's
		// triggers save it.
		s.commit(pid, "feature/x", "break", map[string]string{".gitlab-ci.yml": "build:\n  when: sometimes\n"})
		if p := s.Expect(201, "POST", run, "", apptest.Form("token", token, "ref", "feature/x")).Object(t); p["status"] != "failed" || p["yaml_errors"] == nil {
			t.Fatalf("pipeline of an invalid configuration: %v", p)
		}

		// An owner who is no longer a developer runs nothing.
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/members/%d", pid, m.id), s.RootToken, apptest.Form("access_level", "20"))
		s.ExpectBody(400, `{"message":{"base":["Insufficient permissions to create a new pipeline"]}}`, "POST", run, "", apptest.Form("token", token, "ref", "master"))

		// A legacy trigger (no owner) runs unprotected refs only, without
		// a user.
		legacy := &domain.Trigger{ProjectID: pid, TokenDigest: domain.TokenDigest("legacy-token-0123456789"), TokenHint: "lega"}
		if err := s.Store.Triggers().Create(context.Background(), legacy); err != nil {
			t.Fatal(err)
		}
		if p := s.Expect(201, "POST", run, "", apptest.Form("token", "legacy-token-0123456789", "ref", "feature/x")).Object(t); p["user"] != nil || p["status"] != "failed" {
			t.Fatalf("legacy trigger's pipeline (no user, the failed configuration): %v", p)
		}
		s.ExpectBody(400, `{"message":{"base":["Insufficient permissions to create a new pipeline"]}}`, "POST", run, "",
			apptest.Form("token", "legacy-token-0123456789", "ref", "master"))
		if got := s.Expect(200, "GET", fmt.Sprintf("%s/%d", base, legacy.ID), s.RootToken, nil).Object(t); got["owner"] != nil || got["token"] != "lega" {
			t.Fatalf("legacy trigger: %v", got)
		}

		// Deletion: 204, then the token opens nothing.
		s.Expect(403, "DELETE", one, dev.token, nil)
		s.Expect(204, "DELETE", one, s.RootToken, nil)
		s.Expect(404, "DELETE", one, s.RootToken, nil)
		s.Expect(404, "POST", run, "", apptest.Form("token", token, "ref", "master"))
	})
}

// noSecretIn fails when any column of any row of table contains secret.
func (s *server) noSecretIn(t *testing.T, table, secret string) {
	t.Helper()
	rows, err := s.Store.DB().QueryContext(context.Background(), "SELECT * FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			if strings.Contains(fmt.Sprint(v), secret) {
				t.Fatalf("%s.%s holds the token: %v", table, cols[i], v)
			}
		}
		n++
	}
	if err := rows.Err(); err != nil || n == 0 {
		t.Fatalf("%s: %d rows, %v", table, n, err)
	}
}

// TestLint checks POST /ci/lint: anyone may ask; the parser pipelines use
// gives the verdict.
func TestLint(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	c := srv.Client(t)
	c.ExpectBody(200, `{"status":"valid","errors":[]}`, "POST", "/ci/lint", "", map[string]any{"content": "test:\n  script: make\n"})
	c.ExpectBody(200, `{"status":"valid","errors":[]}`, "POST", "/ci/lint", srv.RootToken, apptest.Form("content", "test:\n  script: make\n"))
	got := c.Expect(200, "POST", "/ci/lint", "", map[string]any{"content": "test:\n  script: make\n  when: sometimes\n"}).Object(t)
	if errs, _ := got["errors"].([]any); got["status"] != "invalid" || len(errs) != 1 ||
		!strings.Contains(errs[0].(string), "when should be on_success, on_failure, always or manual") {
		t.Fatalf("invalid config: %v", got)
	}
	c.ExpectBody(200, `{"status":"invalid","errors":["Please provide content of .gitlab-ci.yml"]}`, "POST", "/ci/lint", "", map[string]any{"content": ""})
	c.ExpectBody(200, `{"status":"invalid","errors":["Invalid configuration format"]}`, "POST", "/ci/lint", "", map[string]any{"content": "just a string"})
	c.ExpectBody(400, `{"error":"content is missing"}`, "POST", "/ci/lint", "", map[string]any{})
}
