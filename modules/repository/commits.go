package repository

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

const msgCherryPick = "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content."

// CommitDetail is a commit with its line counts (GitLab's CommitDetail)
// and its latest pipeline (nil when none, or hidden from the caller).
type CommitDetail struct {
	domain.Commit
	Stats    domain.CommitStats
	Pipeline *domain.Pipeline
}

// CommitPage is one page of commits, with the latest pipeline of each
// that has one (read in one query).
type CommitPage struct {
	Commits   []domain.Commit
	Pipelines map[string]domain.Pipeline
	Total     int
}

// pipelinesOf reads the latest pipeline of each commit, when the app has
// CI and the caller may read the project's pipelines (nil otherwise).
func (s *Service) pipelinesOf(ctx context.Context, t access.Target, shas []string) (map[string]domain.Pipeline, error) {
	if s.p.Pipelines == nil || len(shas) == 0 || !t.Can(access.ReadPipeline) {
		return nil, nil
	}
	m, err := s.p.Pipelines.LatestOfSHAs(ctx, t.Project.ID, shas)
	if err != nil {
		return nil, fmt.Errorf("pipelines of commits: %w", err)
	}
	return m, nil
}

// pipelineOf is the latest pipeline of one commit (nil when none).
func (s *Service) pipelineOf(ctx context.Context, t access.Target, sha string) (*domain.Pipeline, error) {
	m, err := s.pipelinesOf(ctx, t, []string{sha})
	if p, ok := m[sha]; ok {
		return &p, err
	}
	return nil, err
}

// ListCommits lists one page of the commits reachable from in.RefName (the
// default branch when empty), newest first, and how many there are. An
// unknown ref or an empty repository lists nothing, as in GitLab.
func (s *Service) ListCommits(ctx context.Context, req Request, in ListCommitsInput, pg domain.Page) (*CommitPage, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return nil, err
	}
	commits, total, err := s.listCommits(ctx, t, in, pg)
	if err != nil {
		return nil, err
	}
	shas := make([]string, 0, len(commits))
	for _, c := range commits {
		shas = append(shas, c.ID)
	}
	pipelines, err := s.pipelinesOf(ctx, t, shas)
	if err != nil {
		return nil, err
	}
	return &CommitPage{Commits: commits, Pipelines: pipelines, Total: total}, nil
}

func (s *Service) listCommits(ctx context.Context, t access.Target, in ListCommitsInput, pg domain.Page) ([]domain.Commit, int, error) {
	rev := in.RefName
	if rev == "" {
		rev = defaultRef(t.Project)
	}
	q := domain.LogQuery{Ref: rev, Path: strings.Trim(in.Path, "/"), Since: in.Since, Until: in.Until}
	repo := repoOf(t.Project)
	// Count and page from one commit, so both see the same history even
	// when the branch moves meanwhile (and the count can be cached).
	head, err := s.p.Reader.Resolve(ctx, repo, rev)
	if err == nil {
		q.Ref = head
	}
	var total int
	if err == nil {
		total, err = s.counts.count(ctx, s.p.Reader, repo, q)
	}
	if errors.Is(err, core.ErrNotFound) {
		return []domain.Commit{}, 0, nil
	}
	if err != nil {
		return nil, 0, backendErr(err, "Commit", "count commits")
	}
	if skip := pg.Offset(); skip < total {
		q.Skip, q.Limit = skip, pg.PerPage
		commits, err := s.p.Reader.Log(ctx, repo, q)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return nil, 0, backendErr(err, "Commit", "list commits")
		}
		return commits, total, nil
	}
	return []domain.Commit{}, total, nil
}

// GetCommit reads the commit rev names (a hash, branch or tag).
func (s *Service) GetCommit(ctx context.Context, req Request, rev string) (CommitDetail, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return CommitDetail{}, err
	}
	c, err := s.commitOf(ctx, t.Project, rev)
	if err != nil {
		return CommitDetail{}, err
	}
	st, err := s.p.Reader.CommitStats(ctx, repoOf(t.Project), c.ID)
	if err != nil {
		return CommitDetail{}, backendErr(err, "Commit", "commit stats")
	}
	pl, err := s.pipelineOf(ctx, t, c.ID)
	if err != nil {
		return CommitDetail{}, err
	}
	return CommitDetail{Commit: c, Stats: st, Pipeline: pl}, nil
}

