package runners_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// upload sends size bytes as a multipart "file" part with chunked
// encoding (no Content-Length), as gitlab-runner does.
func (s *server) upload(jobID int64, token, query string, size int) reply {
	s.T.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		_ = mw.WriteField("note", "ignored")
		fw, err := mw.CreateFormFile("file", "artifacts.zip")
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		chunk := bytes.Repeat([]byte("z"), 64<<10)
		for left := size; left > 0; left -= len(chunk) {
			n := min(left, len(chunk))
			if _, err := fw.Write(chunk[:n]); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(mw.Close())
	}()
	req, err := http.NewRequest("POST", fmt.Sprintf("%s/jobs/%d/artifacts?%s", s.API(), jobID, query), pr)
	if err != nil {
		s.T.Fatal(err)
	}
	req.ContentLength = -1
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Job-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, pr)
	data, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: data}
}

func TestArtifacts(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		ctx := context.Background()
		pid, _ := s.project("arts")
		_, rtok := s.runner(s.regToken(pid), nil)
		jobs := s.pipeline(pid, jobSpec{name: "build", stage: 0}, jobSpec{name: "test", stage: 1}, jobSpec{name: "other", stage: 1,
			spec: domain.JobSpec{Dependencies: []string{}}})
		build := s.take(rtok)
		btok := build["token"].(string)
		bid := idOf(build)

		// Streamed, chunked upload.
		r := s.upload(bid, btok, "artifact_format=zip&artifact_type=archive&expire_in=1+week", 3<<20+5)
		if r.status != 201 {
			t.Fatalf("upload: %d %s", r.status, r.body)
		}
		arts, _ := s.artifacts.OfJobs(ctx, []int64{bid})
		if len(arts[bid]) != 1 || arts[bid][0].Size != 3<<20+5 || arts[bid][0].ExpireAt == nil || arts[bid][0].Filename != "artifacts.zip" {
			t.Fatalf("artifact records %+v", arts)
		}
		if j := s.job(bid); j.ArtifactsExpireAt == nil {
			t.Fatal("job has no artifacts expiry")
		}
		// A second archive replaces the first.
		if r := s.upload(bid, btok, "expire_in=never", 10); r.status != 201 {
			t.Fatalf("second upload: %d %s", r.status, r.body)
		}
		arts, _ = s.artifacts.OfJobs(ctx, []int64{bid})
		if len(arts[bid]) != 1 || arts[bid][0].Size != 10 || arts[bid][0].ExpireAt != nil {
			t.Fatalf("replaced artifact %+v", arts[bid])
		}
		// Reports of other types sit beside it.
		if r := s.upload(bid, btok, "artifact_type=junit&artifact_format=gzip", 5); r.status != 201 {
			t.Fatalf("junit upload: %d %s", r.status, r.body)
		}
		if r := s.upload(bid, btok, "artifact_format=rar", 5); r.status != 400 {
			t.Fatalf("bad format: %d %s", r.status, r.body)
		}
		if r := s.upload(bid, btok, "expire_in=whenever", 5); r.status != 400 {
			t.Fatalf("bad expire_in: %d %s", r.status, r.body)
		}
		if r := s.upload(bid, "glcbt-wrong", "", 5); r.status != 403 {
			t.Fatalf("wrong token: %d", r.status)
		}
		r = s.expect(400, "POST", fmt.Sprintf("/jobs/%d/artifacts", bid), []byte("--x--\r\n"), "Job-Token", btok, "Content-Type", "multipart/form-data; boundary=x")
		if string(r.body) != `{"message":"400 (Bad request) \"Missing artifacts file!\" not given"}` {
			t.Fatalf("missing file: %s", r.body)
		}
		r = s.expect(403, "POST", fmt.Sprintf("/jobs/%d/artifacts/authorize", bid), map[string]any{"token": btok})
		if string(r.body) != `{"message":"403 Forbidden - Request should be executed via GitLab Workhorse"}` {
			t.Fatalf("authorize: %s", r.body)
		}
		s.expect(200, "PUT", fmt.Sprintf("/jobs/%d", bid), map[string]any{"token": btok, "state": "success"})
		// Not running any more: 403 with the status.
		if r := s.upload(bid, btok, "", 5); r.status != 403 || r.header.Get("Job-Status") != "success" {
			t.Fatalf("upload after the end: %d %v", r.status, r.header)
		}

		// The next stage's job depends on build and downloads its archive
		// with its own token.
		test := s.take(rtok)
		ttok := test["token"].(string)
		if idOf(test) != jobs["test"].ID {
			t.Fatalf("took %v", test["id"])
		}
		deps := test["dependencies"].([]any)
		if len(deps) != 1 {
			t.Fatalf("dependencies %v", deps)
		}
		dep := deps[0].(map[string]any)
		if idOf(dep) != bid || dep["name"] != "build" || dep["token"] != ttok ||
			dep["artifacts_file"].(map[string]any)["size"] != float64(10) || dep["artifacts_file"].(map[string]any)["filename"] != "artifacts.zip" {
			t.Fatalf("dependency %v", dep)
		}
		r = s.expect(200, "GET", fmt.Sprintf("/jobs/%d/artifacts", bid), nil, "Job-Token", ttok)
		if string(r.body) != "zzzzzzzzzz" {
			t.Fatalf("download %q", r.body)
		}
		// The build's own token downloads too; others do not.
		s.expect(200, "GET", fmt.Sprintf("/jobs/%d/artifacts", bid), nil, "Job-Token", btok)
		other := s.take(rtok) // depends on nothing
		if len(other["dependencies"].([]any)) != 0 {
			t.Fatalf("other's dependencies %v", other["dependencies"])
		}
		s.expect(403, "GET", fmt.Sprintf("/jobs/%d/artifacts", bid), nil, "Job-Token", other["token"].(string))
		s.expect(403, "GET", fmt.Sprintf("/jobs/%d/artifacts", bid), nil)
		s.expect(404, "GET", fmt.Sprintf("/jobs/%d/artifacts", idOf(test)), nil, "Job-Token", ttok)
		s.expect(404, "GET", "/jobs/999999/artifacts", nil, "Job-Token", ttok)
	})
}

func TestArtifactOverLimit(t *testing.T) {
	t.Parallel()
	s := newServer(t, apptest.Configure(func(c *config.Config) { c.CI.MaxArtifactsBytes = 1 << 20 }))
	_, job, tok := s.running("big", domain.JobSpec{})
	// Over the blob limit, within the route's multipart slack.
	r := s.upload(job.ID, tok, "", 1<<20+1)
	if r.status != 413 {
		t.Fatalf("over the limit: %d %s", r.status, r.body)
	}
	// Far over, past the route's cap too.
	if r := s.upload(job.ID, tok, "", 4<<20); r.status != 413 {
		t.Fatalf("far over the limit: %d %s", r.status, r.body)
	}
	ctx := context.Background()
	arts, _ := s.artifacts.OfJobs(ctx, []int64{job.ID})
	if len(arts[job.ID]) != 0 {
		t.Fatalf("records left: %+v", arts)
	}
	if _, _, err := s.blob.Open(ctx, domain.ArtifactKey(job.ProjectID, job.ID, "archive")); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("file left behind: %v", err)
	}
	// Exactly the limit fits.
	if r := s.upload(job.ID, tok, "", 1<<20); r.status != 201 {
		t.Fatalf("at the limit: %d %s", r.status, r.body)
	}
}
