package domain_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

func TestMergeRequestCloseAndReopen(t *testing.T) {
	t.Parallel()
	locked := now.Add(-time.Minute)
	cases := []struct {
		name    string
		m       domain.MergeRequest
		do      func(*domain.MergeRequest) error
		want    domain.MergeRequestState
		wantErr error
	}{
		{"close opened", domain.MergeRequest{State: domain.MROpened, MergeWhenPipelineSucceeds: true},
			func(m *domain.MergeRequest) error { return m.Close(now) }, domain.MRClosed, nil},
		{"close reopened", domain.MergeRequest{State: domain.MRReopened},
			func(m *domain.MergeRequest) error { return m.Close(now) }, domain.MRClosed, nil},
		{"close closed", domain.MergeRequest{State: domain.MRClosed},
			func(m *domain.MergeRequest) error { return m.Close(now) }, domain.MRClosed, domain.ErrInvalidTransition},
		{"close merged", domain.MergeRequest{State: domain.MRMerged},
			func(m *domain.MergeRequest) error { return m.Close(now) }, domain.MRMerged, domain.ErrInvalidTransition},
		{"close while merging", domain.MergeRequest{State: domain.MROpened, LockedAt: &locked},
			func(m *domain.MergeRequest) error { return m.Close(now) }, domain.MROpened, domain.ErrBeingMerged},
		{"reopen closed", domain.MergeRequest{State: domain.MRClosed, ClosedAt: &locked, MergeStatus: domain.MergeCanBeMerged},
			func(m *domain.MergeRequest) error { return m.Reopen() }, domain.MRReopened, nil},
		{"reopen opened", domain.MergeRequest{State: domain.MROpened},
			func(m *domain.MergeRequest) error { return m.Reopen() }, domain.MROpened, domain.ErrInvalidTransition},
		{"reopen merged", domain.MergeRequest{State: domain.MRMerged},
			func(m *domain.MergeRequest) error { return m.Reopen() }, domain.MRMerged, domain.ErrInvalidTransition},
		{"reopen while merging", domain.MergeRequest{State: domain.MROpened, LockedAt: &locked},
			func(m *domain.MergeRequest) error { return m.Reopen() }, domain.MROpened, domain.ErrBeingMerged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := c.m
			err := c.do(&m)
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, c.wantErr)
			}
			if m.State != c.want {
				t.Errorf("state %s, want %s", m.State, c.want)
			}
			if err != nil {
				if !reflect.DeepEqual(m, c.m) {
					t.Errorf("a refused transition changed the merge request: %+v", m)
				}
				return
			}
			switch m.State {
			case domain.MRClosed:
				if m.ClosedAt == nil || !m.ClosedAt.Equal(now) || m.MergeWhenPipelineSucceeds {
					t.Errorf("closed: closed_at %v, merge when pipeline succeeds %v", m.ClosedAt, m.MergeWhenPipelineSucceeds)
				}
			case domain.MRReopened:
				if m.ClosedAt != nil || m.MergeStatus != domain.MergeUnchecked {
					t.Errorf("reopened: closed_at %v, merge status %s", m.ClosedAt, m.MergeStatus)
				}
			}
		})
	}
}

func TestMergeRequestLockAndMerge(t *testing.T) {
	t.Parallel()
	asker, merger := int64(7), int64(9)
	m := domain.MergeRequest{State: domain.MROpened}
	if err := m.Lock(now, merger); err != nil {
		t.Fatalf("lock: %v", err)
	}
	if m.LockedAt == nil || !m.LockedAt.Equal(now) || m.MergeUserID == nil || *m.MergeUserID != merger {
		t.Fatalf("locked: %+v", m)
	}
	if err := m.Lock(now, asker); !errors.Is(err, domain.ErrBeingMerged) {
		t.Errorf("second lock: %v", err)
	}
	sha := "abc"
	m.InFlightSHA, m.MergeWhenPipelineSucceeds = sha, true
	if err := m.MarkMerged(now, &sha, asker); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if m.State != domain.MRMerged || m.LockedAt != nil || m.InFlightSHA != "" || m.MergeWhenPipelineSucceeds ||
		m.MergeStatus != domain.MergeCanBeMerged || *m.MergeCommitSHA != sha || !m.MergedAt.Equal(now) || *m.MergeUserID != merger {
		t.Errorf("merged: %+v", m)
	}
	if err := m.MarkMerged(now, nil, asker); !errors.Is(err, domain.ErrInvalidTransition) {
		t.Errorf("merge twice: %v", err)
	}
	if err := m.Lock(now, merger); !errors.Is(err, domain.ErrInvalidTransition) {
		t.Errorf("lock a merged merge request: %v", err)
	}

	// Merged outside the merge request, nobody asked: the actor merged it.
	out := domain.MergeRequest{State: domain.MROpened}
	if err := out.MarkMerged(now, nil, asker); err != nil || out.MergeCommitSHA != nil || *out.MergeUserID != asker {
		t.Errorf("merged by a push: %v %+v", err, out)
	}
}
