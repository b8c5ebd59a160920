package repository

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Comparison is GitLab's Compare: the commits of `to` that `from` lacks,
// oldest first, and the diff.
type Comparison struct {
	Commits []domain.Commit
	Diffs   []domain.FileDiff
	// SameRef: from and to name the same commit.
	SameRef bool
}

// Compare compares two revisions as GitLab 9.x's Gitlab::Git::Compare:
// the diff runs from their merge base to `to` (from `from` itself when
// in.Straight); unknown revisions compare as empty.
func (s *Service) Compare(ctx context.Context, req Request, in CompareInput) (Comparison, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return Comparison{}, err
	}
	repo := repoOf(t.Project)
	from, err := s.p.Reader.Resolve(ctx, repo, strings.TrimSpace(in.From))
	if err == nil {
		var to string
		to, err = s.p.Reader.Resolve(ctx, repo, strings.TrimSpace(in.To))
		if err == nil {
			if from == to {
				return Comparison{SameRef: true}, nil
			}
			return s.compareCommits(ctx, repo, from, to, in.Straight)
		}
	}
	if errors.Is(err, core.ErrNotFound) {
		return Comparison{}, nil
	}
	return Comparison{}, backendErr(err, "Ref", "resolve compared ref")
}

func (s *Service) compareCommits(ctx context.Context, repo, from, to string, straight bool) (Comparison, error) {
	commits, err := s.p.Reader.Log(ctx, repo, domain.LogQuery{Ref: to, Exclude: []string{from}})
	if err != nil {
		return Comparison{}, backendErr(err, "Ref", "compare commits")
	}
	slices.Reverse(commits)
	base := from
	if !straight {
		mb, err := s.p.Reader.MergeBase(ctx, repo, from, to)
		if err != nil {
			return Comparison{}, backendErr(err, "Ref", "merge base")
		}
		if mb != "" {
			base = mb
		}
	}
	diffs, err := s.p.Reader.Diff(ctx, repo, base, to)
	if err != nil {
		return Comparison{}, backendErr(err, "Ref", "compare diff")
	}
	return Comparison{Commits: commits, Diffs: diffs}, nil
}
