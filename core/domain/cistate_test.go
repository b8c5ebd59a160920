package domain

import (
	"strings"
	"testing"
	"time"
)

// jobsOf builds jobs from "status" words; a "!" suffix marks
// allow_failure, a "~" prefix a retried job.
func jobsOf(spec string) []Job {
	var out []Job
	for _, w := range strings.Fields(spec) {
		j := Job{Kind: JobBuild, When: WhenOnSuccess}
		if strings.HasPrefix(w, "~") {
			j.Retried, w = true, w[1:]
		}
		if strings.HasSuffix(w, "!") {
			j.AllowFailure, w = true, w[:len(w)-1]
		}
		j.Status = CIStatus(w)
		out = append(out, j)
	}
	return out
}

func TestCompositeStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		jobs string
		want CIStatus
	}{
		// every row of status_sql, in order
		{"", CISkipped},
		{"skipped failed!", CISuccess},           // builds = skipped, warnings
		{"skipped canceled!", CISuccess},         // canceled but allowed is a warning too
		{"skipped skipped", CISkipped},           // builds = skipped
		{"success success", CISuccess},           // builds = success
		{"created created", CICreated},           // builds = created
		{"success skipped", CISuccess},           // success + skipped
		{"success skipped canceled", CICanceled}, // + canceled
		{"canceled", CICanceled},
		{"created skipped pending", CIPending}, // created + skipped + pending
		{"pending", CIPending},
		{"success pending", CIRunning}, // running + pending > 0
		{"failed running", CIRunning},
		{"success manual", CIManual}, // manual > 0
		{"failed manual", CIManual},
		{"success created", CIRunning}, // created > 0
		{"failed created", CIRunning},
		{"success failed", CIFailed}, // else
		{"failed", CIFailed},
		{"failed canceled", CIFailed},
		// exclude_ignored: allowed failures and manual actions do not count
		{"success failed!", CISuccess},
		{"success canceled!", CISuccess},
		{"success manual!", CISuccess},
		{"manual!", CISkipped}, // only an ignored manual action: builds = skipped = 0, no warning
		{"failed!", CISuccess},
		{"running!", CIRunning}, // allow_failure counts while it runs
		{"success!", CISuccess},
		// retried jobs do not count
		{"~failed success", CISuccess},
		{"~success failed", CIFailed},
	}
	for _, c := range cases {
		if got := CompositeStatus(jobsOf(c.jobs)); got != c.want {
			t.Errorf("CompositeStatus(%q) = %s, want %s", c.jobs, got, c.want)
		}
	}
}

func TestWhenAllows(t *testing.T) {
	t.Parallel()
	all := []CIStatus{CISuccess, CIFailed, CICanceled, CISkipped}
	want := map[string][]CIStatus{
		WhenOnSuccess: {CISuccess, CISkipped},
		WhenOnFailure: {CIFailed},
		WhenAlways:    {CISuccess, CIFailed, CISkipped},
		WhenManual:    {CISuccess, CISkipped},
		"delayed":     nil,
	}
	for when, ok := range want {
		for _, s := range all {
			allowed := false
			for _, o := range ok {
				allowed = allowed || o == s
			}
			if got := WhenAllows(when, s); got != allowed {
				t.Errorf("WhenAllows(%s, %s) = %v, want %v", when, s, got, allowed)
			}
		}
	}
}

// stageJobs is a pipeline: "stage:when:status" words, "!" suffix for
// allow_failure.
func stageJobs(t *testing.T, spec string) []Job {
	t.Helper()
	var out []Job
	for _, w := range strings.Fields(spec) {
		parts := strings.Split(w, ":")
		j := Job{Kind: JobBuild, When: parts[1], Status: CIStatus(strings.TrimSuffix(parts[2], "!"))}
		j.AllowFailure = strings.HasSuffix(parts[2], "!")
		j.StageIdx = int(parts[0][0] - '0')
		out = append(out, j)
	}
	return out
}

func statuses(jobs []Job) string {
	var s []string
	for _, j := range jobs {
		s = append(s, string(j.Status))
	}
	return strings.Join(s, " ")
}

