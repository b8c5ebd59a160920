package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// start runs r until the test ends.
func start(t *testing.T, r *Runner) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		r.Abort()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("the runner did not stop")
		}
	})
}

func TestRegisterVerifyUnregister(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	ctx := context.Background()
	c := &Client{URL: f.srv.URL + "/", SystemID: NewSystemID()}
	if _, _, err := c.Register(ctx, "wrong", RegisterOptions{}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("register with a wrong token: %v", err)
	}
	id, token, err := c.Register(ctx, f.regToken, RegisterOptions{Description: "d", Tags: []string{"a", "b"}, RunUntagged: true})
	if err != nil || id != 7 || token != f.runnerToken {
		t.Fatalf("register: %d %q %v", id, token, err)
	}
	if id, err := c.Verify(ctx, token); err != nil || id != 7 {
		t.Fatalf("verify: %d %v", id, err)
	}
	if _, err := c.Verify(ctx, "glrt-other"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("verify a wrong token: %v", err)
	}
	if err := c.Unregister(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Verify(ctx, token); !errors.Is(err, ErrForbidden) {
		t.Fatalf("verify after unregister: %v", err)
	}
}

func TestConfigRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "runner.yml")
	c := Config{URL: "http://x", Token: "glrt-abc", ID: 4, Tags: []string{"a"}, ShutdownTimeout: 90 * time.Second}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	got, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Token != c.Token || got.ShutdownTimeout != 90*time.Second || got.Concurrent != 1 || got.BuildsDir != "builds" || got.ID != 4 {
		t.Fatalf("loaded %+v", got)
	}
	_ = os.WriteFile(path, []byte("url: http://x\n"), 0o600)
	if _, err := LoadConfig(path); err == nil {
		t.Fatal("a config without a token loads")
	}
}

func TestJobSucceeds(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"README": "hello from the repo\n"})
	job := f.job(11, sha,
		"cat README",
		`echo "token=$CI_JOB_TOKEN secret=$MY_SECRET"`,
		// The secret reaches the trace in two writes, far apart.
		`printf 'split=s3cr'; sleep 0.4; printf 'et-value-42\n'`,
		`echo "path=$PATH" | head -c 5; echo`,
		`echo "own=${`+ownSecret+`:-absent} project=$CI_PROJECT_DIR pwd=$(pwd) builds=$CI_BUILDS_DIR"`,
		`echo "expanded=$GREETING"`,
		"sleep 1",
	)
	job.Variables = append(job.Variables,
		Variable{Key: "MY_SECRET", Value: "s3cret-value-42", Masked: true},
		Variable{Key: "NAME", Value: "world", Public: true},
		Variable{Key: "GREETING", Value: "hello $NAME", Public: true},
	)
	job.Steps = append(job.Steps, Step{Name: "after_script", Script: []string{"echo after-ran"}, Timeout: 60, When: "always"})
	job.GitInfo.Depth = 1
	done := f.enqueue(job)
	r := f.runner(t, 1)
	start(t, r)
	u := wait(t, done[11], 20*time.Second)
	tr := f.trace(11)
	if u.State != "success" || u.FailureReason != "" {
		t.Fatalf("final update %+v\n%s", u, tr)
	}
	if u.Checksum != checksum(tr) || u.Bytesize != len(tr) {
		t.Fatalf("final checksum %s/%d, trace %s/%d", u.Checksum, u.Bytesize, checksum(tr), len(tr))
	}
	for _, want := range []string{
		"hello from the repo", "$ cat README", "git depth set to 1", "token=[MASKED] secret=[MASKED]", "split=[MASKED]\n",
		"path=", "own=absent", "expanded=hello world", "after-ran", "Job succeeded",
		"section_start:", "section_end:",
	} {
		if !strings.Contains(tr, want) {
			t.Errorf("trace lacks %q:\n%s", want, tr)
		}
	}
	for _, secret := range []string{job.Token, "s3cret-value-42", "runner-private-value", f.runnerToken} {
		if strings.Contains(tr, secret) {
			t.Errorf("trace holds the secret %q:\n%s", secret, tr)
		}
	}
	// CI_PROJECT_DIR is the working directory, under CI_BUILDS_DIR.
	line := tr[strings.Index(tr, "own=absent"):]
	line = line[:strings.Index(line, "\n")]
	fields := map[string]string{}
	for _, kv := range strings.Fields(line) {
		k, v, _ := strings.Cut(kv, "=")
		fields[k] = v
	}
	if fields["project"] != fields["pwd"] || !strings.HasPrefix(fields["project"], fields["builds"]+"/") ||
		!strings.HasSuffix(fields["project"], "/group/proj") {
		t.Errorf("directories: %q", line)
	}
	var beats int
	for _, u := range f.updatesOf(11) {
		if u.State == "running" {
			beats++
		}
	}
	if beats < 2 {
		t.Errorf("%d heartbeats in a job of more than 1.4 s", beats)
	}
	f.mu.Lock()
	patches := f.patches[11]
	f.mu.Unlock()
	if patches < 3 {
		t.Errorf("trace sent in %d patches, want it streamed", patches)
	}
}

