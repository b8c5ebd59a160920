package ci_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestPipelinesFromPushes(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("pushes", "private")

		// no configuration file: no pipeline
		s.commit(pid, "master", "readme", map[string]string{"README.md": "hi"})
		if l := s.pipelines(pid, ""); len(l) != 0 {
			t.Fatalf("pipeline without a configuration: %v", l)
		}

		// [skip ci] in any case: a skipped pipeline without jobs
		sha := s.commit(pid, "master", "add ci [Skip CI]", map[string]string{".gitlab-ci.yml": "test:\n  script: make\n"})
		l := s.pipelines(pid, "")
		if len(l) != 1 || l[0]["status"] != "skipped" || l[0]["sha"] != sha {
			t.Fatalf("skipped pipeline: %v", l)
		}
		if jobs := s.jobs(apptest.ID(l[0])); len(jobs) != 0 {
			t.Fatalf("a skipped pipeline has jobs: %s", states(jobs))
		}

		// invalid configuration: a failed pipeline carrying the error
		s.commit(pid, "master", "break ci", map[string]string{".gitlab-ci.yml": "test:\n  script: make\n  when: sometimes\n"})
		l = s.pipelines(pid, "")
		if len(l) != 2 || l[0]["status"] != "failed" {
			t.Fatalf("after invalid config: %v", l)
		}
		p := s.pipeline(pid, apptest.ID(l[0]))
		if p.YAMLErrors == nil || !strings.Contains(*p.YAMLErrors, "when should be on_success, on_failure, always or manual") || p.FinishedAt == nil {
			t.Fatalf("yaml errors: %+v", p)
		}
		if l := s.pipelines(pid, "?yaml_errors=true"); len(l) != 1 || apptest.ID(l[0]) != p.ID {
			t.Fatalf("yaml_errors filter: %v", l)
		}
		if l := s.pipelines(pid, "?yaml_errors=false"); len(l) != 1 || apptest.ID(l[0]) == p.ID {
			t.Fatalf("yaml_errors=false filter: %v", l)
		}
		bad := "stages: [a]\nx: &x\n  script: [*x, *x]\n"
		s.commit(pid, "master", "yaml syntax", map[string]string{".gitlab-ci.yml": bad})
		if l := s.pipelines(pid, ""); len(l) != 3 || l[0]["status"] != "failed" {
			t.Fatalf("after a recursive alias: %v", l)
		}

		// only/except on branches, tags, regexps with flags, sources
		cfg := `
build:
  script: make
feature:
  script: make
  only: [/^feat/i]
not-master:
  script: make
  except: [master]
tags-only:
  script: make
  only: [tags]
api-only:
  script: make
  only: [api]
push-only:
  script: make
  only: [pushes]
`
		sha = s.commit(pid, "master", "only/except", map[string]string{".gitlab-ci.yml": cfg})
		l = s.pipelines(pid, "")
		if got := states(s.jobs(apptest.ID(l[0]))); got != "build:pending push-only:pending" {
			t.Fatalf("master jobs: %s", got)
		}
		s.commit(pid, "FEAT-x", "feature", map[string]string{"f.txt": "x"})
		l = s.pipelines(pid, "?ref=FEAT-x")
		if len(l) != 1 || l[0]["ref"] != "FEAT-x" {
			t.Fatalf("feature pipelines: %v", l)
		}
		if got := states(s.jobs(apptest.ID(l[0]))); got != "build:pending feature:pending not-master:pending push-only:pending" {
			t.Fatalf("feature jobs: %s", got)
		}
		s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/tags", pid), s.RootToken, apptest.Form("tag_name", "v1", "ref", sha, "message", "annotated"))
		l = s.pipelines(pid, "?scope=tags")
		if len(l) != 1 || l[0]["ref"] != "v1" || l[0]["sha"] != sha {
			t.Fatalf("tag pipelines: %v", l)
		}
		if p := s.pipeline(pid, apptest.ID(l[0])); !p.Tag {
			t.Fatalf("tag pipeline: %+v", p)
		}
		if got := states(s.jobs(apptest.ID(l[0]))); got != "build:pending not-master:pending tags-only:pending push-only:pending" {
			t.Fatalf("tag jobs: %s", got)
		}
		// a deleted branch makes nothing
		n := len(s.pipelines(pid, "?per_page=100"))
		s.Expect(204, "DELETE", fmt.Sprintf("/projects/%d/repository/branches/FEAT-x", pid), s.RootToken, nil)
		if m := len(s.pipelines(pid, "?per_page=100")); m != n {
			t.Fatalf("deletion made a pipeline: %d -> %d", n, m)
		}
		// branches scope: the latest pipeline of each branch
		if l := s.pipelines(pid, "?scope=branches"); len(l) != 2 {
			t.Fatalf("branches scope: %v", l)
		}

		// a configuration whose jobs all filter out makes no pipeline
		s.commit(pid, "master", "only tags", map[string]string{".gitlab-ci.yml": "t:\n  script: x\n  only: [tags]\n"})
		if m := len(s.pipelines(pid, "?per_page=100")); m != n {
			t.Fatalf("filtered-out config made a pipeline: %d -> %d", n, m)
		}
	})
}

