package contracttests

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func storeRunnerIDs(rs []domain.Runner) []int64 {
	return storeIDs(rs, func(r domain.Runner) int64 { return r.ID })
}

func storeRunnerCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	r := &domain.Runner{TokenDigest: domain.TokenDigest("secret"), Description: "docker builder", Active: true, Locked: true,
		Tags: []string{"docker", "linux"}, AccessLevel: domain.RunnerRefProtected, MaximumTimeout: 3600,
		Name: "gitlab-runner", Version: "17.11.0", Revision: "abc", Platform: "linux", Architecture: "amd64",
		IPAddress: "192.0.2.1", ContactedAt: storePtr(storeT0.Add(time.Minute)), CreatedAt: storeT0.In(time.FixedZone("X", 7200))}
	if err := s.Runners.Create(ctx, r); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if r.ID <= 0 || r.CreatedAt != storeT0 {
		t.Fatalf("Create set ID %d, created %v", r.ID, r.CreatedAt)
	}
	if err := s.Runners.AddProject(ctx, r.ID, p.ID); err != nil {
		t.Fatalf("AddProject: %v", err)
	}
	want := *r
	want.ProjectIDs = []int64{p.ID}
	for what, get := range map[string]func() (*domain.Runner, error){
		"Get":        func() (*domain.Runner, error) { return s.Runners.Get(ctx, r.ID) },
		"GetByToken": func() (*domain.Runner, error) { return s.Runners.GetByToken(ctx, r.TokenDigest) },
	} {
		got, err := get()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	dup := &domain.Runner{TokenDigest: r.TokenDigest, Active: true}
	storeWantKind(t, s.Runners.Create(ctx, dup), core.ErrConflict, "Create with a taken token digest")
	_, err := s.Runners.Get(ctx, r.ID+100)
	storeWantKind(t, err, core.ErrNotFound, "Get of a missing runner")
	_, err = s.Runners.GetByToken(ctx, domain.TokenDigest("other"))
	storeWantKind(t, err, core.ErrNotFound, "GetByToken of an unknown token")
	defaults := storeRunner(t, s, "defaults", func(r *domain.Runner) { r.AccessLevel = "" })
	if got, _ := s.Runners.Get(ctx, defaults.ID); got.AccessLevel != domain.RunnerNotProtected || got.Tags != nil || got.ProjectIDs != nil {
		t.Errorf("defaults: access level %q, tags %v, projects %v", got.AccessLevel, got.Tags, got.ProjectIDs)
	}
}