func TestScriptFailure(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"a": "a"})
	job := f.job(12, sha, "echo before", "exit 3", "echo never")
	job.Steps = append(job.Steps, Step{Name: "after_script", Script: []string{"echo after-ran"}, Timeout: 60, When: "always"})
	bad := f.job(13, strings.Repeat("z", 40), "echo never")
	done := f.enqueue(job, bad)
	start(t, f.runner(t, 2))
	u := wait(t, done[12], 20*time.Second)
	tr := f.trace(12)
	if u.State != "failed" || u.FailureReason != ScriptFailure || u.ExitCode != 3 {
		t.Fatalf("final update %+v\n%s", u, tr)
	}
	if !strings.Contains(tr, "before") || strings.Contains(tr, "\nnever") || !strings.Contains(tr, "after-ran") ||
		!strings.Contains(tr, "exit code 3") {
		t.Fatalf("trace:\n%s", tr)
	}
	// GIT_STRATEGY=none: no git at all (the repository is not even there).
	none := f.job(14, sha, "test ! -e .git", "echo no-git")
	none.GitInfo.RepoURL = "http://gitlab-ci-token:x@127.0.0.1:1/nowhere.git"
	none.Variables = append(none.Variables, Variable{Key: "GIT_STRATEGY", Value: "none", Public: true})
	if u := wait(t, f.enqueue(none)[14], 20*time.Second); u.State != "success" {
		t.Fatalf("GIT_STRATEGY=none: %+v\n%s", u, f.trace(14))
	}
	// A SHA that is not 40 hex digits never reaches git.
	u = wait(t, done[13], 20*time.Second)
	if u.State != "failed" || u.FailureReason != RunnerSystemFailure || !strings.Contains(f.trace(13), "invalid commit SHA") {
		t.Fatalf("bad sha: %+v\n%s", u, f.trace(13))
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"a": "a"})
	job := f.job(14, sha, "echo started", "sleep 30")
	job.RunnerInfo.Timeout = 1
	done := f.enqueue(job)
	began := time.Now()
	start(t, f.runner(t, 1))
	u := wait(t, done[14], 15*time.Second)
	if u.State != "failed" || u.FailureReason != JobExecutionTimeout {
		t.Fatalf("final update %+v\n%s", u, f.trace(14))
	}
	if d := time.Since(began); d > 8*time.Second {
		t.Fatalf("timeout took %s", d)
	}
}

