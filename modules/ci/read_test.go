package ci_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

const oneJob = "t:\n  script: x\n"

func TestPipelineListFiltersAndPermissions(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("lists", "private")
		dev, guest, outsider := s.person("dev"), s.person("guest"), s.person("out")
		s.member(pid, dev, domain.Developer)
		s.member(pid, guest, domain.Guest)
		a := s.commit(pid, "master", "one", map[string]string{".gitlab-ci.yml": oneJob})
		s.commit(pid, "other", "two", map[string]string{"x": "1"})
		c := s.commit(pid, "master", "three", map[string]string{"y": "1"})
		var ids []int64
		for _, p := range s.pipelines(pid, "") {
			ids = append(ids, apptest.ID(p))
		}
		if len(ids) != 3 || ids[0] < ids[1] || ids[1] < ids[2] {
			t.Fatalf("newest first: %v", ids)
		}
		// finish the oldest one
		s.drive(job(t, s.jobs(ids[2]), "t").ID, domain.CISuccess)

		base := fmt.Sprintf("/projects/%d/pipelines", pid)
		check := func(query string, want ...int64) {
			t.Helper()
			l := s.Expect(200, "GET", base+query, dev.token, nil).List(t)
			var got []int64
			for _, p := range l {
				got = append(got, apptest.ID(p))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %v, want %v", query, got, want)
			}
		}
		check("?status=success", ids[2])
		check("?scope=pending", ids[0], ids[1])
		check("?scope=finished", ids[2])
		check("?scope=running")
		check("?ref=other", ids[1])
		check("?sha="+a, ids[2])
		check("?sha="+c, ids[0])
		check("?order_by=id&sort=asc", ids[2], ids[1], ids[0])
		check("?username=root", ids[0], ids[1], ids[2])
		check("?username=dev")
		check("?name=Administrator", ids[0], ids[1], ids[2])
		check("?name=DEV")
		check("?scope=branches", ids[0], ids[1])
		check("?scope=tags")

		r := s.Expect(200, "GET", base+"?per_page=2&page=2", dev.token, nil)
		if r.Header.Get("X-Total") != "3" || r.Header.Get("X-Page") != "2" || r.Header.Get("X-Total-Pages") != "2" || len(r.List(t)) != 1 {
			t.Fatalf("pagination %v %s", r.Header, r.Body)
		}
		s.ExpectBody(400, `{"error":"scope does not have a valid value"}`, "GET", base+"?scope=mine", dev.token, nil)
		s.ExpectBody(400, `{"error":"status does not have a valid value, order_by does not have a valid value"}`, "GET", base+"?status=done&order_by=name", dev.token, nil)
		s.ExpectBody(400, `{"error":"sort does not have a valid value"}`, "GET", base+"?sort=up", dev.token, nil)
		s.ExpectBody(400, `{"error":"yaml_errors is invalid"}`, "GET", base+"?yaml_errors=maybe", dev.token, nil)

		// who reads: members from reporter up on a private project, guests
		// while its jobs are public; outsiders and anonymous callers see no
		// project
		one := fmt.Sprintf("%s/%d", base, ids[0])
		s.Expect(200, "GET", one, guest.token, nil)
		s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pid), s.RootToken, apptest.Form("public_jobs", "false"))
		for _, tok := range []string{"", guest.token, outsider.token} {
			s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", base, tok, nil)
			s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", one, tok, nil)
		}
		s.ExpectBody(404, `{"message":"404 Not found"}`, "GET", base+"/999999", dev.token, nil)
		s.ExpectBody(400, `{"error":"pipeline_id is invalid"}`, "GET", base+"/abc", dev.token, nil)
		other := s.project("other", "private")
		s.ExpectBody(404, `{"message":"404 Not found"}`, "GET", fmt.Sprintf("/projects/%d/pipelines/%d", other, ids[0]), s.RootToken, nil)

		p := s.Expect(200, "GET", one, dev.token, nil).Object(t)
		apptest.HasKeys(t, p, "id", "sha", "ref", "status", "before_sha", "tag", "yaml_errors", "user", "created_at",
			"updated_at", "started_at", "finished_at", "committed_at", "duration", "coverage")
		if len(p) != 15 {
			t.Errorf("pipeline keys: %v", p)
		}

		// a public project shows its pipelines to anyone
		pub := s.project("pub", "public")
		s.commit(pub, "master", "ci", map[string]string{".gitlab-ci.yml": oneJob})
		if l := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/pipelines", pub), "", nil).List(t); len(l) != 1 {
			t.Fatalf("public list %v", l)
		}
		s.Expect(401, "POST", fmt.Sprintf("/projects/%d/pipelines/%d/cancel", pub, ids[0]), "", nil)
	})
}

