package contracttests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// storeRunner creates an active runner that runs untagged jobs; mod
// changes it first.
func storeRunner(t *testing.T, s Stores, name string, mod func(r *domain.Runner)) *domain.Runner {
	t.Helper()
	r := &domain.Runner{TokenDigest: domain.TokenDigest("runner-" + name), Description: name, Active: true,
		RunUntagged: true, AccessLevel: domain.RunnerNotProtected, CreatedAt: storeT0}
	if mod != nil {
		mod(r)
	}
	if err := s.Runners.Create(t.Context(), r); err != nil {
		t.Fatalf("create runner %s: %v", name, err)
	}
	return r
}

// storeAssign gives a claimed job a token digest derived from its ID.
func storeAssign(j *domain.Job) (string, error) {
	return domain.TokenDigest(fmt.Sprintf("job-token-%d", j.ID)), nil
}

// storeClaim claims a job for r at storeT0 (nil: none).
func storeClaim(t *testing.T, s Stores, r *domain.Runner) *domain.Job {
	t.Helper()
	j, err := s.Jobs.Claim(t.Context(), r, storeT0, storeAssign)
	if err != nil {
		t.Fatalf("Claim for runner %s: %v", r.Description, err)
	}
	return j
}

// storeDrain cancels every pending job, so that the next case of a table
// starts with an empty queue.
func storeDrain(t *testing.T, s Stores) {
	t.Helper()
	pending, _, err := s.Jobs.List(t.Context(), domain.JobFilter{Statuses: []domain.CIStatus{domain.CIPending}})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range pending {
		if _, err := s.Jobs.Update(t.Context(), j.ID, func(j *domain.Job) error { j.Status = domain.CICanceled; return nil }); err != nil {
			t.Fatal(err)
		}
	}
}

