package mergerequests

import (
	"context"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// TimeStats reads the time tracked on merge request iid, for whoever may
// see it (as stored: time stats need no look at git).
func (s *Service) TimeStats(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (domain.TimeStats, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return domain.TimeStats{}, err
	}
	m, err := s.load(ctx, t, iid)
	if err != nil {
		return domain.TimeStats{}, err
	}
	return m.TimeStats, nil
}

// TrackTime sets or resets the estimate of merge request iid, or adds or
// resets its spent time: developers and up (GitLab's
// admin_merge_request), with a system note, in one transaction.
func (s *Service) TrackTime(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, c issuable.TimeChange) (domain.TimeStats, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return domain.TimeStats{}, err
	}
	if err := c.Validate(); err != nil {
		return domain.TimeStats{}, err
	}
	m, err := s.load(ctx, t, iid)
	if err != nil {
		return domain.TimeStats{}, err
	}
	if err := t.Require(access.AdminMergeRequest); err != nil {
		return domain.TimeStats{}, err
	}
	var out domain.TimeStats
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		out, err = s.activity.TrackTime(ctx, issuable.MergeRequestItem(m), m.TimeStats, caller.UserID(), c)
		return err
	})
	return out, err
}
