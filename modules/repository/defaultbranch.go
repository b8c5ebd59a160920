package repository

import (
	"context"
	"errors"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// adoptDefaultBranch follows GitLab's first push: when the project's
// default branch does not exist in the repository (it was empty) and the
// push created branches, the default becomes the pushed default branch if
// it is among them, else the first created one (by name). HEAD moves
// first, then the project record. A push that creates the default branch
// protects it (protectDefaultBranch). Failures are logged: the push
// succeeded.
func (s *Service) adoptDefaultBranch(ctx context.Context, p *domain.Project, cmds []domain.RefUpdate) {
	repo := repoOf(p)
	_, err := s.p.Reader.Branch(ctx, repo, p.DefaultBranch)
	switch {
	case err == nil:
		// It exists: if this push created it, it is protected as GitLab
		// protects a new default branch.
		if createsBranch(cmds, p.DefaultBranch) {
			s.protectDefaultBranch(ctx, s.log.With(zap.Int64("project_id", p.ID), zap.String("branch", p.DefaultBranch)), p.ID, p.DefaultBranch)
		}
		return
	case !errors.Is(err, core.ErrNotFound) && !errors.Is(err, core.ErrInvalid):
		return // the backend failed: change nothing
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
	s.protectDefaultBranch(ctx, log, p.ID, chosen)
}

// protectDefaultBranch is GitLab's default branch protection on the push
// that creates the default branch (GitPushService): unless the
// application setting is "none" or a rule already covers the branch, it
// gets a rule letting masters push and merge, or developers push
// (setting 1, "developers can push"). Failures are logged: the push
// succeeded.
func (s *Service) protectDefaultBranch(ctx context.Context, log *zap.Logger, projectID int64, branch string) {
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		log.Error("first push: settings for the default branch protection", zap.Error(err))
		return
	}
	push := domain.Master
	switch app.DefaultBranchProtection {
	case domain.BranchProtectionNone:
		return
	case domain.BranchProtectionDevCanPush:
		push = domain.Developer
	}
	rules, err := s.p.Protected.List(ctx, projectID)
	if err != nil {
		log.Error("first push: protected branches", zap.Error(err))
		return
	}
	if _, covered := domain.Protection(rules, branch); covered {
		return
	}
	_, err = s.p.Protected.Create(ctx, domain.ProtectedBranch{ProjectID: projectID, Name: branch,
		PushAccessLevel: push, MergeAccessLevel: domain.Master, CreatedAt: s.now()})
	if err != nil && !errors.Is(err, core.ErrConflict) {
		log.Error("first push: protect the default branch", zap.Error(err))
		return
	}
	log.Info("first push: default branch protected", zap.Int("push_access_level", int(push)))
}

// createsBranch reports whether cmds create branch name.
func createsBranch(cmds []domain.RefUpdate, name string) bool {
	for _, c := range cmds {
		if c.Ref == domain.BranchPrefix+name && c.OldID == domain.ZeroID && c.NewID != domain.ZeroID {
			return true
		}
	}
	return false
}