func TestPipelineConfigPathIncludesAndJobsDisabled(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("paths", "private", "ci_config_path", "ci/pipeline.yml")
		s.commit(pid, "master", "ci", map[string]string{
			"ci/pipeline.yml": "include: ci/common.yml\nown:\n  stage: test\n  script: x\n",
			"ci/common.yml":   "common:\n  stage: build\n  script: x\n",
		})
		l := s.pipelines(pid, "")
		if len(l) != 1 {
			t.Fatalf("pipelines %v", l)
		}
		if got := states(s.jobs(apptest.ID(l[0]))); got != "common:pending own:created" {
			t.Fatalf("jobs %s", got)
		}

		off := s.project("off", "private", "jobs_enabled", "false")
		s.commit(off, "master", "ci", map[string]string{".gitlab-ci.yml": "t:\n  script: x\n"})
		if n := s.Store.Pipelines(); n == nil {
			t.Fatal("no store")
		}
		s.Expect(404, "GET", fmt.Sprintf("/projects/%d/pipelines", off), s.RootToken, nil)
		list, total, err := s.Store.Pipelines().List(t.Context(), domain.PipelineFilter{ProjectID: off, Page: domain.Page{Page: 1, PerPage: 20}})
		if err != nil || total != 0 || len(list) != 0 {
			t.Fatalf("pipelines of a project without jobs: %v %d %v", list, total, err)
		}
	})
}

func TestCreatePipelineAPI(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("api", "private")
		sha := s.commit(pid, "master", "ci [ci skip]", map[string]string{".gitlab-ci.yml": `
a:
  script: x
b:
  script: x
  only: [pushes]
c:
  script: x
  only: [api]
`})
		dev, rep, outsider := s.person("dev"), s.person("rep"), s.person("out")
		s.member(pid, dev, domain.Developer)
		s.member(pid, rep, domain.Reporter)
		path := fmt.Sprintf("/projects/%d/pipeline", pid)
		s.Expect(401, "POST", path+"?ref=master", "", nil)
		s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", path+"?ref=master", outsider.token, nil)
		s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", path+"?ref=master", rep.token, nil)
		s.ExpectBody(400, `{"error":"ref is missing"}`, "POST", path, dev.token, nil)
		s.ExpectBody(400, `{"message":{"base":["Reference not found"]}}`, "POST", path+"?ref=nope", dev.token, nil)

		// [ci skip] is ignored from the API; source api runs only: [api]
		var p pipelineJSON
		s.Expect(201, "POST", path, dev.token, apptest.Form("ref", "master")).Decode(t, &p)
		if p.Status != "pending" || p.SHA != sha || p.Ref != "master" || p.User == nil || p.User.Username != "dev" || p.BeforeSHA != domain.ZeroID {
			t.Fatalf("created %+v", p)
		}
		if got := states(s.jobs(p.ID)); got != "a:pending c:pending" {
			t.Fatalf("api jobs %s", got)
		}

		// errors are 400s on base and save nothing
		before := len(s.pipelines(pid, "?per_page=100"))
		s.commit(pid, "master", "only tags", map[string]string{".gitlab-ci.yml": "t:\n  script: x\n  only: [tags]\n"})
		s.ExpectBody(400, `{"message":{"base":["No stages / jobs for this pipeline."]}}`, "POST", path+"?ref=master", dev.token, nil)
		s.commit(pid, "master", "broken", map[string]string{".gitlab-ci.yml": "t: [\n"})
		r := s.Expect(400, "POST", path+"?ref=master", dev.token, nil)
		if !strings.Contains(string(r.Body), `"base":[`) {
			t.Fatalf("yaml error body %s", r.Body)
		}
		after := len(s.pipelines(pid, "?per_page=100"))
		if after != before+1 { // the broken push's failed pipeline only
			t.Fatalf("pipelines %d -> %d", before, after)
		}
		s.Expect(204, "DELETE", fmt.Sprintf("/projects/%d/repository/files/%s?branch=master&commit_message=rm", pid, url.PathEscape(".gitlab-ci.yml")), s.RootToken, nil)
		s.ExpectBody(400, `{"message":{"base":["Missing .gitlab-ci.yml file"]}}`, "POST", path+"?ref=master", dev.token, nil)

		// a protected branch needs the right to update it
		s.commit(pid, "master", "again", map[string]string{".gitlab-ci.yml": "t:\n  script: x\n"})
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/repository/branches/master/protect", pid), s.RootToken, nil)
		s.ExpectBody(400, `{"message":{"base":["Insufficient permissions for protected ref 'master'"]}}`, "POST", path+"?ref=master", dev.token, nil)
		s.Expect(201, "POST", path+"?ref=master", s.RootToken, nil)
	})
}
