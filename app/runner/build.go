package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Why a job's work stopped early (context causes).
var (
	errCanceling = errors.New("the job was canceled")
	errTimeout   = errors.New("the job timed out")
	errAborted   = errors.New("the job was aborted")
)

// defaultJobTimeout is gitlab-runner's when the server sends none.
const defaultJobTimeout = 2 * time.Hour

// maxPatch is the largest trace patch.
const maxPatch = 1 << 20

// jobRun is one job being executed.
type jobRun struct {
	r    *Runner
	job  *Job
	slot int
	log  *zap.Logger

	trace *trace
	sent  int // trace bytes the server holds; owned by the sender, then by finish

	// abort stops everything (Job-Status canceled/failed, a 403, the
	// runner shutting down hard); cancelWork stops the script gracefully
	// (Job-Status canceling): after_script still runs.
	abortCtx   context.Context
	abort      context.CancelCauseFunc
	workCtx    context.Context
	cancelWork context.CancelCauseFunc

	canceling atomic.Bool
	stopOnce  sync.Once
}

// observe honours the Job-Status of an answer to a PUT or a PATCH.
func (j *jobRun) observe(res UpdateResult) {
	switch {
	case res.JobStatus == "canceling":
		if !j.canceling.Swap(true) {
			j.log.Info("job canceled by the server")
		}
		j.cancelWork(errCanceling)
	case res.JobStatus == "canceled" || res.JobStatus == "failed" || res.Status == http.StatusForbidden:
		j.log.Info("job aborted by the server", zap.String("job_status", res.JobStatus), zap.Int("status", res.Status))
		j.abort(errAborted)
	}
}

// printf writes a runner line into the trace.
func (j *jobRun) printf(format string, args ...any) {
	fmt.Fprintf(j.trace, format+"\n", args...)
}

func (j *jobRun) section(name, header string) func() {
	fmt.Fprintf(j.trace, "section_start:%d:%s\r\x1b[0K\x1b[36;1m%s\x1b[0;m\n", time.Now().Unix(), name, header)
	return func() {
		fmt.Fprintf(j.trace, "section_end:%d:%s\r\x1b[0K\n", time.Now().Unix(), name)
	}
}

// result is how a job ended.
type result struct {
	failureReason string // empty: success
	exitCode      int
}

func (j *jobRun) execute(parent context.Context) {
	job := j.job
	secrets := []string{job.Token}
	for _, v := range job.Variables {
		if v.Masked {
			secrets = append(secrets, v.Value)
		}
	}
	j.trace = newTrace(secrets)
	j.abortCtx, j.abort = context.WithCancelCause(parent)
	defer j.abort(nil)
	timeout := time.Duration(job.RunnerInfo.Timeout) * time.Second
	if timeout <= 0 {
		timeout = defaultJobTimeout
	}
	workCtx, cancelWork := context.WithCancelCause(j.abortCtx)
	j.cancelWork = cancelWork
	var cancelTimeout context.CancelFunc
	j.workCtx, cancelTimeout = context.WithTimeoutCause(workCtx, timeout, errTimeout)
	defer cancelTimeout()
	defer cancelWork(nil)

	stop := make(chan struct{})
	senderDone := make(chan struct{})
	go func() {
		defer close(senderDone)
		j.sendLoop(stop)
	}()

	res := j.run()

	close(stop)
	<-senderDone
	if j.abortCtx.Err() != nil {
		// The server ended the job (or the runner stops hard and reports it
		// below): nothing more to say to it, unless the runner aborted.
		if !errors.Is(context.Cause(j.abortCtx), errRunnerStopped) {
			j.log.Info("job aborted", zap.Error(context.Cause(j.abortCtx)))
			return
		}
		res = result{failureReason: RunnerSystemFailure}
	}
	j.finish(res)
}

