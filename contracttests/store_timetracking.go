package contracttests

import (
	"errors"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// timeTrackingCases are the subtests of the time tracking store; an
// adapter without one skips them.
func timeTrackingCases() []storeCase {
	cases := []storeCase{
		{"TimeTrackingEstimateAndSpent", storeTimeTrackingEstimateAndSpent},
		{"TimeTrackingMissingItem", storeTimeTrackingMissingItem},
		{"ConcurrentAddSpentTime", storeConcurrentAddSpentTime},
	}
	for i, c := range cases {
		fn := c.fn
		cases[i].fn = func(t *testing.T, s Stores) {
			if s.TimeTracking == nil {
				t.Skip("the adapter provides no TimeTrackingStore")
			}
			fn(t, s)
		}
	}
	return cases
}

func storeTimeTrackingEstimateAndSpent(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "alice")
	p := storeProject(t, s, storeGroup(t, s, "g", nil, domain.Public), "p", nil)
	is := storeIssue(t, s, p, u.ID, "one", nil)
	other := storeIssue(t, s, p, u.ID, "two", nil)
	mr := storeMR(t, s, p, u.ID, "feature", nil)
	issue := domain.Subject{Type: domain.TargetIssue, ID: is.ID}
	want := func(what string, got domain.TimeStats, err error, estimate, spent int64) {
		t.Helper()
		if err != nil || got != (domain.TimeStats{TimeEstimate: estimate, TotalTimeSpent: spent}) {
			t.Errorf("%s = %+v, %v; want estimate %d, spent %d", what, got, err, estimate, spent)
		}
	}
	got, err := s.TimeTracking.TimeStats(ctx, issue)
	want("new issue", got, err, 0, 0)

	later := storeT0.Add(time.Hour)
	got, err = s.TimeTracking.SetEstimate(ctx, issue, 12600, later)
	want("SetEstimate", got, err, 12600, 0)
	updatedAt := func(what string, want time.Time) {
		t.Helper()
		read, err := s.Issues.Get(ctx, p.ID, is.IID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if !read.UpdatedAt.Equal(want) {
			t.Errorf("updated_at %s = %v, want %v", what, read.UpdatedAt, want)
		}
	}
	updatedAt("after a new estimate", later)
	got, err = s.TimeTracking.SetEstimate(ctx, issue, 12600, later.Add(time.Hour))
	want("SetEstimate again", got, err, 12600, 0)
	updatedAt("after the same estimate", later)

	got, err = s.TimeTracking.AddSpent(ctx, issue, 7200)
	want("AddSpent", got, err, 12600, 7200)
	got, err = s.TimeTracking.AddSpent(ctx, issue, -3600)
	want("AddSpent negative", got, err, 12600, 3600)
	_, err = s.TimeTracking.AddSpent(ctx, issue, -3601)
	var ce *core.Error
	if !errors.Is(err, core.ErrInvalid) || !errors.As(err, &ce) || len(ce.Fields["time_spent"]) != 1 {
		t.Errorf("AddSpent beyond the total: %v; want core.ErrInvalid on time_spent", err)
	}
	got, err = s.TimeTracking.TimeStats(ctx, issue)
	want("after a refused subtraction", got, err, 12600, 3600)
	got, err = s.TimeTracking.AddSpent(ctx, issue, -3600)
	want("AddSpent down to zero", got, err, 12600, 0)

	got, err = s.TimeTracking.AddSpent(ctx, issue, 60)
	want("AddSpent again", got, err, 12600, 60)
	got, err = s.TimeTracking.ResetSpent(ctx, issue)
	want("ResetSpent", got, err, 12600, 0)
	got, err = s.TimeTracking.SetEstimate(ctx, issue, 0, later)
	want("SetEstimate 0", got, err, 0, 0)

	// Other items, and merge requests (whose IDs may equal an issue's), keep their own.
	got, err = s.TimeTracking.AddSpent(ctx, domain.Subject{Type: domain.TargetMergeRequest, ID: mr.ID}, 300)
	want("merge request AddSpent", got, err, 0, 300)
	got, err = s.TimeTracking.SetEstimate(ctx, domain.Subject{Type: domain.TargetMergeRequest, ID: mr.ID}, 900, later)
	want("merge request SetEstimate", got, err, 900, 300)
	got, err = s.TimeTracking.TimeStats(ctx, domain.Subject{Type: domain.TargetIssue, ID: other.ID})
	want("other issue", got, err, 0, 0)

	// Editing the issue keeps its time stats.
	if _, err := s.TimeTracking.AddSpent(ctx, issue, 120); err != nil {
		t.Fatalf("AddSpent: %v", err)
	}
	if _, err := s.Issues.Update(ctx, p.ID, is.IID, func(i *domain.Issue) error { i.Title = "renamed"; return nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	got, err = s.TimeTracking.TimeStats(ctx, issue)
	want("after an issue update", got, err, 0, 120)
	// Every read of an issue or merge request carries its stats.
	read, err := s.Issues.Get(ctx, p.ID, is.IID)
	want("Issues.Get", read.TimeStats, err, 0, 120)
	readMR, err := s.MergeRequests.Get(ctx, p.ID, mr.IID)
	want("MergeRequests.Get", readMR.TimeStats, err, 900, 300)
}

func storeTimeTrackingMissingItem(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "alice")
	p := storeProject(t, s, storeGroup(t, s, "g", nil, domain.Public), "p", nil)
	is := storeIssue(t, s, p, u.ID, "gone", nil)
	if err := s.Issues.Delete(ctx, p.ID, is.IID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	for _, item := range []domain.Subject{{Type: domain.TargetIssue, ID: is.ID}, {Type: domain.TargetMergeRequest, ID: 99999}} {
		if _, err := s.TimeTracking.TimeStats(ctx, item); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("TimeStats of missing %v: %v; want core.ErrNotFound", item, err)
		}
		if _, err := s.TimeTracking.SetEstimate(ctx, item, 60, storeT0); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("SetEstimate of missing %v: %v; want core.ErrNotFound", item, err)
		}
		for _, n := range []int64{60, -60} {
			if _, err := s.TimeTracking.AddSpent(ctx, item, n); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("AddSpent %d of missing %v: %v; want core.ErrNotFound", n, item, err)
			}
		}
		if _, err := s.TimeTracking.ResetSpent(ctx, item); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ResetSpent of missing %v: %v; want core.ErrNotFound", item, err)
		}
	}
}

