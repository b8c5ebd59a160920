package issues

import (
	"context"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// TimeStats reads the time tracked on issue iid, for whoever may see it.
func (s *Service) TimeStats(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (domain.TimeStats, error) {
	is, _, err := s.Get(ctx, caller, ref, iid)
	if err != nil {
		return domain.TimeStats{}, err
	}
	return is.TimeStats, nil
}

// TrackTime sets or resets the estimate of issue iid, or adds or resets
// its spent time: reporters and up (GitLab's admin_issue), with a system
// note, in one transaction.
func (s *Service) TrackTime(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, c issuable.TimeChange) (domain.TimeStats, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadIssue)
	if err != nil {
		return domain.TimeStats{}, err
	}
	if err := c.Validate(); err != nil {
		return domain.TimeStats{}, err
	}
	is, err := s.issue(ctx, t, iid)
	if err != nil {
		return domain.TimeStats{}, err
	}
	if err := t.Require(access.AdminIssue); err != nil {
		return domain.TimeStats{}, err
	}
	var out domain.TimeStats
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		out, err = s.activity.TrackTime(ctx, issuable.IssueItem(is), is.TimeStats, caller.UserID(), c)
		return err
	})
	return out, err
}
