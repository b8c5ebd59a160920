package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/config"
)

// registrationToken is ci.registration_token of every test server.
const registrationToken = "e2e-instance-registration-token"

// serverConfig sets the instance registration token (and more).
func serverConfig(more func(*config.Config)) apptest.Option {
	return apptest.Configure(func(c *config.Config) {
		c.CI.RegistrationToken = registrationToken
		if more != nil {
			more(c)
		}
	})
}

// eachDriver runs fn on SQLite and on Postgres, in parallel.
func eachDriver(t *testing.T, fn func(t *testing.T, driver string)) {
	for _, d := range []string{"sqlite", "postgres"} {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			fn(t, d)
		})
	}
}

// project is a private project of root's on a test server.
type project struct {
	t    testing.TB
	srv  *apptest.Server
	id   int64
	path string // namespace/name
}

func newProject(t testing.TB, srv *apptest.Server, name string) *project {
	t.Helper()
	var p struct {
		ID   int64
		Path string `json:"path_with_namespace"`
	}
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {name}, "visibility": {"private"}}, 201, &p)
	return &project{t: t, srv: srv, id: p.ID, path: p.Path}
}

func (p *project) api(format string, args ...any) string {
	return fmt.Sprintf("/projects/%d", p.id) + fmt.Sprintf(format, args...)
}

// push commits files in a fresh clone and pushes them over git smart HTTP
// to each branch named (main when none), as a person would; it returns
// the commit's SHA.
func (p *project) push(files map[string]string, branches ...string) string {
	p.t.Helper()
	if len(branches) == 0 {
		branches = []string{"main"}
	}
	u, err := url.Parse(p.srv.URL + "/" + p.path + ".git")
	if err != nil {
		p.t.Fatal(err)
	}
	u.User = url.UserPassword("root", apptest.RootPassword)
	work := p.t.TempDir()
	apptest.Git(p.t, work, "init", "-q", "-b", "main")
	for name, content := range files {
		full := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
	apptest.Git(p.t, work, "add", "-A")
	apptest.Git(p.t, work, "commit", "-q", "-m", "CI")
	args := []string{"push", "-q", u.String()}
	for _, b := range branches {
		args = append(args, "HEAD:refs/heads/"+b)
	}
	apptest.Git(p.t, work, args...)
	return apptest.Git(p.t, work, "rev-parse", "HEAD")
}

// pipelineOf waits for the pipeline the push of sha on ref created.
func (p *project) pipelineOf(ref, sha string) int64 {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var list []struct {
			ID  int64
			SHA string
		}
		p.srv.JSON(p.t, "GET", p.api("/pipelines?ref=%s", url.QueryEscape(ref)), p.srv.RootToken, nil, 200, &list)
		for _, pl := range list {
			if pl.SHA == sha {
				return pl.ID
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no pipeline for %s on %s", sha, ref)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// job is the part of the job entity the tests read.
type job struct {
	ID            int64
	Name          string
	Stage         string
	Status        string
	Coverage      *float64
	AllowFailure  bool   `json:"allow_failure"`
	FailureReason string `json:"failure_reason"`
	ArtifactsFile *struct {
		Filename string
		Size     int64
	} `json:"artifacts_file"`
	ArtifactsExpireAt *string `json:"artifacts_expire_at"`
	Runner            *struct{ ID int64 }
}

// jobs lists a pipeline's jobs by name.
func (p *project) jobs(pipelineID int64) map[string]job {
	p.t.Helper()
	var list []job
	p.srv.JSON(p.t, "GET", p.api("/pipelines/%d/jobs?per_page=100", pipelineID), p.srv.RootToken, nil, 200, &list)
	out := map[string]job{}
	for _, j := range list {
		out[j.Name] = j
	}
	return out
}

func (p *project) pipelineStatus(id int64) string {
	p.t.Helper()
	var pl struct{ Status string }
	p.srv.JSON(p.t, "GET", p.api("/pipelines/%d", id), p.srv.RootToken, nil, 200, &pl)
	return pl.Status
}

// waitJobs waits until every named job has its wanted status and the
// pipeline has its (when not empty); it returns the jobs.
func (p *project) waitJobs(pipelineID int64, within time.Duration, want map[string]string, pipeline string) map[string]job {
	p.t.Helper()
	deadline := time.Now().Add(within)
	for {
		var bad []string
		got := p.jobs(pipelineID)
		for name, status := range want {
			if got[name].Status != status {
				bad = append(bad, fmt.Sprintf("%s is %q (want %q)", name, got[name].Status, status))
			}
		}
		if pipeline != "" {
			if s := p.pipelineStatus(pipelineID); s != pipeline {
				bad = append(bad, fmt.Sprintf("pipeline is %q (want %q)", s, pipeline))
			}
		}
		if len(bad) == 0 {
			return got
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("pipeline %d after %v: %s", pipelineID, within, strings.Join(bad, "; "))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// trace reads a job's trace through the API.
func (p *project) trace(jobID int64) string {
	p.t.Helper()
	resp, body := p.srv.Do(p.t, "GET", p.api("/jobs/%d/trace", jobID), p.srv.RootToken, nil)
	if resp.StatusCode != http.StatusOK {
		p.t.Fatalf("trace of job %d: %d %s", jobID, resp.StatusCode, body)
	}
	return string(body)
}

// waitTrace waits until a job's trace contains s.
func (p *project) waitTrace(jobID int64, s string, within time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(within)
	for {
		// 404 until the first patch arrives.
		resp, body := p.srv.Do(p.t, "GET", p.api("/jobs/%d/trace", jobID), p.srv.RootToken, nil)
		tr := string(body)
		if resp.StatusCode == http.StatusOK && strings.Contains(tr, s) {
			return tr
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("trace of job %d has no %q after %v:\n%s", jobID, s, within, tr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// registerRunner registers an instance runner over the protocol and
// returns its token.
func registerRunner(t testing.TB, serverURL, description string) string {
	t.Helper()
	c := contracttests.RunnerClient{URL: serverURL, HTTP: &http.Client{Timeout: 30 * time.Second}}
	_, tok, reply, err := c.Register(context.Background(), registrationToken, map[string]any{"description": description, "run_untagged": true})
	if err != nil || reply.Status != http.StatusCreated {
		t.Fatalf("register %s: %v %d %s", description, err, reply.Status, reply.Body)
	}
	return tok
}

// gone reports whether process pid no longer runs: /proc/<pid> is gone,
// or it is a zombie (dead, only waiting for its reaper: orphans whose
// reaper is a container's PID 1 may stay zombies).
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// readPIDs reads the PIDs the jobs wrote into dir (one file each).
func readPIDs(t testing.TB, dir string, names ...string) []int {
	t.Helper()
	var pids []int
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatalf("pid file %s: %v", n, err)
		}
		var pid int
		if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &pid); err != nil || pid <= 1 {
			t.Fatalf("pid file %s: %q", n, b)
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitFiles waits until every named file exists in dir.
func waitFiles(t testing.TB, dir string, within time.Duration, names ...string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		missing := ""
		for _, n := range names {
			if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || len(strings.TrimSpace(string(b))) == 0 {
				missing = n
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written in %s after %v", missing, dir, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killGroups kills the process groups of pids, so a failed test leaves no
// sleep 600 behind.
func killGroups(pids []int) {
	for _, pid := range pids {
		_ = exec.Command("kill", "-9", "--", fmt.Sprintf("-%d", pid)).Run()
		_ = exec.Command("kill", "-9", fmt.Sprint(pid)).Run()
	}
}
