package runner

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
)

// ownSecret is in the test process's environment: no job may see it.
const ownSecret = "HEARTH_RUNNER_TEST_OWN_SECRET"

func TestMain(m *testing.M) {
	os.Setenv(ownSecret, "runner-private-value")
	os.Exit(m.Run())
}

// update is one PUT /jobs/:id the fake received.
type update struct {
	State, FailureReason, Checksum string
	ExitCode, Bytesize             int
	At                             time.Time
}

// fake is a protocol server in the test: it hands out queued jobs,
// stores traces with the server's append-only rule, answers Job-Status
// from jobStatus and serves a git repository over smart HTTP.
type fake struct {
	t   *testing.T
	srv *httptest.Server

	regToken, runnerToken string

	mu           sync.Mutex
	queue        []*Job
	traces       map[int64][]byte
	patches      map[int64]int
	updates      map[int64][]update
	jobStatus    map[int64]string
	failRequest  int                   // answer this many job requests with a 500
	requests     []time.Time           // times of job requests
	lastUpdates  []string              // last_update values received
	onPatch      func(id int64, n int) // called under mu after each accepted patch
	finished     map[int64]chan update
	unregistered bool
	refused      int // 416 answers
	artifacts    map[int64][]byte
	uploads      map[int64]url.Values // query of each upload
	chunked      map[int64]bool       // the upload came without a Content-Length

	repoRoot string // bare repositories for git http-backend
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{
		t: t, regToken: "GR1348941reg", runnerToken: "glrt-fake-runner-token",
		traces: map[int64][]byte{}, patches: map[int64]int{}, updates: map[int64][]update{},
		jobStatus: map[int64]string{}, finished: map[int64]chan update{}, repoRoot: t.TempDir(),
		artifacts: map[int64][]byte{}, uploads: map[int64]url.Values{}, chunked: map[int64]bool{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v4/runners", f.register)
	mux.HandleFunc("POST /api/v4/runners/verify", f.verify)
	mux.HandleFunc("DELETE /api/v4/runners", f.unregister)
	mux.HandleFunc("POST /api/v4/jobs/request", f.request)
	mux.HandleFunc("PUT /api/v4/jobs/{id}", f.updateJob)
	mux.HandleFunc("PATCH /api/v4/jobs/{id}/trace", f.patchTrace)
	mux.HandleFunc("POST /api/v4/jobs/{id}/artifacts", f.upload)
	mux.HandleFunc("GET /api/v4/jobs/{id}/artifacts", f.download)
	mux.Handle("/", f.git())
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func decodeBody(r *http.Request) map[string]any {
	var m map[string]any
	_ = json.NewDecoder(r.Body).Decode(&m)
	return m
}

func (f *fake) register(w http.ResponseWriter, r *http.Request) {
	b := decodeBody(r)
	if b["token"] != f.regToken {
		writeJSON(w, 403, map[string]string{"message": "403 Forbidden"})
		return
	}
	if _, ok := b["info"].(map[string]any); !ok {
		writeJSON(w, 400, map[string]string{"message": "no info"})
		return
	}
	writeJSON(w, 201, map[string]any{"id": 7, "token": f.runnerToken, "token_expires_at": nil})
}

func (f *fake) verify(w http.ResponseWriter, r *http.Request) {
	b := decodeBody(r)
	f.mu.Lock()
	gone := f.unregistered
	f.mu.Unlock()
	if b["token"] != f.runnerToken || gone {
		writeJSON(w, 403, map[string]string{"message": "403 Forbidden"})
		return
	}
	writeJSON(w, 200, map[string]any{"id": 7, "token": f.runnerToken, "token_expires_at": nil})
}

func (f *fake) unregister(w http.ResponseWriter, r *http.Request) {
	b := decodeBody(r)
	if b["token"] != f.runnerToken {
		writeJSON(w, 403, map[string]string{"message": "403 Forbidden"})
		return
	}
	f.mu.Lock()
	f.unregistered = true
	f.mu.Unlock()
	w.WriteHeader(204)
}

func (f *fake) request(w http.ResponseWriter, r *http.Request) {
	b := decodeBody(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, time.Now())
	lu, _ := b["last_update"].(string)
	f.lastUpdates = append(f.lastUpdates, lu)
	if r.Header.Get("RUNNER-TOKEN") != f.runnerToken || b["token"] != f.runnerToken {
		writeJSON(w, 403, map[string]string{"message": "403 Forbidden"})
		return
	}
	if f.failRequest > 0 {
		f.failRequest--
		writeJSON(w, 500, map[string]string{"message": "500 Internal Server Error"})
		return
	}
	w.Header().Set("X-GitLab-Last-Update", "queue-"+strconv.Itoa(len(f.requests)))
	if len(f.queue) == 0 {
		w.WriteHeader(204)
		return
	}
	job := f.queue[0]
	f.queue = f.queue[1:]
	f.jobStatus[job.ID] = "running"
	writeJSON(w, 201, job)
}

// jobAuth checks the job token of a job-scoped call.
func (f *fake) jobAuth(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	st, ok := f.jobStatus[id]
	if !ok || r.Header.Get("JOB-TOKEN") != jobToken(id) {
		writeJSON(w, 403, map[string]string{"message": "403 Forbidden"})
		return 0, false
	}
	if st != "running" && st != "canceling" {
		w.Header().Set("Job-Status", st)
		writeJSON(w, 403, map[string]string{"message": "403 Forbidden - Job is not running"})
		return 0, false
	}
	return id, true
}

func (f *fake) updateJob(w http.ResponseWriter, r *http.Request) {
	b := decodeBody(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	id, ok := f.jobAuth(w, r)
	if !ok {
		return
	}
	u := update{At: time.Now()}
	u.State, _ = b["state"].(string)
	u.FailureReason, _ = b["failure_reason"].(string)
	if n, ok := b["exit_code"].(float64); ok {
		u.ExitCode = int(n)
	}
	if out, ok := b["output"].(map[string]any); ok {
		u.Checksum, _ = out["checksum"].(string)
		if n, ok := out["bytesize"].(float64); ok {
			u.Bytesize = int(n)
		}
	}
	f.updates[id] = append(f.updates[id], u)
	status := f.jobStatus[id]
	if u.State == "success" || u.State == "failed" {
		switch {
		case status == "canceling":
			status = "canceled"
		default:
			status = u.State
		}
		f.jobStatus[id] = status
		if ch := f.finished[id]; ch != nil {
			ch <- u
		}
	}
	w.Header().Set("Job-Status", status)
	w.Header().Set("X-GitLab-Trace-Update-Interval", "1")
	writeJSON(w, 200, map[string]any{})
}

func (f *fake) patchTrace(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	id, ok := f.jobAuth(w, r)
	if !ok {
		return
	}
	cr := r.Header.Get("Content-Range")
	start, end, found := strings.Cut(cr, "-")
	s, err1 := strconv.Atoi(start)
	e, err2 := strconv.Atoi(end)
	if !found || err1 != nil || err2 != nil || e-s+1 != len(data) || len(data) > maxPatch {
		writeJSON(w, 400, map[string]string{"message": "400 bad Content-Range " + cr})
		return
	}
	cur := len(f.traces[id])
	if s != cur {
		f.refused++
		w.Header().Set("Range", fmt.Sprintf("0-%d", cur))
		writeJSON(w, 416, map[string]string{"message": "416 Range Not Satisfiable"})
		return
	}
	f.traces[id] = append(f.traces[id], data...)
	f.patches[id]++
	w.Header().Set("Job-Status", f.jobStatus[id])
	w.Header().Set("Range", fmt.Sprintf("0-%d", len(f.traces[id])))
	if f.onPatch != nil {
		f.onPatch(id, f.patches[id])
	}
	w.WriteHeader(202)
}

func (f *fake) upload(w http.ResponseWriter, r *http.Request) {
	file, _, err := r.FormFile("file")
	if err != nil {
		writeJSON(w, 400, map[string]string{"message": "400 (Bad request) \"file\" not given"})
		return
	}
	data, _ := io.ReadAll(file)
	f.mu.Lock()
	defer f.mu.Unlock()
	id, ok := f.jobAuth(w, r)
	if !ok {
		return
	}
	f.artifacts[id] = data
	f.uploads[id] = r.URL.Query()
	f.chunked[id] = r.ContentLength == -1
	writeJSON(w, 201, map[string]any{})
}

// download serves a job's artifacts to its own token (as a dependency's
// token is that job's).
func (f *fake) download(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("JOB-TOKEN") != jobToken(id) {
		writeJSON(w, 403, map[string]string{"message": "403 Forbidden"})
		return
	}
	data, ok := f.artifacts[id]
	if !ok {
		writeJSON(w, 404, map[string]string{"message": "404 Not Found"})
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	_, _ = w.Write(data)
}

// git serves the bare repositories under repoRoot with git http-backend,
// for the job token of any job (Basic gitlab-ci-token:<token>).
func (f *fake) git() http.Handler {
	exe, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		f.t.Fatalf("git --exec-path: %v", err)
	}
	h := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(exe)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + f.repoRoot, "GIT_HTTP_EXPORT_ALL=1"},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "gitlab-ci-token" || !strings.HasPrefix(pass, "glcbt-job-") {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "unauthorized", 401)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func jobToken(id int64) string { return "glcbt-job-" + strconv.FormatInt(id, 10) + "-secret" }

// repo makes the bare repository group/proj.git holding one commit with
// files, and returns the commit's SHA.
func (f *fake) repo(files map[string]string) string {
	f.t.Helper()
	work := f.t.TempDir()
	run := func(dir string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			f.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(work, "init", "-q", "-b", "main")
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	run(work, "add", ".")
	run(work, "commit", "-q", "-m", "first")
	bare := filepath.Join(f.repoRoot, "group", "proj.git")
	run(work, "clone", "-q", "--bare", work, bare)
	return run(work, "rev-parse", "HEAD")
}

// job is a job of group/proj at sha running script.
func (f *fake) job(id int64, sha string, script ...string) *Job {
	j := &Job{ID: id, Token: jobToken(id), AllowGitFetch: true}
	j.JobInfo.ID, j.JobInfo.Name, j.JobInfo.Stage, j.JobInfo.ProjectID, j.JobInfo.ProjectName = id, "test", "test", 3, "proj"
	host := strings.TrimPrefix(f.srv.URL, "http://")
	j.GitInfo.RepoURL = "http://gitlab-ci-token:" + j.Token + "@" + host + "/group/proj.git"
	j.GitInfo.Ref, j.GitInfo.Sha, j.GitInfo.RefType = "main", sha, "branch"
	j.GitInfo.Refspecs = []string{"+refs/heads/main:refs/remotes/origin/main"}
	j.RunnerInfo.Timeout = 60
	j.Variables = []Variable{
		{Key: "CI", Value: "true", Public: true},
		{Key: "CI_JOB_ID", Value: strconv.FormatInt(id, 10), Public: true},
		{Key: "CI_JOB_TOKEN", Value: j.Token, Masked: true},
		{Key: "CI_REPOSITORY_URL", Value: j.GitInfo.RepoURL},
		{Key: "CI_PROJECT_PATH", Value: "group/proj", Public: true},
	}
	j.Steps = []Step{{Name: "script", Script: script, Timeout: 60, When: "on_success"}}
	return j
}

// enqueue queues jobs and returns a channel of each one's final update.
func (f *fake) enqueue(jobs ...*Job) map[int64]chan update {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[int64]chan update{}
	for _, j := range jobs {
		ch := make(chan update, 4)
		f.finished[j.ID] = ch
		out[j.ID] = ch
		f.queue = append(f.queue, j)
	}
	return out
}

func (f *fake) trace(id int64) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.traces[id])
}

func (f *fake) setStatus(id int64, st string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobStatus[id] = st
}

func (f *fake) updatesOf(id int64) []update {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]update(nil), f.updates[id]...)
}

// runner is a runner polling the fake with short intervals.
func (f *fake) runner(t *testing.T, concurrent int) *Runner {
	return &Runner{
		Config: Config{
			URL: f.srv.URL, Token: f.runnerToken, ID: 7, Description: "test runner", Concurrent: concurrent,
			BuildsDir: t.TempDir(), CacheDir: t.TempDir(), ShutdownTimeout: 10 * time.Second,
		},
		Log:               zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel)),
		PollInterval:      50 * time.Millisecond,
		MaxBackoff:        time.Second,
		TraceInterval:     100 * time.Millisecond,
		HeartbeatInterval: 300 * time.Millisecond,
		FinalTimeout:      10 * time.Second,
	}
}

// wait returns the final update from ch or fails after d.
func wait(t *testing.T, ch chan update, d time.Duration) update {
	t.Helper()
	select {
	case u := <-ch:
		return u
	case <-time.After(d):
		t.Fatalf("no final update within %s", d)
	}
	return update{}
}

func checksum(s string) string { return fmt.Sprintf("crc32:%08x", crc32.ChecksumIEEE([]byte(s))) }
