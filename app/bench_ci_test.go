package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// The CI hot paths over HTTP, on both drivers, with 10,000 jobs in the
// database:
//
//	CI=true go test -run '^$' -bench 'JobRequest|TraceAppend|JobListPage' -benchtime 2000x ./app/
//
// The store-level benchmarks of the same paths are in
// adapters/storage/bunstore (jobqueue_bench_test.go).

const benchCIJobs = 10_000

// seedCIJobs gives project jobs of status st, in pipelines of 100 as real
// ones, straight through the store (the API would take minutes).
func seedCIJobs(b *testing.B, srv *apptest.Server, project int64, n int, st domain.CIStatus) {
	ctx := b.Context()
	sha := strings.Repeat("1", 40)
	for n > 0 {
		batch := make([]domain.Job, min(n, 100))
		for i := range batch {
			batch[i] = domain.Job{Kind: domain.JobBuild, Name: fmt.Sprint("job", i), Stage: "test", Status: st,
				Ref: "main", SHA: sha, When: domain.WhenOnSuccess, Spec: domain.JobSpec{Script: []string{"true"}}}
		}
		pl := &domain.Pipeline{ProjectID: project, Ref: "main", SHA: sha, BeforeSHA: domain.ZeroID, Status: st, Source: domain.SourcePush}
		if err := srv.Store.Pipelines().Create(ctx, pl, batch); err != nil {
			b.Fatal(err)
		}
		n -= len(batch)
	}
}

func benchProject(b *testing.B, srv *apptest.Server, name string) int64 {
	var p struct{ ID int64 }
	srv.JSON(b, "POST", "/projects", srv.RootToken, url.Values{"name": {name}, "shared_runners_enabled": {"false"}}, 201, &p)
	return p.ID
}

// benchRunner registers a specific runner of project.
func benchRunner(b *testing.B, srv *apptest.Server, project int64) string {
	var reg struct{ Token string }
	srv.JSON(b, "POST", fmt.Sprintf("/projects/%d/runners/reset_registration_token", project), srv.RootToken, nil, 201, &reg)
	var r struct{ Token string }
	data := runnerCall(b, srv.URL, "POST", "/runners", "", map[string]any{"token": reg.Token}, http.StatusCreated)
	if err := json.Unmarshal(data, &r); err != nil {
		b.Fatal(err)
	}
	return r.Token
}

// BenchmarkJobRequest: a runner takes the pending jobs of its project one
// per request (201 with the whole payload), while 10,000 pending jobs
// wait in ten projects it does not serve. The cost must not depend on them.
func BenchmarkJobRequest(b *testing.B) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			srv := apptest.New(b, apptest.Driver(driver), quietLogs())
			for i := range 10 {
				seedCIJobs(b, srv, benchProject(b, srv, fmt.Sprint("other", i)), benchCIJobs/10, domain.CIPending)
			}
			mine := benchProject(b, srv, "mine")
			seedCIJobs(b, srv, mine, b.N, domain.CIPending)
			token := benchRunner(b, srv, mine)
			body, _ := json.Marshal(map[string]any{"token": token, "info": map[string]any{"name": "gitlab-runner"}})
			client := &http.Client{}
			b.ResetTimer()
			for range b.N {
				resp, err := client.Post(srv.API()+"/jobs/request", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					b.Fatalf("jobs/request: %d", resp.StatusCode)
				}
			}
		})
	}
}

// BenchmarkTraceAppend: a runner appends 1 KiB to its running job's trace
// per request.
func BenchmarkTraceAppend(b *testing.B) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			srv := apptest.New(b, apptest.Driver(driver), quietLogs())
			mine := benchProject(b, srv, "mine")
			seedCIJobs(b, srv, mine, 1, domain.CIPending)
			token := benchRunner(b, srv, mine)
			var job struct {
				ID    int64
				Token string
			}
			if err := json.Unmarshal(runnerCall(b, srv.URL, "POST", "/jobs/request", "", map[string]any{"token": token}, http.StatusCreated), &job); err != nil {
				b.Fatal(err)
			}
			line := []byte(fmt.Sprintf("%01023d\n", 0))
			client := &http.Client{}
			target := fmt.Sprintf("%s/jobs/%d/trace", srv.API(), job.ID)
			var size int
			b.ResetTimer()
			for range b.N {
				req, _ := http.NewRequest("PATCH", target, bytes.NewReader(line))
				req.Header.Set("JOB-TOKEN", job.Token)
				req.Header.Set("Content-Range", fmt.Sprintf("%d-%d", size, size+len(line)-1))
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					b.Fatalf("trace append at %d: %d", size, resp.StatusCode)
				}
				size += len(line)
			}
		})
	}
}

// BenchmarkJobListPage: the first page (20) of a project's 10,000 jobs,
// newest first, with their pipelines, users and commits embedded.
func BenchmarkJobListPage(b *testing.B) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			srv := apptest.New(b, apptest.Driver(driver), quietLogs())
			mine := benchProject(b, srv, "mine")
			seedCIJobs(b, srv, mine, benchCIJobs, domain.CISuccess)
			benchGET(b, srv, fmt.Sprintf("/projects/%d/jobs", mine))
		})
	}
}