func storeJobClaimMatching(t *testing.T, s Stores) {
	shared := storeCIProject(t, s, "shared", nil)
	noShared := storeCIProject(t, s, "no-shared", func(p *domain.Project) { p.SharedRunnersEnabled = false })
	noJobs := storeCIProject(t, s, "no-jobs", func(p *domain.Project) { p.JobsEnabled = false })

	sharedUntagged := storeRunner(t, s, "shared-untagged", func(r *domain.Runner) { r.IsShared = true })
	sharedTagged := storeRunner(t, s, "shared-tagged", func(r *domain.Runner) {
		r.IsShared, r.RunUntagged, r.Tags = true, false, []string{"docker", "linux"}
	})
	sharedBoth := storeRunner(t, s, "shared-both", func(r *domain.Runner) { r.IsShared, r.Tags = true, []string{"docker", "linux"} })
	specific := storeRunner(t, s, "specific", nil)
	for _, p := range []*domain.Project{noShared, noJobs} {
		if err := s.Runners.AddProject(t.Context(), specific.ID, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	unassigned := storeRunner(t, s, "unassigned", nil)
	protectedOnly := storeRunner(t, s, "protected", func(r *domain.Runner) {
		r.IsShared, r.AccessLevel = true, domain.RunnerRefProtected
	})
	paused := storeRunner(t, s, "paused", func(r *domain.Runner) { r.IsShared, r.Active = true, false })

	job := func(mod func(j *domain.Job), tags ...string) domain.Job {
		j := storeCIJob("job", domain.CIPending, tags...)
		if mod != nil {
			mod(&j)
		}
		return j
	}
	protected := func(j *domain.Job) { j.Protected = true }
	for _, tc := range []struct {
		name    string
		project *domain.Project
		job     domain.Job
		runner  *domain.Runner
		want    bool
	}{
		{"untagged job, shared runner", shared, job(nil), sharedUntagged, true},
		{"untagged job, runner without run_untagged", shared, job(nil), sharedTagged, false},
		{"untagged job, tagged runner with run_untagged", shared, job(nil), sharedBoth, true},
		{"tags a subset of the runner's", shared, job(nil, "docker"), sharedTagged, true},
		{"tags equal to the runner's", shared, job(nil, "linux", "docker"), sharedTagged, true},
		{"a tag the runner lacks", shared, job(nil, "docker", "gpu"), sharedTagged, false},
		{"tagged job, runner without tags", shared, job(nil, "docker"), sharedUntagged, false},
		{"shared runners off, shared runner", noShared, job(nil), sharedUntagged, false},
		{"shared runners off, specific runner of the project", noShared, job(nil), specific, true},
		{"specific runner of other projects", shared, job(nil), unassigned, false},
		{"specific runner, jobs disabled", noJobs, job(nil), specific, false},
		{"shared runner, jobs disabled", noJobs, job(nil), sharedUntagged, false},
		{"unprotected job, ref_protected runner", shared, job(nil), protectedOnly, false},
		{"protected job, ref_protected runner", shared, job(protected), protectedOnly, true},
		{"protected job, not_protected runner", shared, job(protected), sharedUntagged, true},
		{"paused runner", shared, job(nil), paused, false},
		{"commit status", shared, job(func(j *domain.Job) { j.Kind = domain.JobExternal }), sharedUntagged, false},
		{"created job", shared, job(func(j *domain.Job) { j.Status = domain.CICreated }), sharedUntagged, false},
		{"manual job", shared, job(func(j *domain.Job) { j.Status = domain.CIManual }), sharedUntagged, false},
	} {
		_, jobs := storePipeline(t, s, tc.project, "main", storeSHA1, tc.job)
		got := storeClaim(t, s, tc.runner)
		switch {
		case tc.want && (got == nil || got.ID != jobs[0].ID):
			t.Errorf("%s: claimed %v, want job %d", tc.name, got, jobs[0].ID)
		case !tc.want && got != nil:
			t.Errorf("%s: claimed job %d, want none", tc.name, got.ID)
		}
		storeDrain(t, s)
	}
}

func storeJobClaimOldestFirst(t *testing.T, s Stores) {
	p1, p2 := storeCIProject(t, s, "p1", nil), storeCIProject(t, s, "p2", nil)
	_, a := storePipeline(t, s, p2, "main", storeSHA1, storeCIJob("a", domain.CIPending))
	_, b := storePipeline(t, s, p1, "main", storeSHA1, storeCIJob("b", domain.CIPending), storeCIJob("c", domain.CIPending))
	r := storeRunner(t, s, "r", func(r *domain.Runner) { r.IsShared = true })
	for _, want := range []int64{a[0].ID, b[0].ID, b[1].ID} {
		if got := storeClaim(t, s, r); got == nil || got.ID != want {
			t.Fatalf("Claim = %v, want job %d", got, want)
		}
	}
	if got := storeClaim(t, s, r); got != nil {
		t.Fatalf("Claim of an empty queue = job %d", got.ID)
	}
}

func storeJobClaimAssign(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	_, jobs := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CIPending))
	r := storeRunner(t, s, "r", func(r *domain.Runner) { r.IsShared = true })
	at := storeT0.Add(time.Hour)
	refused := errors.New("refused")
	var seen domain.Job
	_, err := s.Jobs.Claim(ctx, r, at, func(j *domain.Job) (string, error) { seen = *j; return "", refused })
	if !errors.Is(err, refused) {
		t.Fatalf("Claim with a refusing assign = %v, want its error", err)
	}
	if seen.ID != jobs[0].ID || seen.Status != domain.CIRunning || seen.RunnerID == nil || *seen.RunnerID != r.ID || seen.StartedAt == nil || !seen.StartedAt.Equal(at) {
		t.Errorf("assign saw %+v; want the job running on runner %d since %v", seen, r.ID, at)
	}
	if j, _ := s.Jobs.GetByID(ctx, jobs[0].ID); j.Status != domain.CIPending || j.RunnerID != nil {
		t.Fatalf("after a refused assign the job is %s on runner %v; want pending on none", j.Status, j.RunnerID)
	}
	got, err := s.Jobs.Claim(ctx, r, at, storeAssign)
	if err != nil || got == nil {
		t.Fatalf("Claim = %v, %v", got, err)
	}
	want := jobs[0]
	want.Status, want.RunnerID, want.StartedAt, want.UpdatedAt = domain.CIRunning, &r.ID, &at, at
	want.TokenDigest, _ = storeAssign(&want)
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("claimed job (-want +got):\n%s", diff)
	}
	byToken, err := s.Jobs.GetByToken(ctx, want.TokenDigest)
	if err != nil {
		t.Fatalf("GetByToken: %v", err)
	}
	if diff := cmp.Diff(&want, byToken); diff != "" {
		t.Errorf("GetByToken (-want +got):\n%s", diff)
	}
}

