package repository

import (
	"context"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/domain"
)

// publishRef announces a ref created or deleted through the API, as GitLab
// does with a push of no commits. Failures are logged: the ref moved.
func (s *Service) publishRef(ctx context.Context, p *domain.Project, caller *domain.Caller, ref, before, after string) {
	ev := domain.PushEvent{
		ProjectID: p.ID, Actor: caller.UserID(), Ref: ref,
		Before: before, After: after, Commits: []domain.PushCommit{}, TotalCommits: 0, At: s.now(),
	}
	if err := s.p.Bus.Publish(ctx, ev); err != nil {
		s.log.Error("push event of API ref change", zap.Int64("project_id", p.ID), zap.String("ref", ref), zap.Error(err))
	}
}

// publishBranchCommit announces one new commit on a branch. Failures are
// logged: the commit is written and the branch moved.
func (s *Service) publishBranchCommit(ctx context.Context, p *domain.Project, caller *domain.Caller, branch, before string, c domain.Commit) {
	ev := domain.PushEvent{
		ProjectID: p.ID, Actor: caller.UserID(), Ref: domain.BranchPrefix + branch,
		Before: before, After: c.ID, TotalCommits: 1, At: s.now(),
		Commits: []domain.PushCommit{pushCommit(c)},
	}
	if err := s.p.Bus.Publish(ctx, ev); err != nil {
		s.log.Error("push event of API commit", zap.Int64("project_id", p.ID), zap.String("branch", branch), zap.Error(err))
	}
}

// pushCommit is a commit as push events carry it.
func pushCommit(c domain.Commit) domain.PushCommit {
	return domain.PushCommit{ID: c.ID, Message: c.Message, Timestamp: c.Committer.When, Author: c.Author}
}
