package contracttests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// ciStoreCases are the subtests of the CI stores: pipelines, jobs and the
// job queue, traces, runners, variables and artifacts.
func ciStoreCases() []storeCase {
	return []storeCase{
		{"PipelineCreateGet", storePipelineCreateGet},
		{"PipelineUnknownProject", storePipelineUnknownProject},
		{"PipelineList", storePipelineList},
		{"PipelineUpdate", storePipelineUpdate},
		{"PipelineLock", storePipelineLock},
		{"PipelineDeleteReturnsArtifacts", storePipelineDeleteReturnsArtifacts},
		{"PipelineLatest", storePipelineLatest},
		{"PipelineLatestOfSHAs", storePipelineLatestOfSHAs},
		{"JobCreateGet", storeJobCreateGet},
		{"JobList", storeJobList},
		{"JobUpdate", storeJobUpdate},
		{"JobClaimMatching", storeJobClaimMatching},
		{"JobClaimOldestFirst", storeJobClaimOldestFirst},
		{"JobClaimAssign", storeJobClaimAssign},
		{"JobClaimConcurrent", storeJobClaimConcurrent},
		{"JobQueueVersion", storeJobQueueVersion},
		{"JobStale", storeJobStale},
		{"JobTraceAppend", storeJobTraceAppend},
		{"JobTraceConcurrentAppend", storeJobTraceConcurrentAppend},
		{"RunnerCreateGet", storeRunnerCreateGet},
		{"RunnerList", storeRunnerList},
		{"RunnerUpdateDelete", storeRunnerUpdateDelete},
		{"RunnerProjects", storeRunnerProjects},
		{"RunnerRegistrationToken", storeRunnerRegistrationToken},
		{"VariableCRUD", storeVariableCRUD},
		{"VariableKeyTaken", storeVariableKeyTaken},
		{"ArtifactCreateReplace", storeArtifactCreateReplace},
		{"ArtifactDeleteOfJobExpired", storeArtifactDeleteOfJobExpired},
	}
}

// storeCIProject creates a project with jobs and shared runners enabled
// (mod may change that).
func storeCIProject(t *testing.T, s Stores, path string, mod func(p *domain.Project)) *domain.Project {
	t.Helper()
	g := storeGroup(t, s, "g-"+path, nil, domain.Private)
	return storeProject(t, s, g, path, func(p *domain.Project) {
		p.JobsEnabled, p.SharedRunnersEnabled = true, true
		if mod != nil {
			mod(p)
		}
	})
}

// storeCIJob is a CI job named name in stage test with status st and tags.
func storeCIJob(name string, st domain.CIStatus, tags ...string) domain.Job {
	return domain.Job{Kind: domain.JobBuild, Name: name, Stage: "test", StageIdx: 1, Status: st,
		Ref: "main", SHA: storeSHA1, When: domain.WhenOnSuccess, Tags: tags,
		Spec: domain.JobSpec{Script: []string{"echo " + name}}, CreatedAt: storeT0, UpdatedAt: storeT0}
}

// storePipeline creates a pipeline of p for sha on ref with jobs and
// returns it with the jobs as created.
func storePipeline(t *testing.T, s Stores, p *domain.Project, ref, sha string, jobs ...domain.Job) (*domain.Pipeline, []domain.Job) {
	t.Helper()
	pl := &domain.Pipeline{ProjectID: p.ID, Ref: ref, SHA: sha, Status: domain.CIPending, Source: domain.SourcePush,
		CreatedAt: storeT0, UpdatedAt: storeT0}
	for i := range jobs {
		jobs[i].Ref, jobs[i].SHA = ref, sha
	}
	if err := s.Pipelines.Create(t.Context(), pl, jobs); err != nil {
		t.Fatalf("create pipeline of %s: %v", sha, err)
	}
	return pl, jobs
}

func storePipelineIDs(ps []domain.Pipeline) []int64 {
	return storeIDs(ps, func(p domain.Pipeline) int64 { return p.ID })
}

func storeJobIDs(js []domain.Job) []int64 {
	return storeIDs(js, func(j domain.Job) int64 { return j.ID })
}

func storePipelineCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	p := storeCIProject(t, s, "p", nil)
	zone := time.FixedZone("X", 3600)
	pl := &domain.Pipeline{
		ProjectID: p.ID, Ref: "v1.0", Tag: true, SHA: storeSHA1, BeforeSHA: storeSHA2, Status: domain.CICreated,
		Source: domain.SourceAPI, UserID: &alice.ID, ConfigPath: ".gitlab-ci.yml", Coverage: storePtr(87.5),
		CreatedAt: storeT0.In(zone), StartedAt: storePtr(storeT0.Add(time.Minute)),
		CommittedAt: storePtr(storeT0.Add(-time.Hour)), Duration: storePtr(42),
	}
	build := storeCIJob("build", domain.CIPending, "docker", "linux")
	build.Spec = domain.JobSpec{
		Image: &domain.Image{Name: "golang:1.22", Entrypoint: []string{""}}, Services: []domain.Image{{Name: "postgres", Alias: "db"}},
		BeforeScript: []string{"go version"}, Script: []string{"go build ./...", "go test ./..."}, AfterScript: []string{"echo done"},
		Variables:    []domain.Variable{{Key: "GOFLAGS", Value: "-mod=mod", Public: true}},
		Artifacts:    &domain.ArtifactsSpec{Name: "bin", Paths: []string{"bin/"}, When: "always", ExpireIn: "1 week"},
		Cache:        &domain.CacheSpec{Key: "go", Paths: []string{".cache"}, Policy: "pull"},
		Dependencies: []string{"prepare"}, Retry: 2, Timeout: 600, CoverageRegex: `total: (\d+\.\d+)%`,
	}
	build.Protected, build.AllowFailure, build.UserID = true, true, &alice.ID
	deploy := storeCIJob("deploy", domain.CICreated)
	deploy.Stage, deploy.StageIdx, deploy.When = "deploy", 2, domain.WhenManual
	jobs := []domain.Job{deploy, build}
	if err := s.Pipelines.Create(ctx, pl, jobs); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if pl.ID <= 0 || pl.CreatedAt != storeT0 || pl.UpdatedAt != storeT0 {
		t.Fatalf("Create set ID %d, times %v %v", pl.ID, pl.CreatedAt, pl.UpdatedAt)
	}
	got, err := s.Pipelines.Get(ctx, p.ID, pl.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(pl, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if got, err := s.Pipelines.GetByID(ctx, pl.ID); err != nil || got.ID != pl.ID {
		t.Errorf("GetByID = %v, %v", got, err)
	}
	_, err = s.Pipelines.Get(ctx, p.ID+1000, pl.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get in another project")

	for i, j := range jobs {
		if j.ID <= 0 || j.PipelineID != pl.ID || j.ProjectID != p.ID {
			t.Fatalf("job %d: ID %d, pipeline %d, project %d", i, j.ID, j.PipelineID, j.ProjectID)
		}
	}
	if jobs[1].QueuedAt == nil || !jobs[1].QueuedAt.Equal(storeT0) {
		t.Errorf("pending job QueuedAt = %v, want its creation time", jobs[1].QueuedAt)
	}
	if jobs[0].QueuedAt != nil {
		t.Errorf("created job QueuedAt = %v, want nil", jobs[0].QueuedAt)
	}
	gotJob, err := s.Jobs.Get(ctx, p.ID, jobs[1].ID)
	if err != nil {
		t.Fatalf("Jobs.Get: %v", err)
	}
	if diff := cmp.Diff(&jobs[1], gotJob); diff != "" {
		t.Errorf("job (-want +got):\n%s", diff)
	}
	of, err := s.Jobs.OfPipeline(ctx, pl.ID)
	if err != nil {
		t.Fatalf("OfPipeline: %v", err)
	}
	// By stage index: build (stage 1) before deploy (stage 2).
	if diff := cmp.Diff([]int64{jobs[1].ID, jobs[0].ID}, storeJobIDs(of)); diff != "" {
		t.Errorf("OfPipeline IDs (-want +got):\n%s", diff)
	}
}

func storePipelineUnknownProject(t *testing.T, s Stores) {
	pl := &domain.Pipeline{ProjectID: 999, Ref: "main", SHA: storeSHA1, Status: domain.CIPending}
	storeWantKind(t, s.Pipelines.Create(t.Context(), pl, []domain.Job{storeCIJob("a", domain.CIPending)}), core.ErrNotFound, "Create in an unknown project")
	_, err := s.Pipelines.Get(t.Context(), 999, 1)
	storeWantKind(t, err, core.ErrNotFound, "Get")
	_, err = s.Pipelines.GetByID(t.Context(), 12345)
	storeWantKind(t, err, core.ErrNotFound, "GetByID")
}

func storePipelineList(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	mk := func(ref string, tag bool, st domain.CIStatus, user *domain.User, yamlErr string) int64 {
		pl := &domain.Pipeline{ProjectID: p.ID, Ref: ref, Tag: tag, SHA: storeSHA1, Status: st, Source: domain.SourcePush,
			YAMLErrors: yamlErr, UserID: &user.ID}
		if err := s.Pipelines.Create(ctx, pl, nil); err != nil {
			t.Fatal(err)
		}
		return pl.ID
	}
	a1 := mk("main", false, domain.CISuccess, alice, "")
	a2 := mk("feature", false, domain.CIRunning, bob, "")
	a3 := mk("main", false, domain.CIFailed, alice, "jobs config should contain at least one visible job")
	a4 := mk("v1", true, domain.CIPending, bob, "")
	a5 := mk("v1", true, domain.CICanceled, alice, "")
	elsewhere, _ := storePipeline(t, s, other, "main", storeSHA1)

	byIDs, n, err := s.Pipelines.List(ctx, domain.PipelineFilter{IDs: []int64{a2, elsewhere.ID, a2, a4 + 1000}})
	storeWantList(t, "IDs of any project", storePipelineIDs(byIDs), n, err, []int64{elsewhere.ID, a2}, 2)
	byIDs, n, err = s.Pipelines.List(ctx, domain.PipelineFilter{ProjectID: p.ID, IDs: []int64{}})
	storeWantList(t, "no IDs", storePipelineIDs(byIDs), n, err, nil, 0)

	list := func(f domain.PipelineFilter) ([]int64, int, error) {
		f.ProjectID = p.ID
		got, n, err := s.Pipelines.List(ctx, f)
		return storePipelineIDs(got), n, err
	}
	ids, n, err := list(domain.PipelineFilter{})
	storeWantList(t, "all", ids, n, err, []int64{a5, a4, a3, a2, a1}, 5)
	ids, n, err = list(domain.PipelineFilter{Scope: "running"})
	storeWantList(t, "running", ids, n, err, []int64{a2}, 1)
	ids, n, err = list(domain.PipelineFilter{Scope: "pending"})
	storeWantList(t, "pending", ids, n, err, []int64{a4}, 1)
	ids, n, err = list(domain.PipelineFilter{Scope: "finished"})
	storeWantList(t, "finished", ids, n, err, []int64{a5, a3, a1}, 3)
	ids, n, err = list(domain.PipelineFilter{Scope: "branches"})
	storeWantList(t, "branches", ids, n, err, []int64{a3, a2}, 2)
	ids, n, err = list(domain.PipelineFilter{Scope: "tags"})
	storeWantList(t, "tags", ids, n, err, []int64{a5}, 1)
	ids, n, err = list(domain.PipelineFilter{Status: domain.CISuccess})
	storeWantList(t, "status", ids, n, err, []int64{a1}, 1)
	ids, n, err = list(domain.PipelineFilter{Ref: "main"})
	storeWantList(t, "ref", ids, n, err, []int64{a3, a1}, 2)
	ids, n, err = list(domain.PipelineFilter{SHA: storeSHA2})
	storeWantList(t, "sha", ids, n, err, nil, 0)
	ids, n, err = list(domain.PipelineFilter{YAMLErrors: storePtr(true)})
	storeWantList(t, "yaml errors", ids, n, err, []int64{a3}, 1)
	ids, n, err = list(domain.PipelineFilter{YAMLErrors: storePtr(false)})
	storeWantList(t, "no yaml errors", ids, n, err, []int64{a5, a4, a2, a1}, 4)
	ids, n, err = list(domain.PipelineFilter{Username: "BOB"})
	storeWantList(t, "username", ids, n, err, []int64{a4, a2}, 2)
	ids, n, err = list(domain.PipelineFilter{Username: "nobody"})
	storeWantList(t, "unknown username", ids, n, err, nil, 0)
	ids, n, err = list(domain.PipelineFilter{OrderBy: "ref", Ascending: true})
	storeWantList(t, "by ref", ids, n, err, []int64{a2, a1, a3, a4, a5}, 5)
	ids, n, err = list(domain.PipelineFilter{OrderBy: "status"})
	storeWantList(t, "by status desc", ids, n, err, []int64{a1, a2, a4, a3, a5}, 5)
	ids, n, err = list(domain.PipelineFilter{Page: domain.Page{Page: 2, PerPage: 2}})
	storeWantList(t, "page 2", ids, n, err, []int64{a3, a2}, 5)
}

func storePipelineUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	pl, _ := storePipeline(t, s, p, "main", storeSHA1)
	fin := storeT0.Add(time.Hour)
	got, err := s.Pipelines.Update(ctx, pl.ID, func(x *domain.Pipeline) error {
		x.Status, x.FinishedAt, x.Duration, x.ProjectID = domain.CISuccess, &fin, storePtr(60), 12345
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got.Status != domain.CISuccess || got.ProjectID != p.ID || !got.FinishedAt.Equal(fin) || *got.Duration != 60 || !got.UpdatedAt.After(storeT0) {
		t.Errorf("Update = %+v", got)
	}
	again, _ := s.Pipelines.Get(ctx, p.ID, pl.ID)
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	boom := fmt.Errorf("boom")
	if _, err := s.Pipelines.Update(ctx, pl.ID, func(*domain.Pipeline) error { return boom }); err != boom {
		t.Errorf("Update with fn error = %v, want it as is", err)
	}
	_, err = s.Pipelines.Update(ctx, pl.ID+100, func(*domain.Pipeline) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update of a missing pipeline")
}

func storePipelineDeleteReturnsArtifacts(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	pl, jobs := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CIPending), storeCIJob("b", domain.CIPending))
	keep, keepJobs := storePipeline(t, s, p, "main", storeSHA2, storeCIJob("c", domain.CIPending))
	var want []domain.Artifact
	for _, j := range append(jobs, keepJobs...) {
		a := &domain.Artifact{JobID: j.ID, Type: "archive", Format: "zip", Filename: "artifacts.zip", Size: 10,
			Key: domain.ArtifactKey(p.ID, j.ID, "archive"), CreatedAt: storeT0}
		if _, err := s.Artifacts.Create(ctx, a); err != nil {
			t.Fatalf("create artifact: %v", err)
		}
		if j.PipelineID == pl.ID {
			want = append(want, *a)
		}
	}
	if _, err := s.Jobs.AppendTrace(ctx, jobs[0].ID, 0, []byte("log")); err != nil {
		t.Fatal(err)
	}
	_, err := s.Pipelines.Delete(ctx, p.ID+1000, pl.ID)
	storeWantKind(t, err, core.ErrNotFound, "Delete in another project")
	got, err := s.Pipelines.Delete(ctx, p.ID, pl.ID)
	if err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Delete's artifacts (-want +got):\n%s", diff)
	}
	_, err = s.Jobs.GetByID(ctx, jobs[0].ID)
	storeWantKind(t, err, core.ErrNotFound, "job of a deleted pipeline")
	if tr, err := s.Jobs.Trace(ctx, jobs[0].ID); err != nil || len(tr) != 0 {
		t.Errorf("trace of a deleted job = %q, %v", tr, err)
	}
	if arts, err := s.Artifacts.OfJobs(ctx, []int64{jobs[0].ID, jobs[1].ID, keepJobs[0].ID}); err != nil || len(arts) != 1 || len(arts[keepJobs[0].ID]) != 1 {
		t.Errorf("artifacts left = %v, %v; want only the other pipeline's", arts, err)
	}
	_, err = s.Pipelines.Delete(ctx, p.ID, pl.ID)
	storeWantKind(t, err, core.ErrNotFound, "second Delete")
	if _, err := s.Pipelines.Get(ctx, p.ID, keep.ID); err != nil {
		t.Errorf("other pipeline: %v", err)
	}
}

func storePipelineLatest(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	onMain, _ := storePipeline(t, s, p, "main", storeSHA1)
	onFeature, _ := storePipeline(t, s, p, "feature", storeSHA1)
	for ref, want := range map[string]int64{"": onFeature.ID, "main": onMain.ID, "feature": onFeature.ID} {
		got, err := s.Pipelines.Latest(ctx, p.ID, storeSHA1, ref)
		if err != nil || got.ID != want {
			t.Errorf("Latest(ref %q) = %v, %v; want %d", ref, got, err, want)
		}
	}
	_, err := s.Pipelines.Latest(ctx, p.ID, storeSHA2, "")
	storeWantKind(t, err, core.ErrNotFound, "Latest of a commit without pipelines")
	_, err = s.Pipelines.Latest(ctx, p.ID, storeSHA1, "other")
	storeWantKind(t, err, core.ErrNotFound, "Latest on another ref")
}

func storePipelineLatestOfSHAs(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	storePipeline(t, s, p, "main", storeSHA1)
	latest1, _ := storePipeline(t, s, p, "feature", storeSHA1)
	latest2, _ := storePipeline(t, s, p, "main", storeSHA2)
	storePipeline(t, s, other, "main", storeSHA1)
	storePipeline(t, s, other, "main", storeSHA1)
	sha3 := "3333333333333333333333333333333333333333"
	got, err := s.Pipelines.LatestOfSHAs(ctx, p.ID, []string{storeSHA1, storeSHA2, sha3, storeSHA1})
	if err != nil {
		t.Fatalf("LatestOfSHAs: %v", err)
	}
	want := map[string]int64{storeSHA1: latest1.ID, storeSHA2: latest2.ID}
	gotIDs := map[string]int64{}
	for sha, pl := range got {
		gotIDs[sha] = pl.ID
		if pl.SHA != sha {
			t.Errorf("pipeline %d under %s has SHA %s", pl.ID, sha, pl.SHA)
		}
	}
	if diff := cmp.Diff(want, gotIDs); diff != "" {
		t.Errorf("LatestOfSHAs (-want +got):\n%s", diff)
	}
	if got, err := s.Pipelines.LatestOfSHAs(ctx, p.ID, nil); err != nil || len(got) != 0 {
		t.Errorf("LatestOfSHAs(none) = %v, %v", got, err)
	}
}

func storeJobCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	pl, _ := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("build", domain.CISuccess))
	status := &domain.Job{PipelineID: pl.ID, Kind: domain.JobExternal, Name: "ci/jenkins", Stage: "external",
		Status: domain.CIRunning, Ref: "main", SHA: storeSHA1, Description: "Jenkins is running",
		TargetURL: "https://ci.example.com/1", Coverage: storePtr(12.5), CreatedAt: storeT0}
	if err := s.Jobs.Create(ctx, status); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if status.ID <= 0 || status.ProjectID != p.ID || status.UpdatedAt != storeT0 {
		t.Fatalf("Create set ID %d, project %d, updated %v", status.ID, status.ProjectID, status.UpdatedAt)
	}
	for what, get := range map[string]func() (*domain.Job, error){
		"Get":     func() (*domain.Job, error) { return s.Jobs.Get(ctx, p.ID, status.ID) },
		"GetByID": func() (*domain.Job, error) { return s.Jobs.GetByID(ctx, status.ID) },
	} {
		got, err := get()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if diff := cmp.Diff(status, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	_, err := s.Jobs.Get(ctx, p.ID+1000, status.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get in another project")
	_, err = s.Jobs.GetByToken(ctx, domain.TokenDigest("nope"))
	storeWantKind(t, err, core.ErrNotFound, "GetByToken of an unknown token")
	storeWantKind(t, s.Jobs.Create(ctx, &domain.Job{PipelineID: pl.ID + 1000, Name: "x", Status: domain.CICreated}), core.ErrNotFound, "Create in an unknown pipeline")
}

func storeJobList(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	lint := storeCIJob("lint", domain.CISuccess)
	lint.Stage, lint.StageIdx = "lint", 0
	retried := storeCIJob("test", domain.CIFailed)
	retried.Retried = true
	pl1, j1 := storePipeline(t, s, p, "main", storeSHA1, lint, retried, storeCIJob("test", domain.CIPending))
	pl2, j2 := storePipeline(t, s, p, "feature", storeSHA2, storeCIJob("test", domain.CIRunning))
	storePipeline(t, s, other, "main", storeSHA1, storeCIJob("test", domain.CIPending))
	ext := &domain.Job{PipelineID: pl2.ID, Kind: domain.JobExternal, Name: "ci/ext", Status: domain.CISuccess, Ref: "feature", SHA: storeSHA2}
	if err := s.Jobs.Create(ctx, ext); err != nil {
		t.Fatal(err)
	}
	list := func(f domain.JobFilter) ([]int64, int, error) {
		got, n, err := s.Jobs.List(ctx, f)
		return storeJobIDs(got), n, err
	}
	ids, n, err := list(domain.JobFilter{ProjectID: p.ID})
	storeWantList(t, "project", ids, n, err, []int64{ext.ID, j2[0].ID, j1[2].ID, j1[1].ID, j1[0].ID}, 5)
	ids, n, err = list(domain.JobFilter{ProjectID: p.ID, Kind: domain.JobBuild, Latest: true})
	storeWantList(t, "latest builds", ids, n, err, []int64{j2[0].ID, j1[2].ID, j1[0].ID}, 3)
	ids, n, err = list(domain.JobFilter{ProjectID: p.ID, Statuses: []domain.CIStatus{domain.CIPending, domain.CIRunning}})
	storeWantList(t, "scope", ids, n, err, []int64{j2[0].ID, j1[2].ID}, 2)
	ids, n, err = list(domain.JobFilter{PipelineID: pl1.ID, Stage: "test"})
	storeWantList(t, "pipeline and stage", ids, n, err, []int64{j1[2].ID, j1[1].ID}, 2)
	ids, n, err = list(domain.JobFilter{ProjectID: p.ID, SHA: storeSHA2, Kind: domain.JobExternal})
	storeWantList(t, "commit statuses", ids, n, err, []int64{ext.ID}, 1)
	ids, n, err = list(domain.JobFilter{ProjectID: p.ID, Ref: "main", Name: "test"})
	storeWantList(t, "ref and name", ids, n, err, []int64{j1[2].ID, j1[1].ID}, 2)
	ids, n, err = list(domain.JobFilter{ProjectID: p.ID, Page: domain.Page{Page: 2, PerPage: 2}})
	storeWantList(t, "page 2", ids, n, err, []int64{j1[2].ID, j1[1].ID}, 5)
	r := storeRunner(t, s, "r", func(r *domain.Runner) { r.IsShared = true })
	first, second := storeClaim(t, s, r), storeClaim(t, s, r)
	if first == nil || second == nil {
		t.Fatal("no jobs claimed")
	}
	ids, n, err = list(domain.JobFilter{RunnerID: r.ID})
	storeWantList(t, "runner", ids, n, err, []int64{second.ID, first.ID}, 2)
	ids, n, err = list(domain.JobFilter{RunnerID: r.ID, ProjectID: p.ID})
	storeWantList(t, "runner in a project", ids, n, err, []int64{j1[2].ID}, 1)
}

func storeJobUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	_, jobs := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("manual", domain.CIManual, "old"))
	j := jobs[0]
	if _, err := s.Jobs.AppendTrace(ctx, j.ID, 0, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Jobs.QueueVersion(ctx)
	got, err := s.Jobs.Update(ctx, j.ID, func(x *domain.Job) error {
		x.Status, x.Tags, x.PipelineID, x.TraceSize = domain.CIPending, []string{"new"}, 999, 0
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got.Status != domain.CIPending || got.PipelineID != j.PipelineID || got.TraceSize != 3 || got.QueuedAt == nil || !got.UpdatedAt.After(storeT0) {
		t.Errorf("Update = %+v; want pending, same pipeline, trace size kept, queued", got)
	}
	if diff := cmp.Diff([]string{"new"}, got.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if after, _ := s.Jobs.QueueVersion(ctx); after == before {
		t.Errorf("QueueVersion stayed %s when a job became pending", after)
	}
	again, _ := s.Jobs.GetByID(ctx, j.ID)
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	// The new tags are the ones Claim matches.
	r := storeRunner(t, s, "r", func(r *domain.Runner) { r.IsShared, r.Tags = true, []string{"old"} })
	if c := storeClaim(t, s, r); c != nil {
		t.Errorf("a runner with the old tag claimed job %d", c.ID)
	}
	r.Tags = []string{"new"}
	if c := storeClaim(t, s, r); c == nil || c.ID != j.ID {
		t.Errorf("a runner with the new tag claimed %v", c)
	}
	_, err = s.Jobs.Update(ctx, j.ID+100, func(*domain.Job) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update of a missing job")
}

// storePipelineLock: Lock inside a transaction takes the pipeline's lock
// and writes nothing (UpdatedAt stays); a missing pipeline is not found.
func storePipelineLock(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	pl, _ := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CIPending))
	if err := s.Tx.WithinTx(ctx, func(ctx context.Context) error { return s.Pipelines.Lock(ctx, pl.ID) }); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	got, err := s.Pipelines.GetByID(ctx, pl.ID)
	if err != nil || !got.UpdatedAt.Equal(pl.UpdatedAt) {
		t.Fatalf("after Lock: %v, updated_at %v, want %v unchanged", err, got, pl.UpdatedAt)
	}
	err = s.Tx.WithinTx(ctx, func(ctx context.Context) error { return s.Pipelines.Lock(ctx, pl.ID+100) })
	storeWantKind(t, err, core.ErrNotFound, "lock of a missing pipeline")
}