// alive tells whether pid is a live (not zombie) process.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func TestCancelKillsTheProcessTree(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"a": "a"})
	pids := t.TempDir()
	job := f.job(15, sha,
		"sh -c 'echo $$ > "+pids+"/bg; exec sleep 600' &",
		"sh -c 'echo $$ > "+pids+"/fg; exec sleep 600'",
	)
	job.Steps = append(job.Steps, Step{Name: "after_script", Script: []string{"echo after-cancel"}, Timeout: 60, When: "always"})
	done := f.enqueue(job)
	r := f.runner(t, 1)
	// The production intervals: the job prints nothing while it sleeps, so
	// only heartbeats can bring the cancel.
	r.TraceInterval, r.HeartbeatInterval = 0, 0
	start(t, r)

	var procs []int
	deadline := time.Now().Add(15 * time.Second)
	for len(procs) < 2 && time.Now().Before(deadline) {
		procs = procs[:0]
		for _, name := range []string{"bg", "fg"} {
			if b, err := os.ReadFile(filepath.Join(pids, name)); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					procs = append(procs, pid)
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(procs) < 2 {
		t.Fatalf("the job never started its processes:\n%s", f.trace(15))
	}
	for _, pid := range procs {
		if !alive(pid) {
			t.Fatalf("process %d is not running before the cancel", pid)
		}
	}
	time.Sleep(1200 * time.Millisecond) // the trace is sent: only a heartbeat can tell now
	canceled := time.Now()
	f.setStatus(15, "canceling")
	u := wait(t, done[15], 5*time.Second)
	if u.State != "failed" || u.FailureReason != JobCanceled {
		t.Fatalf("final update %+v", u)
	}
	t.Logf("canceled job reported after %s", time.Since(canceled))
	for _, pid := range procs {
		for alive(pid) && time.Since(canceled) < 5*time.Second {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d survived the cancel", pid)
		}
	}
	if !strings.Contains(f.trace(15), "after-cancel") {
		t.Errorf("after_script did not run on cancel:\n%s", f.trace(15))
	}
}

func TestAbortOnCanceled(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"a": "a"})
	job := f.job(16, sha, "echo started", "sleep 600")
	job.Steps = append(job.Steps, Step{Name: "after_script", Script: []string{"echo after-abort"}, Timeout: 60, When: "always"})
	f.enqueue(job)
	r := f.runner(t, 1)
	start(t, r)
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(f.trace(16), "started") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	f.setStatus(16, "canceled")
	// The runner stops the job without a final update: it takes the next one.
	next := f.job(17, sha, "echo next")
	done := f.enqueue(next)
	if u := wait(t, done[17], 10*time.Second); u.State != "success" {
		t.Fatalf("next job %+v", u)
	}
	if strings.Contains(f.trace(16), "after-abort") {
		t.Errorf("after_script ran on an aborted job")
	}
}

func TestTraceResumesAfter416(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"a": "a"})
	job := f.job(18, sha, "echo first-part", "sleep 0.5", "echo second-part", "sleep 0.5", "echo third-part")
	f.onPatch = func(id int64, n int) {
		if n == 2 {
			// The server lost the end of what it had: the next patch gets a
			// 416 with the length it holds, and the runner sends from there.
			f.traces[id] = f.traces[id][:len(f.traces[id])/2]
		}
	}
	done := f.enqueue(job)
	start(t, f.runner(t, 1))
	u := wait(t, done[18], 20*time.Second)
	tr := f.trace(18)
	if u.State != "success" || u.Checksum != checksum(tr) {
		t.Fatalf("final %+v, checksum %s\n%s", u, checksum(tr), tr)
	}
	for _, want := range []string{"\nfirst-part\n", "\nsecond-part\n", "\nthird-part\n", "Job succeeded"} {
		if strings.Count(tr, want) != 1 {
			t.Errorf("trace holds %q %d times:\n%s", want, strings.Count(tr, want), tr)
		}
	}
	f.mu.Lock()
	refused := f.refused
	f.mu.Unlock()
	if refused == 0 {
		t.Error("no patch was refused with a 416")
	}
	if !strings.HasSuffix(tr, "Job succeeded\x1b[0;m\n") {
		t.Errorf("trace:\n%q", tr)
	}
}

