package contracttests

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core/domain"
)

// artifactKeepCases hold ArtifactStore.Keep (the jobs API's artifacts/keep).
func artifactKeepCases() []storeCase {
	return []storeCase{
		{"ArtifactKeep", storeArtifactKeep},
	}
}

// storeArtifactKeep: Keep clears the expiry of every artifact of one job,
// and of that job only; the kept ones no longer expire.
func storeArtifactKeep(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	_, jobs := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("a", domain.CISuccess), storeCIJob("b", domain.CISuccess))
	expire := storePtr(storeT0.Add(time.Hour))
	archive, _ := storeArtifact(t, s, jobs[0], "archive", expire)
	meta, _ := storeArtifact(t, s, jobs[0], "metadata", expire)
	other, _ := storeArtifact(t, s, jobs[1], "archive", expire)
	if err := s.Artifacts.Keep(ctx, jobs[0].ID); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	got, err := s.Artifacts.OfJobs(ctx, []int64{jobs[0].ID, jobs[1].ID})
	if err != nil {
		t.Fatalf("OfJobs: %v", err)
	}
	archive.ExpireAt, meta.ExpireAt = nil, nil
	want := map[int64][]domain.Artifact{jobs[0].ID: {*archive, *meta}, jobs[1].ID: {*other}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after Keep (-want +got):\n%s", diff)
	}
	expired, err := s.Artifacts.Expired(ctx, storeT0.Add(2*time.Hour), 10)
	if err != nil {
		t.Fatalf("Expired: %v", err)
	}
	if len(expired) != 1 || expired[0].ID != other.ID {
		t.Errorf("Expired after Keep = %+v, want only job b's archive", expired)
	}
	if err := s.Artifacts.Keep(ctx, jobs[1].ID+100); err != nil {
		t.Errorf("Keep of a job without artifacts: %v", err)
	}
}
