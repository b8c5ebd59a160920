package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestScopeStatuses(t *testing.T) {
	t.Parallel()
	got, err := scopeStatuses("scope", []string{"success", "manual"})
	if err != nil || len(got) != 2 || got[1] != domain.CIManual {
		t.Errorf("valid scope: %v %v", got, err)
	}
	if got, err := scopeStatuses("scope", nil); err != nil || len(got) != 0 {
		t.Errorf("no scope: %v %v", got, err)
	}
	_, err = scopeStatuses("scope", []string{"success", "started"})
	var e *core.Error
	if !errors.As(err, &e) || !e.Param || e.Msg != "scope does not have a valid value" {
		t.Errorf("invalid scope: %v", err)
	}
}

func TestStatusInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   StatusInput
		name string
		err  string
	}{
		{StatusInput{State: "success"}, "default", ""},
		{StatusInput{State: "running", Context: "ci/x"}, "ci/x", ""},
		{StatusInput{State: "failed", Name: "n", Context: "c"}, "n", ""},
		{StatusInput{}, "default", "state is missing"},
		{StatusInput{State: "skipped"}, "default", "state does not have a valid value"},
	} {
		err := tc.in.validate()
		if got := tc.in.statusName(); got != tc.name {
			t.Errorf("%+v: name %q, want %q", tc.in, got, tc.name)
		}
		if (err == nil) != (tc.err == "") || (err != nil && err.(*core.Error).Msg != tc.err) {
			t.Errorf("%+v: %v, want %q", tc.in, err, tc.err)
		}
	}
}

// TestTransition: the commit status API's state changes, with GitLab's
// messages for the ones the state machine refuses.
func TestTransition(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		from  domain.CIStatus
		state string
		to    domain.CIStatus
		msg   string
	}{
		{domain.CICreated, "pending", domain.CIPending, ""},
		{domain.CICreated, "running", domain.CIRunning, ""},
		{domain.CIPending, "running", domain.CIRunning, ""},
		{domain.CICreated, "success", domain.CISuccess, ""},
		{domain.CIRunning, "failed", domain.CIFailed, ""},
		{domain.CIPending, "canceled", domain.CICanceled, ""},
		{domain.CIRunning, "running", "", `Cannot transition status via :run from :running (Reason(s): Status cannot transition via "run")`},
		{domain.CIPending, "pending", "", `Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")`},
		{domain.CISuccess, "failed", "", `Cannot transition status via :drop from :success (Reason(s): Status cannot transition via "drop")`},
	} {
		j := &domain.Job{Kind: domain.JobExternal, Status: tc.from}
		err := transition(j, tc.state, now)
		if tc.msg == "" {
			if err != nil || j.Status != tc.to {
				t.Errorf("%s -> %s: %v, status %s", tc.from, tc.state, err, j.Status)
			}
			continue
		}
		var e *core.Error
		if !errors.As(err, &e) || e.Msg != tc.msg || !errors.Is(err, core.ErrInvalid) {
			t.Errorf("%s -> %s: %v, want %q", tc.from, tc.state, err, tc.msg)
		}
	}
}
