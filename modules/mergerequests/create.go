package mergerequests

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Create opens a merge request between two branches of the project ref
// names: both must exist, the pair must not have another open request,
// and merge_status is known at once.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in CreateInput) (*domain.MergeRequest, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if err := t.Require(access.CreateMergeRequest); err != nil {
		return nil, err
	}
	if err := issuable.ValidTitle(in.Title); err != nil {
		return nil, err
	}
	if in.TargetProjectID != nil && *in.TargetProjectID != t.Project.ID {
		return nil, core.Unprocessable("Merge requests between different projects are not supported")
	}
	if in.SourceBranch == in.TargetBranch {
		return nil, sameBranch
	}
	pid, actor := t.Project.ID, caller.UserID()
	m := &domain.MergeRequest{ProjectID: pid, SourceProjectID: pid, TargetProjectID: pid,
		Title: strings.TrimSpace(in.Title), Description: in.Description, State: domain.MROpened,
		SourceBranch: in.SourceBranch, TargetBranch: in.TargetBranch, AuthorID: actor,
		ForceRemoveSourceBranch: in.RemoveSourceBranch, Labels: []string{}, CreatedAt: s.now(), UpdatedAt: s.now()}
	h, err := s.headsOf(ctx, m)
	if err != nil {
		return nil, err
	}
	missing := map[string][]string{}
	if h.source == "" {
		missing["source_branch"] = []string{fmt.Sprintf("Source branch %q does not exist", in.SourceBranch)}
	}
	if h.target == "" {
		missing["target_branch"] = []string{fmt.Sprintf("Target branch %q does not exist", in.TargetBranch)}
	}
	if len(missing) > 0 {
		return nil, core.Validation(missing)
	}
	if in.Labels != nil {
		m.Labels = issuable.NormalizeLabels(*in.Labels)
	}
	if m.AssigneeID, err = s.activity.Assignee(ctx, t.Project, in.AssigneeID, access.ReadMergeRequest); err != nil {
		return nil, err
	}
	if m.MilestoneID, err = s.activity.Milestone(ctx, pid, in.MilestoneID); err != nil {
		return nil, err
	}
	st, err := s.status(ctx, repoOf(pid), h)
	if err != nil {
		return nil, err
	}
	m.SourceSHA, m.TargetSHA, m.BaseSHA, m.MergeStatus = h.source, h.target, st.base, st.status
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.activity.EnsureLabels(ctx, pid, m.Labels); err != nil {
			return err
		}
		if err := s.p.MergeRequests.Create(ctx, m); err != nil {
			if errors.Is(err, core.ErrConflict) || errors.Is(err, core.ErrNotFound) {
				return err
			}
			return fmt.Errorf("create merge request: %w", err)
		}
		return s.activity.Record(ctx, issuable.Change{Project: t.Project, After: issuable.MergeRequestItem(m), Actor: actor},
			domain.ActionCreated, nil, s.publisher(m, actor))
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}