func TestDeletePipeline(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("del", "private")
		s.commit(pid, "master", "ci", map[string]string{".gitlab-ci.yml": oneJob})
		id := apptest.ID(s.pipelines(pid, "")[0])
		j := job(t, s.jobs(id), "t")
		s.drive(j.ID, domain.CISuccess)

		// an archived trace and an artifact file that must go with it
		ctx := context.Background()
		blob := s.Store.Artifacts()
		key := domain.ArtifactKey(pid, j.ID, "archive")
		if _, err := blob.Create(ctx, &domain.Artifact{JobID: j.ID, ProjectID: pid, Type: "archive", Format: "zip",
			Filename: "a.zip", Size: 3, Key: key}); err != nil {
			t.Fatal(err)
		}
		files := s.blobs(t)
		for _, k := range []string{key, domain.TraceKey(pid, j.ID)} {
			if _, err := files.Write(ctx, k, strings.NewReader("abc"), 0); err != nil {
				t.Fatal(err)
			}
		}

		master := s.person("master")
		s.member(pid, master, domain.Master)
		path := fmt.Sprintf("/projects/%d/pipelines/%d", pid, id)
		s.Expect(401, "DELETE", path, "", nil)
		s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", path, master.token, nil)
		r := s.Expect(204, "DELETE", path, s.RootToken, nil)
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body: %s", r.Body)
		}
		s.ExpectBody(404, `{"message":"404 Not found"}`, "GET", path, s.RootToken, nil)
		s.ExpectBody(404, `{"message":"404 Not found"}`, "DELETE", path, s.RootToken, nil)
		for _, k := range []string{key, domain.TraceKey(pid, j.ID)} {
			if _, _, err := files.Open(ctx, k); err == nil {
				t.Errorf("%s kept after delete", k)
			}
		}
	})
}

func TestCommitStatusField(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("status", "private")
		plain := s.commit(pid, "master", "readme", map[string]string{"README": "x"})
		body := map[string]any{"branch": "master", "commit_message": "ci", "actions": []map[string]string{
			{"action": "create", "file_path": ".gitlab-ci.yml", "content": oneJob}}}
		created := s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", pid), s.RootToken, body).Object(t)
		sha := created["id"].(string)
		if created["status"] != "pending" {
			t.Fatalf("created commit status %v", created["status"])
		}
		id := apptest.ID(s.pipelines(pid, "")[0])
		s.drive(job(t, s.jobs(id), "t").ID, domain.CISuccess)

		one := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/commits/%s", pid, sha), s.RootToken, nil).Object(t)
		lp, _ := one["last_pipeline"].(map[string]any)
		if one["status"] != "success" || lp == nil || apptest.ID(lp) != id || lp["status"] != "success" || lp["ref"] != "master" || lp["sha"] != sha {
			t.Fatalf("single commit %v", one)
		}
		none := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/commits/%s", pid, plain), s.RootToken, nil).Object(t)
		if v, ok := none["status"]; !ok || v != nil {
			t.Fatalf("commit without pipeline: status %v", v)
		}
		if v, ok := none["last_pipeline"]; !ok || v != nil {
			t.Fatalf("commit without pipeline: last_pipeline %v", v)
		}

		q := s.Server.Queries()
		list := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/commits", pid), s.RootToken, nil).List(t)
		perPage := s.Server.Queries() - q
		if len(list) != 2 || list[0]["status"] != "success" || list[1]["status"] != nil {
			t.Fatalf("commit list %v", list)
		}
		for i := range 5 {
			s.commit(pid, "master", fmt.Sprintf("more %d", i), map[string]string{"README": fmt.Sprint(i)})
		}
		q = s.Server.Queries()
		list = s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/commits", pid), s.RootToken, nil).List(t)
		if n := s.Server.Queries() - q; len(list) != 7 || n != perPage {
			t.Fatalf("N+1: %d queries for 7 commits, %d for 2", n, perPage)
		}
	})
}