func storeRunnerList(t *testing.T, s Stores) {
	ctx := t.Context()
	p1, p2 := storeCIProject(t, s, "p1", nil), storeCIProject(t, s, "p2", nil)
	r1 := storeRunner(t, s, "r1", func(r *domain.Runner) { r.IsShared = true })
	r2 := storeRunner(t, s, "r2", func(r *domain.Runner) { r.Active = false })
	r3 := storeRunner(t, s, "r3", nil)
	r4 := storeRunner(t, s, "r4", func(r *domain.Runner) { r.IsShared = true })
	for _, link := range [][2]int64{{r2.ID, p1.ID}, {r3.ID, p2.ID}, {r3.ID, p1.ID}} {
		if err := s.Runners.AddProject(ctx, link[0], link[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Runners.Contacted(ctx, r3.ID, storeT0.Add(time.Hour), domain.Runner{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Runners.Contacted(ctx, r4.ID, storeT0, domain.Runner{}); err != nil {
		t.Fatal(err)
	}
	list := func(f domain.RunnerFilter) ([]int64, int, error) {
		got, n, err := s.Runners.List(ctx, f)
		return storeRunnerIDs(got), n, err
	}
	ids, n, err := list(domain.RunnerFilter{})
	storeWantList(t, "all", ids, n, err, []int64{r1.ID, r2.ID, r3.ID, r4.ID}, 4)
	ids, n, err = list(domain.RunnerFilter{Scope: "active"})
	storeWantList(t, "active", ids, n, err, []int64{r1.ID, r3.ID, r4.ID}, 3)
	ids, n, err = list(domain.RunnerFilter{Scope: "paused"})
	storeWantList(t, "paused", ids, n, err, []int64{r2.ID}, 1)
	ids, n, err = list(domain.RunnerFilter{Scope: "shared"})
	storeWantList(t, "shared", ids, n, err, []int64{r1.ID, r4.ID}, 2)
	ids, n, err = list(domain.RunnerFilter{Scope: "specific"})
	storeWantList(t, "specific", ids, n, err, []int64{r2.ID, r3.ID}, 2)
	ids, n, err = list(domain.RunnerFilter{Scope: "online", OnlineSince: storeT0.Add(time.Minute)})
	storeWantList(t, "online", ids, n, err, []int64{r3.ID}, 1)
	ids, n, err = list(domain.RunnerFilter{ProjectIDs: []int64{p1.ID, p2.ID}})
	storeWantList(t, "of projects", ids, n, err, []int64{r2.ID, r3.ID}, 2)
	ids, n, err = list(domain.RunnerFilter{ProjectIDs: []int64{p2.ID}, Scope: "active"})
	storeWantList(t, "active of a project", ids, n, err, []int64{r3.ID}, 1)
	ids, n, err = list(domain.RunnerFilter{IDs: []int64{r4.ID, r2.ID, r4.ID + 100}})
	storeWantList(t, "IDs", ids, n, err, []int64{r2.ID, r4.ID}, 2)
	ids, n, err = list(domain.RunnerFilter{IDs: []int64{}})
	storeWantList(t, "no IDs", ids, n, err, nil, 0)
	ids, n, err = list(domain.RunnerFilter{Page: domain.Page{Page: 2, PerPage: 3}})
	storeWantList(t, "page 2", ids, n, err, []int64{r4.ID}, 4)
	got, _, err := s.Runners.List(ctx, domain.RunnerFilter{Scope: "specific"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]int64{{p1.ID}, {p1.ID, p2.ID}}, [][]int64{got[0].ProjectIDs, got[1].ProjectIDs}); diff != "" {
		t.Errorf("listed runners' projects (-want +got):\n%s", diff)
	}
}

func storeRunnerUpdateDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	r := storeRunner(t, s, "r", nil)
	if err := s.Runners.AddProject(ctx, r.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Runners.Update(ctx, r.ID, func(x *domain.Runner) error {
		x.Description, x.Active, x.Tags, x.RunUntagged, x.ProjectIDs = "renamed", false, []string{"gpu"}, false, nil
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	again, _ := s.Runners.Get(ctx, r.ID)
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if got.Description != "renamed" || got.Active || got.RunUntagged || len(got.Tags) != 1 || len(got.ProjectIDs) != 1 {
		t.Errorf("Update = %+v (projects are not saved by Update)", got)
	}
	other := storeRunner(t, s, "other", nil)
	_, err = s.Runners.Update(ctx, other.ID, func(x *domain.Runner) error { x.TokenDigest = r.TokenDigest; return nil })
	storeWantKind(t, err, core.ErrConflict, "Update onto a taken token digest")

	if err := s.Runners.Contacted(ctx, r.ID, storeT0.Add(time.Hour), domain.Runner{Version: "17.11.0", IPAddress: "192.0.2.9"}); err != nil {
		t.Fatalf("Contacted: %v", err)
	}
	if err := s.Runners.Contacted(ctx, r.ID, storeT0.Add(2*time.Hour), domain.Runner{Platform: "linux"}); err != nil {
		t.Fatalf("Contacted: %v", err)
	}
	seen, _ := s.Runners.Get(ctx, r.ID)
	if seen.ContactedAt == nil || !seen.ContactedAt.Equal(storeT0.Add(2*time.Hour)) || seen.Version != "17.11.0" || seen.Platform != "linux" || seen.IPAddress != "192.0.2.9" {
		t.Errorf("after Contacted: %+v", seen)
	}
	storeWantKind(t, s.Runners.Contacted(ctx, r.ID+100, storeT0, domain.Runner{}), core.ErrNotFound, "Contacted of a missing runner")

	// A deleted runner's jobs stay, without a runner.
	sharedR := storeRunner(t, s, "shared", func(r *domain.Runner) { r.IsShared = true })
	storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CIPending))
	j := storeClaim(t, s, sharedR)
	if j == nil {
		t.Fatal("no job claimed")
	}
	for _, id := range []int64{r.ID, sharedR.ID} {
		if err := s.Runners.Delete(ctx, id); err != nil {
			t.Fatalf("Delete: %v", err)
		}
	}
	storeWantKind(t, s.Runners.Delete(ctx, r.ID), core.ErrNotFound, "second Delete")
	_, err = s.Runners.Get(ctx, r.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get of a deleted runner")
	if got, err := s.Jobs.GetByID(ctx, j.ID); err != nil || got.RunnerID != nil {
		t.Errorf("job of a deleted runner = %+v, %v; want it without runner", got, err)
	}
	if ids, n, err := s.Runners.List(ctx, domain.RunnerFilter{ProjectIDs: []int64{p.ID}}); err != nil || n != 0 {
		t.Errorf("runners of the project after Delete = %v, %d, %v", ids, n, err)
	}
}

func storeRunnerProjects(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	r := storeRunner(t, s, "r", nil)
	if err := s.Runners.AddProject(ctx, r.ID, p.ID); err != nil {
		t.Fatalf("AddProject: %v", err)
	}
	storeWantKind(t, s.Runners.AddProject(ctx, r.ID, p.ID), core.ErrConflict, "second AddProject")
	storeWantKind(t, s.Runners.AddProject(ctx, r.ID, p.ID+100), core.ErrNotFound, "AddProject of a missing project")
	storeWantKind(t, s.Runners.AddProject(ctx, r.ID+100, p.ID), core.ErrNotFound, "AddProject of a missing runner")
	if err := s.Runners.RemoveProject(ctx, r.ID, p.ID); err != nil {
		t.Fatalf("RemoveProject: %v", err)
	}
	storeWantKind(t, s.Runners.RemoveProject(ctx, r.ID, p.ID), core.ErrNotFound, "second RemoveProject")
	if got, _ := s.Runners.Get(ctx, r.ID); len(got.ProjectIDs) != 0 {
		t.Errorf("projects after RemoveProject = %v", got.ProjectIDs)
	}
	// A deleted project leaves the runner.
	if err := s.Runners.AddProject(ctx, r.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatalf("delete project: %v", err)
	}
	if got, err := s.Runners.Get(ctx, r.ID); err != nil || len(got.ProjectIDs) != 0 {
		t.Errorf("runner after its project's deletion = %+v, %v", got, err)
	}
}

func storeRunnerRegistrationToken(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	for _, set := range []struct {
		project int64
		secret  string
	}{{p.ID, "one"}, {other.ID, "two"}, {p.ID, "three"}} {
		if err := s.Runners.SetRegistrationToken(ctx, set.project, domain.TokenDigest(set.secret)); err != nil {
			t.Fatalf("SetRegistrationToken(%d, %s): %v", set.project, set.secret, err)
		}
	}
	for secret, want := range map[string]int64{"two": other.ID, "three": p.ID} {
		if got, err := s.Runners.ProjectOfRegistrationToken(ctx, domain.TokenDigest(secret)); err != nil || got != want {
			t.Errorf("ProjectOfRegistrationToken(%s) = %d, %v; want %d", secret, got, err, want)
		}
	}
	_, err := s.Runners.ProjectOfRegistrationToken(ctx, domain.TokenDigest("one"))
	storeWantKind(t, err, core.ErrNotFound, "a replaced token")
	storeWantKind(t, s.Runners.SetRegistrationToken(ctx, p.ID+100, domain.TokenDigest("x")), core.ErrNotFound, "token of a missing project")
}

func storeVariableCRUD(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	for i, key := range []string{"TOKEN", "A_KEY", "DEPLOY"} {
		v := &domain.Variable{ProjectID: p.ID, Key: key, Value: fmt.Sprint("value ", i), Protected: i == 0, Masked: i == 0}
		if err := s.Variables.Create(ctx, v); err != nil {
			t.Fatalf("Create %s: %v", key, err)
		}
	}
	if err := s.Variables.Create(ctx, &domain.Variable{ProjectID: other.ID, Key: "TOKEN", Value: "other"}); err != nil {
		t.Fatalf("same key in another project: %v", err)
	}
	storeWantKind(t, s.Variables.Create(ctx, &domain.Variable{ProjectID: p.ID + 100, Key: "X"}), core.ErrNotFound, "Create in a missing project")
	got, err := s.Variables.Get(ctx, p.ID, "TOKEN")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := &domain.Variable{ProjectID: p.ID, Key: "TOKEN", Value: "value 0", Protected: true, Masked: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	list, n, err := s.Variables.List(ctx, p.ID, domain.Page{Page: 1, PerPage: 2})
	var keys []string
	for _, v := range list {
		keys = append(keys, v.Key)
	}
	if err != nil || n != 3 || !cmp.Equal(keys, []string{"A_KEY", "DEPLOY"}) {
		t.Errorf("List page 1 = %v, %d, %v; want A_KEY, DEPLOY of 3", keys, n, err)
	}
	upd, err := s.Variables.Update(ctx, p.ID, "DEPLOY", func(v *domain.Variable) error {
		v.Key, v.Value, v.Protected, v.ProjectID = "DEPLOY_TO", "prod", true, other.ID
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if diff := cmp.Diff(&domain.Variable{ProjectID: p.ID, Key: "DEPLOY_TO", Value: "prod", Protected: true}, upd); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if _, err := s.Variables.Get(ctx, p.ID, "DEPLOY_TO"); err != nil {
		t.Errorf("Get of the renamed key: %v", err)
	}
	_, err = s.Variables.Get(ctx, p.ID, "DEPLOY")
	storeWantKind(t, err, core.ErrNotFound, "Get of the old key")
	_, err = s.Variables.Update(ctx, p.ID, "DEPLOY_TO", func(v *domain.Variable) error { v.Key = "TOKEN"; return nil })
	storeWantTaken(t, err, "key", "Update onto a taken key")
	_, err = s.Variables.Update(ctx, p.ID, "NOPE", func(*domain.Variable) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update of a missing key")
	if err := s.Variables.Delete(ctx, p.ID, "TOKEN"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	storeWantKind(t, s.Variables.Delete(ctx, p.ID, "TOKEN"), core.ErrNotFound, "second Delete")
	if v, err := s.Variables.Get(ctx, other.ID, "TOKEN"); err != nil || v.Value != "other" {
		t.Errorf("other project's TOKEN = %v, %v", v, err)
	}
}

func storeVariableKeyTaken(t *testing.T, s Stores) {
	p := storeCIProject(t, s, "p", nil)
	if err := s.Variables.Create(t.Context(), &domain.Variable{ProjectID: p.ID, Key: "KEY", Value: "1"}); err != nil {
		t.Fatal(err)
	}
	storeWantTaken(t, s.Variables.Create(t.Context(), &domain.Variable{ProjectID: p.ID, Key: "KEY", Value: "2"}), "key", "Create of a taken key")
	errs := storeRace(func(i int) error {
		return s.Variables.Create(t.Context(), &domain.Variable{ProjectID: p.ID, Key: "RACE", Value: fmt.Sprint(i)})
	})
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
		} else if !errors.Is(err, core.ErrConflict) {
			t.Errorf("worker %d: %v, want a conflict", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d creations of one key succeeded, want 1", won)
	}
}

func storeArtifact(t *testing.T, s Stores, j domain.Job, typ string, expire *time.Time) (*domain.Artifact, *domain.Artifact) {
	t.Helper()
	a := &domain.Artifact{JobID: j.ID, Type: typ, Format: "zip", Filename: typ + ".zip", Size: 1024,
		Key: domain.ArtifactKey(j.ProjectID, j.ID, typ), SHA256: "abc", ExpireAt: expire, CreatedAt: storeT0}
	old, err := s.Artifacts.Create(t.Context(), a)
	if err != nil {
		t.Fatalf("create %s artifact of job %d: %v", typ, j.ID, err)
	}
	return a, old
}

func storeArtifactCreateReplace(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	_, jobs := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CISuccess), storeCIJob("b", domain.CISuccess))
	first, old := storeArtifact(t, s, jobs[0], "archive", nil)
	if old != nil || first.ID <= 0 || first.ProjectID != p.ID {
		t.Fatalf("first Create: %+v, replaced %v", first, old)
	}
	meta, _ := storeArtifact(t, s, jobs[0], "metadata", nil)
	other, _ := storeArtifact(t, s, jobs[1], "archive", nil)
	second, old := storeArtifact(t, s, jobs[0], "archive", storePtr(storeT0.Add(time.Hour)))
	if diff := cmp.Diff(first, old); diff != "" {
		t.Errorf("replaced artifact (-want +got):\n%s", diff)
	}
	got, err := s.Artifacts.OfJobs(ctx, []int64{jobs[0].ID, jobs[1].ID, jobs[1].ID + 100})
	if err != nil {
		t.Fatalf("OfJobs: %v", err)
	}
	want := map[int64][]domain.Artifact{jobs[0].ID: {*meta, *second}, jobs[1].ID: {*other}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OfJobs (-want +got):\n%s", diff)
	}
	_, err = s.Artifacts.Create(ctx, &domain.Artifact{JobID: jobs[1].ID + 100, Type: "archive", Key: "x"})
	storeWantKind(t, err, core.ErrNotFound, "Create for a missing job")
}

func storeArtifactDeleteOfJobExpired(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	_, jobs := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CISuccess), storeCIJob("b", domain.CISuccess))
	late, _ := storeArtifact(t, s, jobs[1], "archive", storePtr(storeT0.Add(2*time.Hour)))
	archive, _ := storeArtifact(t, s, jobs[0], "archive", storePtr(storeT0.Add(time.Hour)))
	meta, _ := storeArtifact(t, s, jobs[0], "metadata", storePtr(storeT0.Add(time.Hour)))
	trace, _ := storeArtifact(t, s, jobs[0], "trace", nil)
	expired, err := s.Artifacts.Expired(ctx, storeT0.Add(3*time.Hour), 10)
	if err != nil {
		t.Fatalf("Expired: %v", err)
	}
	artIDs := func(as []domain.Artifact) []int64 { return storeIDs(as, func(a domain.Artifact) int64 { return a.ID }) }
	if diff := cmp.Diff([]int64{archive.ID, meta.ID, late.ID}, artIDs(expired)); diff != "" {
		t.Errorf("Expired (-want +got):\n%s", diff)
	}
	if expired, _ := s.Artifacts.Expired(ctx, storeT0.Add(90*time.Minute), 1); !cmp.Equal([]int64{archive.ID}, artIDs(expired)) {
		t.Errorf("Expired with limit 1 = %v", artIDs(expired))
	}
	gone, err := s.Artifacts.DeleteOfJob(ctx, jobs[0].ID, "metadata", "archive")
	if err != nil {
		t.Fatalf("DeleteOfJob: %v", err)
	}
	if diff := cmp.Diff([]domain.Artifact{*archive, *meta}, gone); diff != "" {
		t.Errorf("DeleteOfJob (-want +got):\n%s", diff)
	}
	gone, err = s.Artifacts.DeleteOfJob(ctx, jobs[0].ID)
	if err != nil || !cmp.Equal([]int64{trace.ID}, artIDs(gone)) {
		t.Errorf("DeleteOfJob(all) = %v, %v; want the trace", artIDs(gone), err)
	}
	if err := s.Artifacts.Delete(ctx, late.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	storeWantKind(t, s.Artifacts.Delete(ctx, late.ID), core.ErrNotFound, "second Delete")
	if left, err := s.Artifacts.OfJobs(ctx, []int64{jobs[0].ID, jobs[1].ID}); err != nil || len(left) != 0 {
		t.Errorf("artifacts left = %v, %v", left, err)
	}
}