// storeJobClaimConcurrent: 20 runners claim 200 pending jobs of several
// projects at once, each until the queue is empty; every job is handed
// out exactly once and none is left.
func storeJobClaimConcurrent(t *testing.T, s Stores) {
	ctx := t.Context()
	const total = 200
	var want []int64
	for i := range 4 {
		p := storeCIProject(t, s, fmt.Sprint("p", i), nil)
		jobs := make([]domain.Job, total/4)
		for k := range jobs {
			jobs[k] = storeCIJob(fmt.Sprint("job", k), domain.CIPending)
		}
		_, jobs = storePipeline(t, s, p, "main", storeSHA1, jobs...)
		want = append(want, storeJobIDs(jobs)...)
	}
	runners := make([]*domain.Runner, storeWorkers)
	for i := range runners {
		runners[i] = storeRunner(t, s, fmt.Sprint("r", i), func(r *domain.Runner) { r.IsShared = true })
	}
	claimed := make([][]int64, storeWorkers)
	errs := storeRace(func(i int) error {
		for {
			j, err := s.Jobs.Claim(ctx, runners[i], storeT0, storeAssign)
			if err != nil || j == nil {
				return err
			}
			if j.RunnerID == nil || *j.RunnerID != runners[i].ID {
				return fmt.Errorf("job %d claimed for runner %d has runner %v", j.ID, runners[i].ID, j.RunnerID)
			}
			claimed[i] = append(claimed[i], j.ID)
		}
	})
	storeNoErrors(t, errs)
	owner := map[int64]int{}
	for i, ids := range claimed {
		for _, id := range ids {
			if prev, ok := owner[id]; ok {
				t.Errorf("job %d handed to runners %d and %d", id, prev, i)
			}
			owner[id] = i
		}
	}
	if len(owner) != total {
		t.Errorf("%d jobs handed out, want %d", len(owner), total)
	}
	for _, id := range want {
		j, err := s.Jobs.GetByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		i, ok := owner[id]
		if !ok || j.Status != domain.CIRunning || j.RunnerID == nil || *j.RunnerID != runners[i].ID {
			t.Errorf("job %d: status %s, runner %v; handed to worker %d (%v)", id, j.Status, j.RunnerID, i, ok)
		}
	}
}

func storeJobQueueVersion(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	version := func() string {
		t.Helper()
		v, err := s.Jobs.QueueVersion(ctx)
		if err != nil || v == "" {
			t.Fatalf("QueueVersion = %q, %v", v, err)
		}
		return v
	}
	v0 := version()
	pl, _ := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CIPending))
	v1 := version()
	if v1 == v0 {
		t.Errorf("QueueVersion stayed %s after a pipeline with a pending job", v0)
	}
	j := storeCIJob("retry", domain.CIPending)
	j.PipelineID = pl.ID
	if err := s.Jobs.Create(ctx, &j); err != nil {
		t.Fatal(err)
	}
	v2 := version()
	if v2 == v1 {
		t.Errorf("QueueVersion stayed %s after a pending job was created", v1)
	}
	// Several nodes agree: the version is the database's, and a committed
	// transaction that queued a job moves it.
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		m := storeCIJob("manual", domain.CIManual)
		m.PipelineID = pl.ID
		if err := s.Jobs.Create(ctx, &m); err != nil {
			return err
		}
		_, err := s.Jobs.Update(ctx, m.ID, func(j *domain.Job) error { j.Status = domain.CIPending; return nil })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if v3 := version(); v3 == v2 {
		t.Errorf("QueueVersion stayed %s after a transaction queued a job", v2)
	}
}

func storeJobStale(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	silent := storeCIJob("silent", domain.CIRunning)
	alive := storeCIJob("alive", domain.CIRunning)
	alive.UpdatedAt = storeT0.Add(2 * time.Hour)
	waiting := storeCIJob("waiting", domain.CIPending)
	waiting.QueuedAt = storePtr(storeT0.Add(time.Minute))
	fresh := storeCIJob("fresh", domain.CIPending)
	fresh.QueuedAt = storePtr(storeT0.Add(2 * time.Hour))
	status := storeCIJob("status", domain.CIRunning)
	status.Kind = domain.JobExternal
	// Canceled while running, and its runner never reported the end.
	abandoned := storeCIJob("abandoned", domain.CICanceled)
	abandoned.UpdatedAt = storeT0.Add(30 * time.Minute)
	ended := storeCIJob("ended", domain.CICanceled)
	ended.RunnerFinished = true
	_, jobs := storePipeline(t, s, p, "main", storeSHA1, waiting, silent, alive, fresh, status, abandoned, ended)
	cut := storeT0.Add(time.Hour)
	got, err := s.Jobs.Stale(ctx, cut, cut, 10)
	if err != nil {
		t.Fatalf("Stale: %v", err)
	}
	if diff := cmp.Diff([]int64{jobs[1].ID, jobs[0].ID, jobs[5].ID}, storeJobIDs(got)); diff != "" {
		t.Errorf("Stale (-want +got):\n%s", diff)
	}
	got, _ = s.Jobs.Stale(ctx, cut, cut, 1)
	if diff := cmp.Diff([]int64{jobs[1].ID}, storeJobIDs(got)); diff != "" {
		t.Errorf("Stale with limit 1 (-want +got):\n%s", diff)
	}
	got, _ = s.Jobs.Stale(ctx, storeT0, cut, 10)
	if diff := cmp.Diff([]int64{jobs[0].ID}, storeJobIDs(got)); diff != "" {
		t.Errorf("Stale pending only (-want +got):\n%s", diff)
	}
}

