package runners_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestRegistration(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid, _ := s.project("reg")
		reg := s.regToken(pid)
		if !strings.HasPrefix(reg, "GR1348941") {
			t.Fatalf("registration token %q", reg)
		}
		s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", "/runners", "", map[string]any{"token": "nope"})
		r := s.expect(400, "POST", "/runners", map[string]any{"description": "x"})
		if string(r.body) != `{"error":"token is missing"}` {
			t.Fatalf("missing token: %s", r.body)
		}
		s.expect(400, "POST", "/runners", map[string]any{"token": reg, "access_level": "sometimes"})
		r = s.expect(400, "POST", "/runners", map[string]any{"token": reg, "run_untagged": false})
		if !strings.Contains(string(r.body), "tags_list") {
			t.Fatalf("untagged without tags: %s", r.body)
		}
		s.expect(400, "POST", "/runners", map[string]any{"token": reg, "maximum_timeout": 60})

		raw := s.expect(201, "POST", "/runners", map[string]any{"token": reg, "tag_list": "docker, linux", "run_untagged": false,
			"locked": true, "maximum_timeout": 3600, "info": map[string]any{"version": "17.11.0", "platform": "linux"}})
		m := raw.json(t)
		apptest.HasKeys(t, m, "id", "token", "token_expires_at")
		if m["token_expires_at"] != nil || !strings.HasPrefix(m["token"].(string), "glrt-") {
			t.Fatalf("registration answer %v", m)
		}
		id, token := idOf(m), m["token"].(string)
		d := s.Expect(200, "GET", fmt.Sprintf("/runners/%d", id), s.RootToken, nil).Object(t)
		if d["is_shared"] != false || d["locked"] != true || d["run_untagged"] != false || fmt.Sprint(d["tag_list"]) != "[docker linux]" ||
			d["maximum_timeout"] != float64(3600) || d["version"] != "17.11.0" || d["status"] != "not_connected" {
			t.Fatalf("registered runner %v", d)
		}
		if len(d["projects"].([]any)) != 1 {
			t.Fatalf("projects %v", d["projects"])
		}
		if strings.Contains(string(s.Send("GET", fmt.Sprintf("/runners/%d", id), s.RootToken, nil).Body), token) {
			t.Fatal("the runner token is shown")
		}

		// Arrays, paused, the header token.
		_, tok2 := s.runner(reg, map[string]any{"tag_list": []string{"a", "b"}, "paused": true})
		s.expect(403, "POST", "/jobs/request", map[string]any{"token": tok2})

		// Verify: body or RUNNER-TOKEN.
		v := s.expect(200, "POST", "/runners/verify", map[string]any{"token": token, "system_id": "s_1"}).json(t)
		if idOf(v) != id || v["token"] != token || v["token_expires_at"] != nil {
			t.Fatalf("verify %v", v)
		}
		s.expect(200, "POST", "/runners/verify", map[string]any{}, "Runner-Token", token)
		s.expect(403, "POST", "/runners/verify", map[string]any{"token": "glrt-nope"})
		s.expect(400, "POST", "/runners/verify", map[string]any{})

		// Unregister.
		s.expect(204, "DELETE", "/runners/managers", map[string]any{"token": token, "system_id": "s_1"})
		s.expect(403, "DELETE", "/runners/managers", map[string]any{"token": "glrt-nope"})
		s.expect(204, "DELETE", "/runners", map[string]any{"token": token})
		s.expect(403, "POST", "/runners/verify", map[string]any{"token": token})
		s.expect(403, "DELETE", "/runners", map[string]any{"token": token})

		// A new registration token replaces the old one.
		reg2 := s.regToken(pid)
		s.expect(403, "POST", "/runners", map[string]any{"token": reg})
		s.runner(reg2, nil)
	})
}

