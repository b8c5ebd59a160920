package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

var now = time.Date(2017, 6, 1, 12, 0, 0, 0, time.UTC)

func TestIssueTransitions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		from      string
		do        func(*domain.Issue) error
		want      string
		wantErr   bool
		closedSet bool
	}{
		{"close opened", domain.IssueOpened, func(i *domain.Issue) error { return i.Close(now) }, domain.IssueClosed, false, true},
		{"close reopened", domain.IssueReopened, func(i *domain.Issue) error { return i.Close(now) }, domain.IssueClosed, false, true},
		{"close closed", domain.IssueClosed, func(i *domain.Issue) error { return i.Close(now) }, domain.IssueClosed, true, true},
		{"reopen closed", domain.IssueClosed, func(i *domain.Issue) error { return i.Reopen() }, domain.IssueReopened, false, false},
		{"reopen opened", domain.IssueOpened, func(i *domain.Issue) error { return i.Reopen() }, domain.IssueOpened, true, false},
		{"reopen reopened", domain.IssueReopened, func(i *domain.Issue) error { return i.Reopen() }, domain.IssueReopened, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			is := &domain.Issue{State: c.from}
			if c.from == domain.IssueClosed {
				closed := now.Add(-time.Hour)
				is.ClosedAt = &closed
			}
			err := c.do(is)
			if c.wantErr != (err != nil) || (err != nil && !errors.Is(err, domain.ErrInvalidTransition)) {
				t.Fatalf("err %v, want an invalid transition: %v", err, c.wantErr)
			}
			if is.State != c.want || (is.ClosedAt != nil) != c.closedSet {
				t.Errorf("state %s closed_at %v, want %s (closed_at set: %v)", is.State, is.ClosedAt, c.want, c.closedSet)
			}
			if !c.wantErr && c.want == domain.IssueClosed && !is.ClosedAt.Equal(now) {
				t.Errorf("closed_at %v, want %v", is.ClosedAt, now)
			}
		})
	}
}