func storeJobTraceAppend(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	_, jobs := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CIRunning), storeCIJob("b", domain.CIRunning))
	id := jobs[0].ID
	if tr, err := s.Jobs.Trace(ctx, id); err != nil || len(tr) != 0 {
		t.Fatalf("Trace before any append = %q, %v", tr, err)
	}
	binary := []byte{0, 0xff, '\r', '\n', 0x1b, '[', '3', '1', 'm'}
	var want []byte
	for _, chunk := range [][]byte{[]byte("Running with gitlab-runner\n"), binary, {}, []byte("ok\n")} {
		size, err := s.Jobs.AppendTrace(ctx, id, int64(len(want)), chunk)
		want = append(want, chunk...)
		if err != nil || size != int64(len(want)) {
			t.Fatalf("AppendTrace(%q) = %d, %v; want %d", chunk, size, err, len(want))
		}
	}
	for _, offset := range []int64{0, 5, int64(len(want)) + 1} {
		_, err := s.Jobs.AppendTrace(ctx, id, offset, []byte("x"))
		storeWantKind(t, err, core.ErrStale, fmt.Sprintf("AppendTrace at %d of %d", offset, len(want)))
	}
	_, err := s.Jobs.AppendTrace(ctx, jobs[1].ID+100, 0, []byte("x"))
	storeWantKind(t, err, core.ErrNotFound, "AppendTrace to a missing job")
	if tr, err := s.Jobs.Trace(ctx, id); err != nil || !bytes.Equal(tr, want) {
		t.Errorf("Trace = %q, %v; want %q", tr, err, want)
	}
	if j, _ := s.Jobs.GetByID(ctx, id); j.TraceSize != int64(len(want)) {
		t.Errorf("TraceSize = %d, want %d", j.TraceSize, len(want))
	}
	if tr, _ := s.Jobs.Trace(ctx, jobs[1].ID); len(tr) != 0 {
		t.Errorf("other job's trace = %q", tr)
	}
	if err := s.Jobs.DeleteTrace(ctx, id); err != nil {
		t.Fatalf("DeleteTrace: %v", err)
	}
	if tr, err := s.Jobs.Trace(ctx, id); err != nil || len(tr) != 0 {
		t.Errorf("Trace after DeleteTrace = %q, %v", tr, err)
	}
	if err := s.Jobs.DeleteTrace(ctx, id); err != nil {
		t.Errorf("second DeleteTrace: %v", err)
	}
}

// storeJobTraceConcurrentAppend: 20 appends at the same offset at once,
// exactly one wins and the trace is its data.
func storeJobTraceConcurrentAppend(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	_, jobs := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CIRunning))
	id := jobs[0].ID
	if _, err := s.Jobs.AppendTrace(ctx, id, 0, []byte("head\n")); err != nil {
		t.Fatal(err)
	}
	errs := storeRace(func(i int) error {
		_, err := s.Jobs.AppendTrace(ctx, id, 5, []byte(fmt.Sprintf("line from worker %02d\n", i)))
		return err
	})
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("workers %d and %d both appended at offset 5", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, core.ErrStale):
			t.Errorf("worker %d: %v, want core.ErrStale", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no append won")
	}
	want := fmt.Sprintf("head\nline from worker %02d\n", winner)
	if tr, err := s.Jobs.Trace(ctx, id); err != nil || string(tr) != want {
		t.Errorf("Trace = %q, %v; want %q", tr, err, want)
	}
	if j, _ := s.Jobs.GetByID(ctx, id); j.TraceSize != int64(len(want)) {
		t.Errorf("TraceSize = %d, want %d", j.TraceSize, len(want))
	}
}
