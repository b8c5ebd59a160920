package app_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/config"
)

// handoutYML is one stage of 50 jobs.
func handoutYML() string {
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, "job%02d:\n  script: [\"true\"]\n", i)
	}
	return b.String()
}

// seedPendingJobs makes 4 pipelines of 50 pending jobs each on one
// project (the configuration is committed with [ci skip], so the push
// makes no pipeline and exactly 200 jobs wait) and returns the project
// and its registration token.
func seedPendingJobs(t *testing.T, srv *apptest.Server) (*ciProject, string) {
	t.Helper()
	p := newCIProject(t, srv, "handout")
	p.commit("main", "", "Add CI [ci skip]", map[string]string{".gitlab-ci.yml": handoutYML()})
	for range 4 {
		var pl struct{ ID int64 }
		srv.JSON(t, "POST", p.path("/pipeline?ref=main"), srv.RootToken, nil, 201, &pl)
	}
	resp := srv.JSON(t, "GET", p.path("/jobs?scope=pending&per_page=1"), srv.RootToken, nil, 200, nil)
	if got := resp.Header.Get("X-Total"); got != "200" {
		t.Fatalf("pending jobs: X-Total %q, want 200", got)
	}
	return p, p.registrationToken()
}

// handOut has 20 runner clients, spread over the given servers, ask for
// jobs concurrently until all 200 are out, and checks that each job went
// to exactly one runner, as the server recorded too.
func handOut(t *testing.T, p *ciProject, regToken string, servers ...*apptest.Server) {
	const runners, jobs = 20, 200
	type runner struct {
		id     int64
		token  string
		client contracttests.RunnerClient
	}
	rs := make([]runner, runners)
	for i := range rs {
		c := contracttests.RunnerClient{URL: servers[i%len(servers)].URL, HTTP: &http.Client{Timeout: 30 * time.Second}}
		id, tok, reply, err := c.Register(context.Background(), regToken, map[string]any{"description": fmt.Sprintf("runner %d", i)})
		if err != nil || reply.Status != http.StatusCreated {
			t.Fatalf("register runner %d: %v %d %s", i, err, reply.Status, reply.Body)
		}
		rs[i] = runner{id: id, token: tok, client: c}
	}

	var (
		mu    sync.Mutex
		owner = map[int64]int64{} // job id -> runner id
		dups  []string
		wg    sync.WaitGroup
	)
	deadline := time.Now().Add(30 * time.Second)
	start := time.Now()
	for _, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				job, reply, err := r.client.RequestJob(context.Background(), r.token, "")
				if err != nil {
					t.Errorf("runner %d: %v", r.id, err)
					return
				}
				switch reply.Status {
				case http.StatusCreated:
					mu.Lock()
					if prev, ok := owner[job.ID]; ok {
						dups = append(dups, fmt.Sprintf("job %d to runners %d and %d", job.ID, prev, r.id))
					}
					owner[job.ID] = r.id
					mu.Unlock()
				case http.StatusNoContent:
					mu.Lock()
					done := len(owner) >= jobs
					mu.Unlock()
					if done {
						return
					}
					time.Sleep(10 * time.Millisecond)
				default:
					t.Errorf("runner %d: jobs/request %d %s", r.id, reply.Status, reply.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d jobs handed to %d runners through %d server(s) in %v", len(owner), runners, len(servers), time.Since(start).Round(time.Millisecond))
	if len(dups) > 0 {
		t.Fatalf("jobs handed out twice: %v", dups)
	}
	if len(owner) != jobs {
		t.Fatalf("%d jobs handed out, want %d (lost %d)", len(owner), jobs, jobs-len(owner))
	}
	// The server agrees: all 200 running, each bound to the runner that got it.
	srv := servers[0]
	for page := 1; page <= 2; page++ {
		var list []ciJob
		resp := srv.JSON(t, "GET", p.path("/jobs?scope=running&per_page=100&page=%d", page), srv.RootToken, nil, 200, &list)
		if got := resp.Header.Get("X-Total"); got != "200" {
			t.Errorf("running jobs: X-Total %q, want 200", got)
		}
		for _, j := range list {
			if j.Runner == nil || j.Runner.ID != owner[j.ID] {
				t.Errorf("job %d: server says runner %+v, the client got it as runner %d", j.ID, j.Runner, owner[j.ID])
			}
		}
	}
	resp := srv.JSON(t, "GET", p.path("/jobs?scope=pending&per_page=1"), srv.RootToken, nil, 200, nil)
	if got := resp.Header.Get("X-Total"); got != "0" {
		t.Errorf("pending jobs left: %s", got)
	}
}

// TestJobHandOutSQLite: 20 concurrent runner clients take 200 pending
// jobs from one SQLite server; each job goes out exactly once.
func TestJobHandOutSQLite(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t, ciServerConfig(nil))
	skipWithoutCI(t, srv)
	p, tok := seedPendingJobs(t, srv)
	handOut(t, p, tok, srv)
}

// TestJobHandOutTwoNodesPostgres: two Hearth processes (two fx apps with
// their own HTTP servers, buses and pools) on one Postgres database and
// one data directory, 10 runner clients on each, 200 pending jobs: each
// goes out exactly once.
func TestJobHandOutTwoNodesPostgres(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, apptest.Postgres(), ciServerConfig(nil))
	skipWithoutCI(t, a)
	b := apptest.New(t, apptest.Postgres(), ciServerConfig(func(c *config.Config) {
		c.Storage.DSN = a.Config.Storage.DSN
		c.DataDir = a.Config.DataDir
	}))
	p, tok := seedPendingJobs(t, a)
	handOut(t, p, tok, a, b)
}
