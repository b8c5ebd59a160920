package mergerequests

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Every read brings the merge request up to date with git first.

// Get reads merge request iid of the project ref names.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (*domain.MergeRequest, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return nil, err
	}
	return s.fresh(ctx, t, iid)
}

// Commits is one page of the source's commits not in the target, newest
// first, and their total.
func (s *Service) Commits(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, in issuable.PageInput) ([]domain.Commit, int, error) {
	m, err := s.Get(ctx, caller, ref, iid)
	if err != nil {
		return nil, 0, err
	}
	if in.Invalid != nil {
		return nil, 0, in.Invalid
	}
	if m.SourceSHA == "" {
		return nil, 0, nil
	}
	q := domain.LogQuery{Ref: m.SourceSHA}
	if m.TargetSHA != "" {
		q.Exclude = []string{m.TargetSHA}
	}
	repo := repoOf(m.SourceProjectID)
	total, err := s.p.Repos.CountCommits(ctx, repo, q)
	if errors.Is(err, core.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, backendErr(err, "count merge request commits")
	}
	if in.Page.Offset() >= total {
		return nil, total, nil
	}
	q.Skip, q.Limit = in.Page.Offset(), in.Page.PerPage
	list, err := s.p.Repos.Log(ctx, repo, q)
	if err != nil {
		return nil, 0, backendErr(err, "list merge request commits")
	}
	return list, total, nil
}

// Changes is the merge request with the diff of its source against the
// merge base.
func (s *Service) Changes(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (*domain.MergeRequest, []domain.FileDiff, error) {
	m, err := s.Get(ctx, caller, ref, iid)
	if err != nil {
		return nil, nil, err
	}
	if m.SourceSHA == "" || m.BaseSHA == "" || m.BaseSHA == m.SourceSHA {
		return m, nil, nil
	}
	fd, err := s.p.Repos.Diff(ctx, repoOf(m.SourceProjectID), m.BaseSHA, m.SourceSHA)
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		return nil, nil, backendErr(err, "merge request changes")
	}
	return m, fd, nil
}

// ClosesIssues is one page of the issues merging would close that the
// caller may see (confidential ones only for those who may), and their
// total.
func (s *Service) ClosesIssues(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, in issuable.PageInput) ([]domain.Issue, int, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return nil, 0, err
	}
	m, err := s.fresh(ctx, t, iid)
	if err != nil {
		return nil, 0, err
	}
	if in.Invalid != nil {
		return nil, 0, in.Invalid
	}
	byProject := map[int64][]int64{}
	var order []int64
	for _, k := range s.closingKeys(ctx, m, s.closingRefList(ctx, m)) {
		if _, ok := byProject[k.ProjectID]; !ok {
			order = append(order, k.ProjectID)
		}
		byProject[k.ProjectID] = append(byProject[k.ProjectID], k.IID)
	}
	var issues []domain.Issue
	for _, pid := range order {
		it := t
		if pid != t.Project.ID {
			p, err := s.p.Projects.Get(ctx, pid)
			if err != nil {
				continue
			}
			if it, err = s.p.Policy.TargetOf(ctx, caller, p); err != nil {
				return nil, 0, fmt.Errorf("rights on project %d: %w", pid, err)
			}
		}
		if !it.Can(access.ReadIssue) {
			continue
		}
		found, err := s.p.Issues.ByIIDs(ctx, pid, byProject[pid])
		if err != nil {
			return nil, 0, fmt.Errorf("issues closed by merge request: %w", err)
		}
		for i := range found {
			if it.Can(access.ReadIssue, access.OnIssue(&found[i])) {
				issues = append(issues, found[i])
			}
		}
	}
	return issuable.PageOf(issues, in.Page), len(issues), nil
}