func TestSharedRegistration(t *testing.T) {
	t.Parallel()
	s := newServer(t, apptest.Configure(func(c *config.Config) { c.CI.RegistrationToken = "instance-secret-token" }))
	id, token := s.runner("instance-secret-token", nil)
	d := s.Expect(200, "GET", fmt.Sprintf("/runners/%d", id), s.RootToken, nil).Object(t)
	if d["is_shared"] != true || len(d["projects"].([]any)) != 0 {
		t.Fatalf("shared runner %v", d)
	}
	// A shared runner takes jobs of any project with shared runners on.
	pid, _ := s.project("shared")
	jobs := s.pipeline(pid, jobSpec{name: "build"})
	if got := idOf(s.take(token)); got != jobs["build"].ID {
		t.Fatalf("took %d", got)
	}
	// Every signed-in user reads a shared runner.
	_, alice := s.User("alice")
	s.Expect(200, "GET", fmt.Sprintf("/runners/%d", id), alice, nil)
	s.Expect(401, "GET", fmt.Sprintf("/runners/%d", id), "", nil)
}

func TestJobRequest(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid, path := s.project("req")
		rid, token := s.runner(s.regToken(pid), nil)
		_, tagged := s.runner(s.regToken(pid), map[string]any{"tag_list": "docker", "run_untagged": false})

		r := s.expect(204, "POST", "/jobs/request", map[string]any{"token": token})
		v1 := r.header.Get("X-GitLab-Last-Update")
		if v1 == "" || len(r.body) != 0 {
			t.Fatalf("204: header %q body %q", v1, r.body)
		}
		s.expect(403, "POST", "/jobs/request", map[string]any{"token": "glrt-unknown"})
		s.expect(400, "POST", "/jobs/request", map[string]any{})

		ctx := context.Background()
		if err := s.variables.Create(ctx, &domain.Variable{ProjectID: pid, Key: "SECRET", Value: "s3cr3t-value", Masked: true}); err != nil {
			t.Fatal(err)
		}
		if err := s.variables.Create(ctx, &domain.Variable{ProjectID: pid, Key: "PROD", Value: "p", Protected: true}); err != nil {
			t.Fatal(err)
		}
		jobs := s.pipeline(pid,
			jobSpec{name: "build", stage: 0, spec: domain.JobSpec{
				BeforeScript: []string{"echo before"}, Script: []string{"make"}, AfterScript: []string{"echo after"},
				Variables: []domain.Variable{{Key: "YAML_VAR", Value: "y", Public: true}},
				Artifacts: &domain.ArtifactsSpec{Paths: []string{"out/"}, ExpireIn: "1 week"},
				Image:     &domain.Image{Name: "golang:1.22"}, Timeout: 7200,
			}},
			jobSpec{name: "docker", stage: 0, tags: []string{"docker"}},
		)
		// The untagged runner cannot take the tagged job.
		p := s.take(token)
		if idOf(p) != jobs["build"].ID {
			t.Fatalf("untagged runner took %v", p["id"])
		}
		jobToken := p["token"].(string)
		if !strings.HasPrefix(jobToken, "glcbt-") {
			t.Fatalf("job token %q", jobToken)
		}
		apptest.HasKeys(t, p, "id", "token", "allow_git_fetch", "job_info", "git_info", "runner_info", "variables",
			"steps", "image", "services", "artifacts", "cache", "credentials", "dependencies", "features")
		gi := p["git_info"].(map[string]any)
		wantURL := strings.Replace(s.URL, "http://", "http://gitlab-ci-token:"+jobToken+"@", 1) + "/" + path + ".git"
		if gi["repo_url"] != wantURL || gi["ref"] != "master" || gi["sha"] != strings.Repeat("a", 40) ||
			gi["ref_type"] != "branch" || fmt.Sprint(gi["refspecs"]) != "[+refs/heads/master:refs/remotes/origin/master]" {
			t.Fatalf("git_info %v (want %s)", gi, wantURL)
		}
		ji := p["job_info"].(map[string]any)
		if ji["name"] != "build" || ji["stage"] != "build" || ji["project_id"] != float64(pid) {
			t.Fatalf("job_info %v", ji)
		}
		if p["runner_info"].(map[string]any)["timeout"] != float64(7200) {
			t.Fatalf("runner_info %v", p["runner_info"])
		}
		steps := p["steps"].([]any)
		if len(steps) != 2 || fmt.Sprint(steps[0].(map[string]any)["script"]) != "[echo before make]" ||
			steps[1].(map[string]any)["name"] != "after_script" || steps[1].(map[string]any)["when"] != "always" {
			t.Fatalf("steps %v", steps)
		}
		if p["image"].(map[string]any)["name"] != "golang:1.22" {
			t.Fatalf("image %v", p["image"])
		}
		arts := p["artifacts"].([]any)
		if len(arts) != 1 || arts[0].(map[string]any)["expire_in"] != "1 week" || arts[0].(map[string]any)["artifact_type"] != "archive" {
			t.Fatalf("artifacts %v", arts)
		}
		vars := map[string]map[string]any{}
		for _, v := range p["variables"].([]any) {
			m := v.(map[string]any)
			vars[m["key"].(string)] = m
		}
		for _, k := range []string{"CI", "GITLAB_CI", "CI_SERVER_URL", "CI_SERVER_HOST", "CI_SERVER_NAME", "CI_JOB_ID",
			"CI_JOB_TOKEN", "CI_JOB_NAME", "CI_JOB_STAGE", "CI_COMMIT_SHA", "CI_COMMIT_SHORT_SHA", "CI_COMMIT_REF_NAME",
			"CI_COMMIT_BEFORE_SHA", "CI_PROJECT_ID", "CI_PROJECT_PATH", "CI_PROJECT_NAME", "CI_PROJECT_NAMESPACE",
			"CI_PROJECT_URL", "CI_REPOSITORY_URL", "CI_PIPELINE_ID", "CI_PIPELINE_SOURCE", "GITLAB_USER_ID",
			"GITLAB_USER_LOGIN", "YAML_VAR", "SECRET"} {
			if _, ok := vars[k]; !ok {
				t.Errorf("variable %s missing", k)
			}
		}
		if vars["CI_JOB_TOKEN"]["value"] != jobToken || vars["CI_JOB_TOKEN"]["masked"] != true || vars["CI_JOB_TOKEN"]["public"] != false {
			t.Errorf("CI_JOB_TOKEN %v", vars["CI_JOB_TOKEN"])
		}
		if vars["SECRET"]["masked"] != true || vars["SECRET"]["public"] != false || vars["CI_PROJECT_PATH"]["value"] != path {
			t.Errorf("variables %v %v", vars["SECRET"], vars["CI_PROJECT_PATH"])
		}
		if _, ok := vars["PROD"]; ok {
			t.Error("a protected variable reached an unprotected job")
		}

		// The job now runs on this runner, with its token's digest.
		j := s.job(jobs["build"].ID)
		if j.Status != domain.CIRunning || j.RunnerID == nil || *j.RunnerID != rid || j.TokenDigest != domain.TokenDigest(jobToken) {
			t.Fatalf("claimed job %+v", j)
		}
		// Nothing left for the untagged runner; the tagged one takes its job.
		s.expect(204, "POST", "/jobs/request", map[string]any{"token": token})
		if got := idOf(s.take(tagged)); got != jobs["docker"].ID {
			t.Fatalf("tagged runner took %d", got)
		}
		s.expect(204, "POST", "/jobs/request", map[string]any{}, "Runner-Token", tagged)

		// The runner's contact was recorded.
		d := s.Expect(200, "GET", fmt.Sprintf("/runners/%d", rid), s.RootToken, nil).Object(t)
		if d["contacted_at"] == nil || d["status"] != "online" || d["online"] != true {
			t.Fatalf("contacted runner %v", d)
		}
	})
}