func TestBackoffAndLastUpdate(t *testing.T) {
	t.Parallel()
	if got := []time.Duration{backoff(3*time.Second, time.Minute, 1), backoff(3*time.Second, time.Minute, 2),
		backoff(3*time.Second, time.Minute, 5), backoff(3*time.Second, time.Minute, 10)}; got[0] != 3*time.Second ||
		got[1] != 6*time.Second || got[2] != 48*time.Second || got[3] != time.Minute {
		t.Fatalf("backoff %v", got)
	}
	f := newFake(t)
	f.failRequest = 4
	r := f.runner(t, 1)
	start(t, r)
	deadline := time.Now().Add(10 * time.Second)
	for {
		f.mu.Lock()
		n := len(f.requests)
		f.mu.Unlock()
		if n >= 7 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) < 7 {
		t.Fatalf("%d requests", len(f.requests))
	}
	gaps := make([]time.Duration, 0)
	for i := 1; i < len(f.requests); i++ {
		gaps = append(gaps, f.requests[i].Sub(f.requests[i-1]))
	}
	// Four failures: 50, 100, 200, 400 ms; then idle polling at 50 ms.
	if gaps[0] < 40*time.Millisecond || gaps[3] < 350*time.Millisecond || gaps[3] < 2*gaps[1] || gaps[5] > 300*time.Millisecond {
		t.Fatalf("gaps %v", gaps)
	}
	// X-GitLab-Last-Update goes back as last_update.
	if f.lastUpdates[5] != "" && f.lastUpdates[6] != "queue-6" {
		t.Fatalf("last_update values %q", f.lastUpdates)
	}
	if f.lastUpdates[6] != "queue-6" {
		t.Fatalf("last_update values %q", f.lastUpdates)
	}
}