// CommitDiff is the diff of the commit rev names against its first parent.
func (s *Service) CommitDiff(ctx context.Context, req Request, rev string) ([]domain.FileDiff, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return nil, err
	}
	c, err := s.commitOf(ctx, t.Project, rev)
	if err != nil {
		return nil, err
	}
	diffs, err := s.p.Reader.Diff(ctx, repoOf(t.Project), "", c.ID)
	if err != nil {
		return nil, backendErr(err, "Commit", "diff of commit")
	}
	return diffs, nil
}

// CreateCommit writes one commit of file actions on a branch (GitLab's
// Files::MultiService).
func (s *Service) CreateCommit(ctx context.Context, req Request, in CreateCommitInput) (CommitDetail, error) {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return CommitDetail{}, err
	}
	actions, err := fileActions(in.Actions)
	if err != nil {
		return CommitDetail{}, err
	}
	c, err := s.commitFiles(ctx, t, fileCommit{
		branch: in.Branch, startBranch: in.StartBranch, message: in.CommitMessage,
		authorName: in.AuthorName, authorEmail: in.AuthorEmail, actions: actions,
	})
	if err != nil {
		return CommitDetail{}, err
	}
	// The commit has landed: a failure to count its lines must not tell
	// the client it failed (it would retry and commit twice).
	st, err := s.p.Reader.CommitStats(ctx, repoOf(t.Project), c.ID)
	if err != nil {
		s.log.Error("stats of new commit", zap.String("commit", c.ID), zap.Error(err))
	}
	pl, err := s.pipelineOf(ctx, t, c.ID)
	if err != nil {
		s.log.Error("pipeline of new commit", zap.String("commit", c.ID), zap.Error(err))
	}
	return CommitDetail{Commit: c, Stats: st, Pipeline: pl}, nil
}

// CherryPick applies the change of the commit rev names on top of a
// branch, redoing it when the branch moved meanwhile.
func (s *Service) CherryPick(ctx context.Context, req Request, rev string, in CherryPickInput) (domain.Commit, error) {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return domain.Commit{}, err
	}
	repo := repoOf(t.Project)
	commit, err := s.commitOf(ctx, t.Project, rev)
	if err != nil {
		return domain.Commit{}, err
	}
	if _, err := s.p.Reader.Branch(ctx, repo, in.Branch); err != nil {
		return domain.Commit{}, backendErr(err, "Branch", "read branch")
	}
	if err := s.checkBranchPush(ctx, t, in.Branch); err != nil {
		return domain.Commit{}, err
	}
	committer := s.callerSignature(req.Caller)
	full := domain.BranchPrefix + in.Branch
	var picked domain.Commit
	var before string
	err = s.retryOnBranch(ctx, repo, in.Branch, func() (bool, error) {
		b, err := s.p.Reader.Branch(ctx, repo, in.Branch)
		if err != nil {
			return false, backendErr(err, "Branch", "read branch")
		}
		before = b.Commit.ID
		res, err := s.p.Writer.CherryPick(ctx, repo, commit.ID, before, committer)
		switch {
		case errors.Is(err, core.ErrInvalid):
			return false, core.BadRequest(msgCherryPick)
		case err != nil:
			return false, backendErr(err, "Commit", "cherry-pick")
		case len(res.Conflicts) > 0 || res.CommitID == "":
			return false, core.BadRequest(msgCherryPick)
		}
		switch err := s.p.Writer.UpdateRef(ctx, repo, full, res.CommitID, before); {
		case errors.Is(err, core.ErrNotFound):
			return false, core.NotFound("Branch")
		case retryable(err):
			return true, nil
		case err != nil:
			return false, backendErr(err, "Branch", "move branch")
		}
		if picked, err = s.p.Reader.Commit(ctx, repo, res.CommitID); err != nil {
			return false, backendErr(err, "Commit", "read cherry-picked commit")
		}
		return false, nil
	})
	if err != nil {
		return domain.Commit{}, err
	}
	s.publishBranchCommit(context.WithoutCancel(ctx), t.Project, req.Caller, in.Branch, before, picked)
	return picked, nil
}

// commitOf reads the commit rev names (a hash, branch or tag).
func (s *Service) commitOf(ctx context.Context, p *domain.Project, rev string) (domain.Commit, error) {
	if rev == "" {
		return domain.Commit{}, core.NotFound("Commit")
	}
	c, err := s.p.Reader.Commit(ctx, repoOf(p), rev)
	if err != nil {
		return domain.Commit{}, backendErr(err, "Commit", "read commit")
	}
	return c, nil
}