// storeConcurrentAddSpentTime: parallel additions and subtractions all
// count, and no subtraction overdraws.
func storeConcurrentAddSpentTime(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "alice")
	p := storeProject(t, s, storeGroup(t, s, "g", nil, domain.Public), "p", nil)
	mr := storeMR(t, s, p, u.ID, "feature", nil)
	item := domain.Subject{Type: domain.TargetMergeRequest, ID: mr.ID}
	const workers = 20
	for _, err := range storeRaceN(workers, func(int) error {
		_, err := s.TimeTracking.AddSpent(ctx, item, 60)
		return err
	}) {
		if err != nil {
			t.Fatalf("AddSpent: %v", err)
		}
	}
	if got, err := s.TimeTracking.TimeStats(ctx, item); err != nil || got.TotalTimeSpent != workers*60 {
		t.Fatalf("after %d additions: %+v, %v; want %d", workers, got, err, workers*60)
	}
	// Twice as many take a minute off: half succeed, the rest are refused.
	refused := 0
	for _, err := range storeRaceN(2*workers, func(int) error {
		_, err := s.TimeTracking.AddSpent(ctx, item, -60)
		return err
	}) {
		switch {
		case errors.Is(err, core.ErrInvalid):
			refused++
		case err != nil:
			t.Fatalf("AddSpent -60: %v", err)
		}
	}
	got, err := s.TimeTracking.TimeStats(ctx, item)
	if err != nil || got.TotalTimeSpent != 0 || refused != workers {
		t.Errorf("after %d subtractions: %+v, %v, %d refused; want 0 spent, %d refused", 2*workers, got, err, refused, workers)
	}
}
