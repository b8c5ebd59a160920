package mergerequests

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// heads are the current commits of a merge request's branches; "" when a
// branch is gone.
type heads struct{ source, target string }

func (s *Service) branchHead(ctx context.Context, projectID int64, branch string) (string, error) {
	b, err := s.p.Repos.Branch(ctx, repoOf(projectID), branch)
	if errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read branch %q: %w", branch, err)
	}
	return b.Commit.ID, nil
}

func (s *Service) headsOf(ctx context.Context, m *domain.MergeRequest) (heads, error) {
	src, err := s.branchHead(ctx, m.SourceProjectID, m.SourceBranch)
	if err != nil {
		return heads{}, err
	}
	tgt, err := s.branchHead(ctx, m.TargetProjectID, m.TargetBranch)
	if err != nil {
		return heads{}, err
	}
	return heads{source: src, target: tgt}, nil
}

// refresh brings a merge request up to date with git, the source of truth
// (ARCHITECTURE.md: git never lags behind the database): it finishes or
// drops an interrupted merge, marks the request merged when its source
// landed in the target outside it, and recomputes sha, merge base and
// merge_status when either branch moved. actor is who moved a branch
// (0: unknown, the author stands in).
func (s *Service) refresh(ctx context.Context, m *domain.MergeRequest, actor int64) (*domain.MergeRequest, error) {
	h, err := s.headsOf(ctx, m)
	if err != nil {
		return nil, err
	}
	return s.refreshWith(ctx, m, h, actor)
}

// refreshWith is refresh with the branch heads already read (lists read
// every branch of a project at once).
func (s *Service) refreshWith(ctx context.Context, m *domain.MergeRequest, h heads, actor int64) (*domain.MergeRequest, error) {
	if m.LockedAt != nil {
		return s.repairLock(ctx, m, h)
	}
	if !m.State.Open() {
		return m, nil
	}
	if h.source == m.SourceSHA && h.target == m.TargetSHA && m.MergeStatus != domain.MergeUnchecked && m.MergeStatus != "" {
		return m, nil
	}
	if actor == 0 {
		actor = m.AuthorID
	}
	repo := repoOf(m.ProjectID)
	if h.source != "" && h.target != "" && m.TargetSHA != "" && h.target != m.TargetSHA && h.source == m.SourceSHA {
		landed, err := s.landedOutside(ctx, repo, m, h)
		if err != nil {
			return nil, err
		}
		if landed {
			return s.recordMerged(ctx, m, s.closingRefList(ctx, m), nil, actor, "")
		}
	}
	st, err := s.status(ctx, repo, h)
	if err != nil {
		return nil, err
	}
	seen := *m
	out, err := s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
		if cur.SourceSHA != seen.SourceSHA || cur.TargetSHA != seen.TargetSHA || cur.LockedAt != nil || !cur.State.Open() {
			return errRaced // someone else refreshed or merged meanwhile: theirs stands
		}
		if h.source != "" {
			cur.SourceSHA = h.source
		}
		cur.TargetSHA, cur.BaseSHA, cur.MergeStatus = h.target, st.base, st.status
		return nil
	})
	if errors.Is(err, errRaced) {
		return s.p.MergeRequests.Get(ctx, m.ProjectID, m.IID)
	}
	if err != nil {
		return nil, fmt.Errorf("save merge status: %w", err)
	}
	return out, nil
}

var errRaced = errors.New("merge request changed meanwhile")

// landedOutside tells whether the source head, which was not in the
// target when last checked, now is (a push merged it by hand).
func (s *Service) landedOutside(ctx context.Context, repo string, m *domain.MergeRequest, h heads) (bool, error) {
	in, err := s.p.Repos.IsAncestor(ctx, repo, h.source, h.target)
	if err != nil || !in {
		return false, backendErr(err, "is source in target")
	}
	before, err := s.p.Repos.IsAncestor(ctx, repo, h.source, m.TargetSHA)
	if errors.Is(err, core.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, backendErr(err, "was source in target")
	}
	return !before, nil
}

type mergeability struct{ base, status string }