func TestProcessJobs(t *testing.T) {
	t.Parallel()
	now := time.Date(2017, 6, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name, jobs, want string
	}{
		{"first stage enqueued, later stages wait", "0:on_success:created 0:on_success:created 1:on_success:created",
			"pending pending created"},
		{"on_failure skipped when the first stage is empty", "0:on_failure:created 1:on_success:created",
			"skipped pending"},
		{"always runs first", "0:always:created", "pending"},
		{"manual in the first stage waits", "0:manual:created 0:on_success:created", "manual pending"},
		{"next stage after success", "0:on_success:success 1:on_success:created 1:on_failure:created 1:always:created 1:manual:created",
			"success pending skipped pending manual"},
		{"next stage after failure", "0:on_success:failed 1:on_success:created 1:on_failure:created 1:always:created 1:manual:created",
			"failed skipped pending pending skipped"},
		{"allowed failure is success for the next stage", "0:on_success:failed! 1:on_success:created 1:on_failure:created",
			"failed pending skipped"},
		{"canceled earlier stage skips everything but nothing runs", "0:on_success:canceled 1:on_success:created 1:always:created 1:on_failure:created",
			"canceled skipped skipped skipped"},
		{"running stage blocks", "0:on_success:running 1:on_success:created", "running created"},
		{"blocking manual action blocks later stages", "0:manual:manual 1:on_success:created", "manual created"},
		{"optional manual action does not block", "0:manual:manual! 1:on_success:created", "manual pending"},
		{"skips cascade through stages", "0:on_success:failed 1:on_success:created 2:on_success:created 3:on_failure:created",
			"failed skipped skipped pending"},
		{"skipped earlier stages count as success", "0:on_success:skipped 1:on_success:created", "skipped pending"},
	}
	for _, c := range cases {
		jobs := stageJobs(t, c.jobs)
		ProcessJobs(jobs, now)
		if got := statuses(jobs); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		for _, j := range jobs {
			if j.Status == CIPending && (j.QueuedAt == nil || !j.QueuedAt.Equal(now)) {
				t.Errorf("%s: a pending job has no queued_at", c.name)
			}
		}
	}
}

func TestProcessJobsIgnoresRetriedAndExternal(t *testing.T) {
	t.Parallel()
	jobs := stageJobs(t, "0:on_success:success 0:on_success:failed 1:on_success:created")
	jobs[1].Retried = true
	ext := Job{Kind: JobExternal, Status: CIFailed, StageIdx: 0}
	jobs = append(jobs, ext)
	changed := ProcessJobs(jobs, time.Now())
	if len(changed) != 1 || changed[0] != 2 || jobs[2].Status != CIPending {
		t.Fatalf("changed %v, statuses %s", changed, statuses(jobs))
	}
}

func TestPipelineFollow(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2017, 6, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) *time.Time { x := t0.Add(time.Duration(s) * time.Second); return &x }
	p := &Pipeline{Status: CICreated}

	jobs := jobsOf("created created")
	if p.Follow(jobs, t0) {
		t.Fatal("created jobs moved a created pipeline")
	}
	jobs = jobsOf("pending created")
	if !p.Follow(jobs, t0) || p.Status != CIPending || p.StartedAt != nil {
		t.Fatalf("pending: %+v", p)
	}
	jobs = jobsOf("running created")
	jobs[0].StartedAt = at(10)
	if !p.Follow(jobs, *at(10)) || p.Status != CIRunning || !p.StartedAt.Equal(*at(10)) {
		t.Fatalf("running: %+v", p)
	}
	if p.Follow(jobs, *at(11)) {
		t.Fatal("no change reported a change")
	}
	// two overlapping jobs and a later one: 10..40 and 20..50, 100..110 = 50 s
	jobs = jobsOf("success success success")
	jobs[0].StartedAt, jobs[0].FinishedAt = at(10), at(40)
	jobs[1].StartedAt, jobs[1].FinishedAt = at(20), at(50)
	jobs[2].StartedAt, jobs[2].FinishedAt = at(100), at(110)
	if !p.Follow(jobs, *at(120)) || p.Status != CISuccess || !p.FinishedAt.Equal(*at(120)) || p.Duration == nil || *p.Duration != 50 {
		t.Fatalf("success: %+v duration %v", p, p.Duration)
	}
	// a retried job makes the finished pipeline run again
	jobs = append(jobs[:2], Job{Kind: JobBuild, Status: CIPending})
	if !p.Follow(jobs, *at(130)) || p.Status != CIRunning || p.FinishedAt != nil || !p.StartedAt.Equal(*at(10)) {
		t.Fatalf("retry: %+v", p)
	}
	jobs[2].Status = CIManual
	if !p.Follow(jobs, *at(140)) || p.Status != CIManual || p.Duration == nil {
		t.Fatalf("manual: %+v", p)
	}
	bad := &Pipeline{Status: CICreated, YAMLErrors: "jobs config should contain at least one visible job"}
	if !bad.Follow(nil, t0) || bad.Status != CIFailed || bad.FinishedAt == nil {
		t.Fatalf("yaml errors: %+v", bad)
	}
	empty := &Pipeline{Status: CICreated}
	if !empty.Follow(nil, t0) || empty.Status != CISkipped || empty.FinishedAt != nil {
		t.Fatalf("no jobs: %+v", empty)
	}
}

func TestPipelineCoverage(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	jobs := jobsOf("success success success ~success")
	jobs[0].Coverage, jobs[1].Coverage, jobs[3].Coverage = f(30), f(60), f(99)
	if c := PipelineCoverage(jobs); c == nil || *c != 45 {
		t.Fatalf("coverage %v", c)
	}
	if c := PipelineCoverage(jobsOf("success")); c != nil {
		t.Fatalf("coverage of none: %v", *c)
	}
}
