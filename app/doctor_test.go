package app_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/modules/doctor"
)

// TestDoctor: on a clean server the doctor finds nothing. Then a
// repository is deleted, an open merge request's source branch is deleted
// in the bare repository, an artifact's file and an archived trace are
// removed from the blob directory, and a branch that does not exist is
// protected: the doctor reports each with its fix. --repair creates the
// repository empty, recreates the branch at the commit the merge request
// recorded and drops the artifact's record; what remains is reported: the
// branches of beta's merge request, whose commits went with the
// repository, and the two warnings, which no repair touches.
func TestDoctor(t *testing.T) {
	t.Parallel()
	var svc *doctor.Service
	var blobs ports.BlobStore
	srv := apptest.New(t, apptest.With(app.Doctor(), fx.Populate(&svc, &blobs)))
	ctx := t.Context()

	alpha := newMREnv(t, srv, "alpha")
	alpha.commit("master", "", "init", mrAdd("README", "hello\n"))
	featureHead := alpha.commit("feature", "master", "feature", mrAdd("feature.txt", "f\n"))
	mr := alpha.open(srv.RootToken, "feature", "master", "Feature")
	srv.JSON(t, "PUT", fmt.Sprintf("/projects/%d/repository/branches/master/protect", alpha.pid), srv.RootToken, nil, 200, nil)
	beta := newMREnv(t, srv, "beta")
	beta.commit("master", "", "init", mrAdd("README", "beta\n"))
	beta.commit("topic", "master", "topic", mrAdd("topic.txt", "t\n"))
	betaMR := beta.open(srv.RootToken, "topic", "master", "Topic")

	// A finished CI job with two artifacts and an archived trace.
	now := time.Now().UTC()
	pl := &domain.Pipeline{ProjectID: alpha.pid, Ref: "master", SHA: featureHead, Status: domain.CISuccess, Source: "push", CreatedAt: now, UpdatedAt: now}
	if err := srv.Store.Pipelines().Create(ctx, pl, []domain.Job{{Kind: domain.JobBuild, Name: "build", Stage: "test",
		Status: domain.CIRunning, Ref: "master", SHA: featureHead, When: domain.WhenOnSuccess, CreatedAt: now, UpdatedAt: now}}); err != nil {
		t.Fatal(err)
	}
	jobs, err := srv.Store.Jobs().OfPipeline(ctx, pl.ID)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs of the seeded pipeline: %v, %v", jobs, err)
	}
	job := jobs[0]
	if _, err := srv.Store.Jobs().AppendTrace(ctx, job.ID, 0, []byte("$ make\nok\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Store.Jobs().Update(ctx, job.ID, func(j *domain.Job) error { j.Status = domain.CISuccess; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.Write(ctx, domain.TraceKey(alpha.pid, job.ID), strings.NewReader("$ make\nok\n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := srv.Store.Jobs().DeleteTrace(ctx, job.ID); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"archive", "metadata"} {
		key := domain.ArtifactKey(alpha.pid, job.ID, typ)
		n, err := blobs.Write(ctx, key, strings.NewReader("PK "+typ), 0)
		if err != nil {
			t.Fatal(err)
		}
		a := &domain.Artifact{JobID: job.ID, Type: typ, Format: "zip", Filename: typ + ".zip", Size: n, Key: key}
		if _, err := srv.Store.Artifacts().Create(ctx, a); err != nil {
			t.Fatal(err)
		}
	}

	run := func(repair bool) *doctor.Report {
		t.Helper()
		rep, err := svc.Run(ctx, doctor.Options{Repair: repair})
		if err != nil {
			t.Fatalf("doctor (repair %v): %v", repair, err)
		}
		var out bytes.Buffer
		if err := rep.Write(&out); err != nil {
			t.Fatal(err)
		}
		t.Logf("doctor (repair %v):\n%s", repair, out.String())
		return rep
	}
	// find returns the one problem whose What contains every part.
	find := func(rep *doctor.Report, parts ...string) doctor.Problem {
		t.Helper()
		var found []doctor.Problem
	next:
		for _, p := range rep.Problems {
			for _, part := range parts {
				if !strings.Contains(p.What, part) {
					continue next
				}
			}
			found = append(found, p)
		}
		if len(found) != 1 {
			t.Fatalf("%d problems name %q, want 1: %+v", len(found), parts, rep.Problems)
		}
		return found[0]
	}

	rep := run(false)
	if len(rep.Problems) != 0 || !strings.HasSuffix(rep.Summary(), "no problems found") {
		t.Fatalf("clean server: %+v, %s", rep.Problems, rep.Summary())
	}
	if rep.Projects != 2 || rep.MergeRequests != 2 || rep.Artifacts != 2 || rep.Traces != 1 {
		t.Fatalf("clean server: checked %s, want 2 projects, 2 merge requests, 2 artifacts, 1 trace", rep.Summary())
	}

	// Break things behind the server's back.
	if err := os.RemoveAll(srv.RepoDir(beta.pid)); err != nil {
		t.Fatal(err)
	}
	alpha.git("update-ref", "-d", "refs/heads/feature")
	blobDir := filepath.Join(srv.Config.DataDir, "blobs")
	lostKey := domain.ArtifactKey(alpha.pid, job.ID, "archive")
	for _, key := range []string{lostKey, domain.TraceKey(alpha.pid, job.ID)} {
		if err := os.Remove(filepath.Join(blobDir, filepath.FromSlash(key))); err != nil {
			t.Fatalf("remove blob file: %v", err)
		}
	}
	if _, err := srv.Store.ProtectedBranches().Protect(ctx, domain.ProtectedBranch{ProjectID: alpha.pid, Name: "release", PushAccessLevel: domain.Master, MergeAccessLevel: domain.Master}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Store.ProtectedBranches().Protect(ctx, domain.ProtectedBranch{ProjectID: alpha.pid, Name: "stable-*", PushAccessLevel: domain.Master, MergeAccessLevel: domain.Master}); err != nil {
		t.Fatal(err)
	}

	rep = run(false)
	if errs, warnings := rep.Remaining(); errs != 3 || warnings != 2 || len(rep.Problems) != 5 {
		t.Fatalf("broken server: %d errors, %d warnings in %+v; want 3 and 2", errs, warnings, rep.Problems)
	}
	missingRepo := find(rep, fmt.Sprintf("(id %d)", beta.pid), "is missing")
	if missingRepo.Severity != doctor.Error || !strings.Contains(missingRepo.Fix, "backup") || !strings.Contains(missingRepo.Fix, "history is lost") {
		t.Errorf("missing repository: %+v", missingRepo)
	}
	branch := find(rep, fmt.Sprintf("merge request !%d", mr.IID), `source branch "feature"`)
	if branch.Severity != doctor.Error || !strings.Contains(branch.Fix, "recreate it at "+featureHead) {
		t.Errorf("missing merge request branch: %+v", branch)
	}
	artifact := find(rep, lostKey)
	if artifact.Severity != doctor.Error || !strings.Contains(artifact.Fix, "deletes the artifact's record") {
		t.Errorf("missing artifact file: %+v", artifact)
	}
	if p := find(rep, `protected branch "release"`); p.Severity != doctor.Warning {
		t.Errorf("missing protected branch: %+v", p)
	}
	if p := find(rep, "archived trace"); p.Severity != doctor.Warning {
		t.Errorf("missing archived trace: %+v", p)
	}
	for _, p := range rep.Problems {
		if p.Repaired != "" {
			t.Errorf("repaired without --repair: %+v", p)
		}
	}
	if !alpha.hasBranch("master") || alpha.hasBranch("feature") {
		t.Fatal("a run without --repair changed the repository")
	}

	rep = run(true)
	if errs, warnings := rep.Remaining(); errs != 2 || warnings != 2 || rep.Repaired() != 3 {
		t.Fatalf("repair: %d errors and %d warnings remain, %d repaired: %+v; want 2, 2, 3", errs, warnings, rep.Repaired(), rep.Problems)
	}
	for _, b := range []string{`source branch "topic"`, `target branch "master"`} {
		p := find(rep, fmt.Sprintf("(id %d)", beta.pid), fmt.Sprintf("merge request !%d", betaMR.IID), b)
		if p.Severity != doctor.Error || p.Repaired != "" || !strings.Contains(p.Fix, "push the branch again, or close the merge request") {
			t.Errorf("branch of a merge request in the recreated repository: %+v", p)
		}
	}
	if got := alpha.head("feature"); got != featureHead {
		t.Errorf("feature recreated at %s, want %s", got, featureHead)
	}
	if empty, err := srv.Repos.IsEmpty(ctx, domain.RepoPath(beta.pid)); err != nil || !empty {
		t.Errorf("beta's repository after repair: empty %v, %v; want an empty repository", empty, err)
	}
	arts, err := srv.Store.Artifacts().OfJobs(ctx, []int64{job.ID})
	if err != nil || len(arts[job.ID]) != 1 || arts[job.ID][0].Type != "metadata" {
		t.Errorf("artifacts after repair: %+v, %v; want only the metadata one", arts, err)
	}
	var j struct {
		ArtifactsFile any `json:"artifacts_file"`
	}
	srv.JSON(t, "GET", fmt.Sprintf("/projects/%d/jobs/%d", alpha.pid, job.ID), srv.RootToken, nil, 200, &j)
	if j.ArtifactsFile != nil {
		t.Errorf("the API still offers the lost artifact: %v", j.ArtifactsFile)
	}
	// The merge request works again: its source branch is back.
	var got mrJSON
	srv.JSON(t, "GET", alpha.mrPath(mr.IID, ""), srv.RootToken, nil, 200, &got)
	if got.State != "opened" || got.SHA != featureHead {
		t.Errorf("merge request after repair: %+v", got)
	}

	rep = run(false)
	if errs, warnings := rep.Remaining(); errs != 2 || warnings != 2 || len(rep.Problems) != 4 {
		t.Fatalf("after repair: %+v; want beta's two branches and the two warnings", rep.Problems)
	}
	if _, _, err := blobs.Open(ctx, lostKey); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("lost blob: %v", err)
	}
}
