package repository

import (
	"context"
	"errors"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// adoptDefaultBranch follows GitLab's first push: when the project's
// default branch does not exist in the repository (it was empty) and the
// push created branches, the default becomes the pushed default branch if
// it is among them, else the first created one (by name). HEAD moves
// first, then the project record. Failures are logged: the push succeeded.
func (s *Service) adoptDefaultBranch(ctx context.Context, p *domain.Project, cmds []domain.RefUpdate) {
	repo := repoOf(p)
	if _, err := s.p.Reader.Branch(ctx, repo, p.DefaultBranch); !errors.Is(err, core.ErrNotFound) && !errors.Is(err, core.ErrInvalid) {
		return // it exists (or the backend failed: change nothing)
	}
	chosen := ""
	for _, c := range cmds {
		name, ok := strings.CutPrefix(c.Ref, domain.BranchPrefix)
		if !ok || c.NewID == domain.ZeroID {
			continue
		}
		if _, err := s.p.Reader.Branch(ctx, repo, name); err != nil {
			continue // refused, or moved away since
		}
		if chosen == "" || name < chosen {
			chosen = name
		}
	}
	if chosen == "" {
		return
	}
	log := s.log.With(zap.Int64("project_id", p.ID), zap.String("branch", chosen))
	if err := s.p.Writer.SetDefaultBranch(ctx, repo, chosen); err != nil {
		log.Error("first push: set HEAD", zap.Error(err))
		return
	}
	if _, err := s.p.Projects.Update(ctx, p.ID, func(pr *domain.Project) error {
		pr.DefaultBranch = chosen
		return nil
	}); err != nil {
		log.Error("first push: record default branch", zap.Error(err))
		return
	}
	log.Info("first push: default branch adopted")
}