// status computes the merge base and whether the source merges cleanly
// into the target (a dry-run merge: nothing is written).
func (s *Service) status(ctx context.Context, repo string, h heads) (mergeability, error) {
	if h.source == "" || h.target == "" {
		return mergeability{status: domain.MergeCannotBeMerged}, nil
	}
	base, err := s.p.Repos.MergeBase(ctx, repo, h.target, h.source)
	if err != nil {
		return mergeability{}, backendErr(err, "merge base")
	}
	if base == h.source {
		return mergeability{base: base, status: domain.MergeCanBeMerged}, nil // nothing to merge
	}
	res, err := s.p.Git.Merge(ctx, repo, domain.MergeSpec{Ours: h.target, Theirs: h.source, DryRun: true})
	if err != nil {
		return mergeability{}, backendErr(err, "check mergeability")
	}
	if len(res.Conflicts) > 0 {
		return mergeability{base: base, status: domain.MergeCannotBeMerged}, nil
	}
	return mergeability{base: base, status: domain.MergeCanBeMerged}, nil
}

// repairLock settles a merge that was started: when its merge commit
// reached the target the merge is recorded (the process died before it
// could); when the lock outlived its lease without that, it is dropped so
// the request can be merged again. A live merge is left alone.
func (s *Service) repairLock(ctx context.Context, m *domain.MergeRequest, h heads) (*domain.MergeRequest, error) {
	repo := repoOf(m.ProjectID)
	if m.InFlightSHA != "" && h.target != "" {
		in, err := s.p.Repos.IsAncestor(ctx, repo, m.InFlightSHA, h.target)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return nil, backendErr(err, "is merge commit in target")
		}
		if in {
			actor := m.AuthorID
			if m.MergeUserID != nil {
				actor = *m.MergeUserID
			}
			sha := m.InFlightSHA
			s.log.Info("recording an interrupted merge", zap.Int64("merge_request_id", m.ID), zap.String("merge_commit", sha))
			out, err := s.recordMerged(ctx, m, s.closingRefList(ctx, m), &sha, actor, "")
			if err == nil {
				s.removeSourceBranch(context.WithoutCancel(ctx), out, actor)
			}
			return out, err
		}
	}
	if s.now().Sub(*m.LockedAt) < s.lease {
		return m, nil
	}
	locked := *m.LockedAt
	s.log.Info("dropping a stale merge lock", zap.Int64("merge_request_id", m.ID))
	out, err := s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
		if cur.LockedAt == nil || !cur.LockedAt.Equal(locked) {
			return errRaced
		}
		cur.LockedAt, cur.InFlightSHA = nil, ""
		cur.MergeStatus = domain.MergeUnchecked
		return nil
	})
	if errors.Is(err, errRaced) {
		out, err = s.p.MergeRequests.Get(ctx, m.ProjectID, m.IID)
	}
	if err != nil {
		return nil, fmt.Errorf("drop stale merge lock: %w", err)
	}
	if out.LockedAt != nil {
		return out, nil
	}
	return s.refreshWith(ctx, out, h, 0)
}

// refreshList refreshes a page of merge requests, reading each project's
// branches once rather than twice per merge request. Failures leave the
// stored state (logged): a list still answers.
func (s *Service) refreshList(ctx context.Context, list []domain.MergeRequest) []domain.MergeRequest {
	branches := map[int64]map[string]string{}
	headOf := func(projectID int64, name string) string {
		bs, ok := branches[projectID]
		if !ok {
			bs = map[string]string{}
			all, err := s.p.Repos.Branches(ctx, repoOf(projectID))
			if err != nil && !errors.Is(err, core.ErrNotFound) {
				s.log.Warn("read branches for merge requests", zap.Int64("project_id", projectID), zap.Error(err))
			}
			for _, b := range all {
				bs[b.Name] = b.Commit.ID
			}
			branches[projectID] = bs
		}
		return bs[name]
	}
	for i := range list {
		m := &list[i]
		if !m.State.Open() && m.LockedAt == nil {
			continue
		}
		h := heads{source: headOf(m.SourceProjectID, m.SourceBranch), target: headOf(m.TargetProjectID, m.TargetBranch)}
		if m.LockedAt == nil && h.source == m.SourceSHA && h.target == m.TargetSHA && m.MergeStatus != domain.MergeUnchecked {
			continue
		}
		out, err := s.refreshWith(ctx, m, h, 0)
		if err != nil {
			s.log.Warn("refresh merge request", zap.Int64("merge_request_id", m.ID), zap.Error(err))
			continue
		}
		notes := m.UserNotesCount
		*m = *out
		m.UserNotesCount = notes
	}
	return list
}

// backendErr wraps a git failure; a nil err stays nil.
func backendErr(err error, doing string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", doing, err)
}