// run executes the job's stages and writes its story into the trace.
func (j *jobRun) run() result {
	job := j.job
	j.printf("\x1b[1;m%s\x1b[0;m", "Running with hearth-runner "+Version)
	j.printf("  on %s (id %d)", j.r.Config.Description, j.r.Config.ID)
	j.printf("Preparing the \"shell\" executor")

	env, projectDir, tmpDir, err := j.prepare()
	if err != nil {
		j.printf("\x1b[31;1mERROR: Preparation failed: %v\x1b[0;m", err)
		return result{failureReason: RunnerSystemFailure}
	}
	p := proc{dir: projectDir, env: env, out: j.trace, grace: j.r.KillGrace}

	end := j.section("get_sources", "Getting source from Git repository")
	err = j.gitSources(projectDir, env)
	end()
	if err != nil {
		if r, stopped := j.stopped(); stopped {
			return r
		}
		j.printf("\x1b[31;1mERROR: Getting the sources failed: %v\x1b[0;m", err)
		return result{failureReason: RunnerSystemFailure}
	}

	if err := j.dependencies(projectDir, tmpDir); err != nil {
		if r, stopped := j.stopped(); stopped {
			return r
		}
		j.printf("\x1b[31;1mERROR: Downloading artifacts failed: %v\x1b[0;m", err)
		return result{failureReason: RunnerSystemFailure}
	}
	j.restoreCache(projectDir, env)

	res := result{}
	for _, step := range job.Steps {
		if step.Name == "after_script" {
			continue
		}
		if r, stopped := j.stopped(); stopped {
			res = r
			break
		}
		end := j.section("step_"+sectionName(step.Name), "Executing \""+step.Name+"\" stage of the job script")
		code, err := p.runScript(j.workCtx, tmpDir, "step_"+sectionName(step.Name), step.Script)
		end()
		if r, stopped := j.stopped(); stopped {
			res = r
			break
		}
		if err != nil {
			j.printf("\x1b[31;1mERROR: %v\x1b[0;m", err)
			res = result{failureReason: RunnerSystemFailure}
			break
		}
		if code != 0 && !step.AllowFailure {
			res = result{failureReason: ScriptFailure, exitCode: code}
			break
		}
	}

	// after_script runs whatever happened, unless the server or the runner
	// aborted the job, with its own timeout.
	for _, step := range job.Steps {
		if step.Name != "after_script" || len(step.Script) == 0 || j.abortCtx.Err() != nil {
			continue
		}
		t := time.Duration(step.Timeout) * time.Second
		if t <= 0 || t > 5*time.Minute {
			t = 5 * time.Minute
		}
		ctx, cancel := context.WithTimeout(j.abortCtx, t)
		end := j.section("after_script", "Running after_script")
		code, err := p.runScript(ctx, tmpDir, "after_script", step.Script)
		end()
		cancel()
		if err != nil || code != 0 {
			j.printf("\x1b[33;1mWARNING: after_script failed (exit code %d), ignored\x1b[0;m", code)
		}
	}

	if res.failureReason != JobCanceled && j.abortCtx.Err() == nil {
		j.saveCache(projectDir, env, res.failureReason == "")
		if err := j.uploadArtifacts(projectDir, tmpDir, env, res.failureReason == ""); err != nil {
			j.printf("\x1b[31;1mERROR: Uploading artifacts failed: %v\x1b[0;m", err)
			if res.failureReason == "" {
				res = result{failureReason: RunnerSystemFailure}
			}
		}
	}

	switch res.failureReason {
	case "":
		j.printf("\x1b[32;1mJob succeeded\x1b[0;m")
	case ScriptFailure:
		j.printf("\x1b[31;1mERROR: Job failed: exit code %d\x1b[0;m", res.exitCode)
	case JobExecutionTimeout:
		j.printf("\x1b[31;1mERROR: Job failed: execution took longer than %s seconds\x1b[0;m", strconv.Itoa(job.RunnerInfo.Timeout))
	case JobCanceled:
		j.printf("\x1b[31;1mERROR: Job failed: canceled\x1b[0;m")
	default:
		j.printf("\x1b[31;1mERROR: Job failed (system failure)\x1b[0;m")
	}
	return res
}

// stopped tells whether the work was stopped from outside, and how the
// job ends then.
func (j *jobRun) stopped() (result, bool) {
	if j.workCtx.Err() == nil {
		return result{}, false
	}
	switch cause := context.Cause(j.workCtx); {
	case errors.Is(cause, errTimeout):
		return result{failureReason: JobExecutionTimeout}, true
	case errors.Is(cause, errCanceling):
		return result{failureReason: JobCanceled}, true
	}
	return result{failureReason: RunnerSystemFailure}, true
}

var safeSegment = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// projectPath is the project's path from the repository URL
// ("group/proj"), or "project-<id>" when it is not a plain path.
func projectPath(job *Job) string {
	fallback := "project-" + strconv.FormatInt(job.JobInfo.ProjectID, 10)
	u, err := url.Parse(job.GitInfo.RepoURL)
	if err != nil {
		return fallback
	}
	p := strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if !safeSegment.MatchString(s) || s == ".." {
			return fallback
		}
	}
	if p == "" {
		return fallback
	}
	return filepath.Join(segs...)
}

// prepare makes the build directory and the job's environment.
func (j *jobRun) prepare() (env []string, projectDir, tmpDir string, err error) {
	base := j.r.Config.BuildsDir
	// One directory per concurrency slot: two jobs of one project never
	// share a work tree.
	buildsDir := filepath.Join(base, strconv.FormatInt(j.r.Config.ID, 10), strconv.Itoa(j.slot))
	projectDir = filepath.Join(buildsDir, projectPath(j.job))
	tmpDir = projectDir + ".tmp"
	for _, d := range []string{projectDir, tmpDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, "", "", fmt.Errorf("build directory: %w", err)
		}
	}
	env, err = jobEnv(j.job, buildsDir, projectDir, tmpDir)
	if err != nil {
		return nil, "", "", err
	}
	return env, projectDir, tmpDir, nil
}

// jobEnv is the job's environment: the runner's PATH and HOME, the job's
// variables (expanded, later ones winning) and the build directories.
// Nothing else of the runner's environment gets in.
// A file variable (GitLab's variable_type file) is written to a file in
// tmpDir and the variable holds its path.
func jobEnv(job *Job, buildsDir, projectDir, tmpDir string) ([]string, error) {
	vals := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			set(k, v)
		}
	}
	set("CI_BUILDS_DIR", buildsDir)
	set("CI_PROJECT_DIR", projectDir)
	for _, v := range job.Variables {
		if v.Key == "" || strings.ContainsAny(v.Key, "=\x00") || strings.Contains(v.Value, "\x00") {
			continue
		}
		if v.Key == "CI_BUILDS_DIR" || v.Key == "CI_PROJECT_DIR" {
			continue
		}
		val := v.Value
		if !v.Raw {
			val = os.Expand(val, func(name string) string { return vals[name] })
		}
		if v.File {
			path := filepath.Join(tmpDir, sectionName(v.Key))
			if err := os.WriteFile(path, []byte(val), 0o600); err != nil {
				return nil, fmt.Errorf("file variable %s: %w", v.Key, err)
			}
			val = path
		}
		set(v.Key, val)
	}
	env := make([]string, 0, len(order))
	for _, k := range order {
		env = append(env, k+"="+vals[k])
	}
	return env, nil
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

var sectionSafe = regexp.MustCompile(`[^a-z0-9_]`)

func sectionName(s string) string { return sectionSafe.ReplaceAllString(strings.ToLower(s), "_") }