func TestGitArgsRefuseOptions(t *testing.T) {
	t.Parallel()
	f := &fake{srv: nil}
	_ = f
	base := func() *Job {
		j := &Job{ID: 1, Token: "t"}
		j.GitInfo.RepoURL = "http://gitlab-ci-token:t@host/g/p.git"
		j.GitInfo.Sha = strings.Repeat("a", 40)
		j.GitInfo.Refspecs = []string{"+refs/heads/main:refs/remotes/origin/main"}
		return j
	}
	j := base()
	args, sha, err := gitArgs(j)
	if err != nil || sha != j.GitInfo.Sha || strings.Join(args[len(args)-3:], " ") != "-- "+j.GitInfo.RepoURL+" "+j.GitInfo.Refspecs[0] {
		t.Fatalf("%v %s %v", args, sha, err)
	}
	for name, mutate := range map[string]func(*Job){
		"sha option":     func(j *Job) { j.GitInfo.Sha = "--upload-pack=touch /tmp/x" },
		"short sha":      func(j *Job) { j.GitInfo.Sha = "abc" },
		"url option":     func(j *Job) { j.GitInfo.RepoURL = "--upload-pack=evil" },
		"file url":       func(j *Job) { j.GitInfo.RepoURL = "file:///etc" },
		"ext url":        func(j *Job) { j.GitInfo.RepoURL = "ext::sh -c evil" },
		"refspec option": func(j *Job) { j.GitInfo.Refspecs = []string{"--upload-pack=evil"} },
	} {
		j := base()
		mutate(j)
		if _, _, err := gitArgs(j); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestMaskerSplitSecrets(t *testing.T) {
	t.Parallel()
	secrets := []string{"glcbt-abcdef", "s3cret", "s3cret-longer"}
	input := "a glcbt-abcdef b s3cret c s3cret-longer d s3cre e glcbt-"
	want := "a [MASKED] b [MASKED] c [MASKED] d s3cre e glcbt-"
	for split := 0; split <= len(input); split++ {
		for split2 := split; split2 <= len(input); split2 += 3 {
			m := newMasker(secrets)
			var out []byte
			out = append(out, m.write([]byte(input[:split]))...)
			out = append(out, m.write([]byte(input[split:split2]))...)
			out = append(out, m.write([]byte(input[split2:]))...)
			out = append(out, m.flush()...)
			if string(out) != want {
				t.Fatalf("split at %d,%d: %q", split, split2, out)
			}
		}
	}
}

func TestTraceMasksByteByByte(t *testing.T) {
	t.Parallel()
	tr := newTrace([]string{"glcbt-token-1", "", "p@ss"})
	for _, b := range []byte("x glcbt-token-1 y p@ssp@ss z glcbt-token-") {
		_, _ = tr.Write([]byte{b})
	}
	tr.close()
	if got := string(tr.bytes()); got != "x [MASKED] y [MASKED][MASKED] z glcbt-token-" {
		t.Fatalf("%q", got)
	}
}

func TestJobEnvIsTheJobsOnly(t *testing.T) {
	t.Parallel()
	job := &Job{Variables: []Variable{
		{Key: "A", Value: "1"}, {Key: "B", Value: "$A-2"}, {Key: "RAW", Value: "$A", Raw: true},
		{Key: "CI_PROJECT_DIR", Value: "/evil"}, {Key: "BAD=KEY", Value: "x"},
		{Key: "KUBECONFIG", Value: "apiVersion: v1\n", File: true},
	}}
	tmp := t.TempDir()
	env, err := jobEnv(job, "/b", "/b/p", tmp)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	if got["B"] != "1-2" || got["RAW"] != "$A" || got["CI_PROJECT_DIR"] != "/b/p" || got["CI_BUILDS_DIR"] != "/b" {
		t.Fatalf("env %v", env)
	}
	if _, ok := got[ownSecret]; ok {
		t.Fatal("the runner's own environment leaked")
	}
	if _, ok := got["BAD"]; ok {
		t.Fatal("a bad key made it")
	}
	if data, err := os.ReadFile(got["KUBECONFIG"]); err != nil || string(data) != "apiVersion: v1\n" || filepath.Dir(got["KUBECONFIG"]) != tmp {
		t.Fatalf("file variable %q: %q %v", got["KUBECONFIG"], data, err)
	}
	if got["PATH"] != os.Getenv("PATH") {
		t.Fatal("no PATH")
	}
}

func TestArtifactsAndCache(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"tracked.txt": "t"})
	r := f.runner(t, 1)
	start(t, r)

	build := f.job(21, sha, "mkdir -p out vendor", "echo payload > out/a.txt", "echo other > other.txt", "echo dep > vendor/dep")
	build.Artifacts = []Artifact{{Name: "a", Paths: []string{"out/"}, When: "on_success", Type: "archive", Format: "zip", ExpireIn: "1 week"}}
	build.Cache = []CacheSpec{{Key: "deps-$CI_PROJECT_PATH", Paths: []string{"vendor/"}, Policy: "pull-push"}}
	if u := wait(t, f.enqueue(build)[21], 20*time.Second); u.State != "success" {
		t.Fatalf("build %+v\n%s", u, f.trace(21))
	}
	f.mu.Lock()
	zipped, query, chunked := f.artifacts[21], f.uploads[21], f.chunked[21]
	f.mu.Unlock()
	if len(zipped) == 0 || query.Get("artifact_format") != "zip" || query.Get("artifact_type") != "archive" ||
		query.Get("expire_in") != "1 week" || !chunked {
		t.Fatalf("upload: %d bytes, query %v, chunked %v", len(zipped), query, chunked)
	}

	// The consumer gets the artifacts unpacked and the cache restored after
	// git clean removed the untracked vendor/ of the build.
	test := f.job(22, sha, "cat out/a.txt", "cat vendor/dep", "test ! -e other.txt")
	dep := Dependency{ID: 21, Token: jobToken(21), Name: "build"}
	dep.ArtifactsFile = &struct {
		Filename string `json:"filename"`
		Size     int64  `json:"size"`
	}{"artifacts.zip", int64(len(zipped))}
	test.Dependencies = []Dependency{dep}
	test.Cache = []CacheSpec{{Key: "deps-$CI_PROJECT_PATH", Paths: []string{"vendor/"}, Policy: "pull"}}
	if u := wait(t, f.enqueue(test)[22], 20*time.Second); u.State != "success" {
		t.Fatalf("test %+v\n%s", u, f.trace(22))
	}
	if tr := f.trace(22); !strings.Contains(tr, "\npayload\n") || !strings.Contains(tr, "\ndep\n") {
		t.Fatalf("test trace:\n%s", tr)
	}

	// A failing job uploads its on_failure artifacts, not its on_success ones.
	failing := f.job(23, sha, "mkdir -p logs out", "echo log > logs/l.txt", "echo x > out/x", "exit 1")
	failing.Artifacts = []Artifact{
		{Name: "s", Paths: []string{"out/"}, When: "on_success", Type: "archive", Format: "zip"},
		{Name: "f", Paths: []string{"logs/"}, When: "on_failure", Type: "archive", Format: "zip"},
	}
	if u := wait(t, f.enqueue(failing)[23], 20*time.Second); u.State != "failed" || u.FailureReason != ScriptFailure {
		t.Fatalf("failing %+v", u)
	}
	f.mu.Lock()
	data := f.artifacts[23]
	f.mu.Unlock()
	if !bytes.Contains(data, []byte("logs/l.txt")) || bytes.Contains(data, []byte("out/x")) {
		t.Fatalf("on_failure artifacts: %q", data)
	}
}

func TestConcurrentJobs(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"a": "a"})
	var jobs []*Job
	for id := int64(31); id <= 33; id++ {
		jobs = append(jobs, f.job(id, sha, "sleep 1.5", "pwd"))
	}
	done := f.enqueue(jobs...)
	began := time.Now()
	start(t, f.runner(t, 3))
	dirs := map[string]bool{}
	for id, ch := range done {
		if u := wait(t, ch, 20*time.Second); u.State != "success" {
			t.Fatalf("job %d: %+v", id, u)
		}
		tr := f.trace(id)
		i := strings.Index(tr, "$ pwd")
		line := strings.SplitN(tr[i:], "\n", 3)[1]
		dirs[line] = true
	}
	if d := time.Since(began); d > 4*time.Second {
		t.Fatalf("three 1.5 s jobs with concurrency 3 took %s", d)
	}
	if len(dirs) != 3 {
		t.Fatalf("jobs shared build directories: %v", dirs)
	}
}

func TestShutdownWaitsThenAborts(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"a": "a"})
	short := f.job(41, sha, "sleep 1", "echo short-done")
	long := f.job(42, sha, "echo long-started", "sleep 600")
	done := f.enqueue(short, long)
	r := f.runner(t, 2)
	r.Config.ShutdownTimeout = 2 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(ctx) }()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(f.trace(42), "long-started") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	// No new job is taken once stopping.
	f.enqueue(f.job(43, sha, "echo never"))
	if u := wait(t, done[41], 10*time.Second); u.State != "success" {
		t.Fatalf("the running short job %+v", u)
	}
	if u := wait(t, done[42], 10*time.Second); u.State != "failed" || u.FailureReason != RunnerSystemFailure {
		t.Fatalf("the long job after the shutdown timeout %+v", u)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queue) != 1 {
		t.Fatalf("a job was taken while stopping")
	}
}

func TestLargeTraceInPatchesOfAtMost1MiB(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	sha := f.repo(map[string]string{"a": "a"})
	// 2.5 MiB at once: three patches at least, each checked by the fake.
	done := f.enqueue(f.job(51, sha, "head -c 2621440 /dev/zero | tr '\\0' a", "echo", "echo tail-line"))
	start(t, f.runner(t, 1))
	u := wait(t, done[51], 20*time.Second)
	tr := f.trace(51)
	if u.State != "success" || u.Bytesize != len(tr) || strings.Count(tr, "a") < 2621440 || !strings.Contains(tr, "tail-line") {
		t.Fatalf("final %+v, trace of %d bytes", u, len(tr))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.patches[51] < 3 {
		t.Fatalf("%d patches", f.patches[51])
	}
}
