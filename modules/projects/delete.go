package projects

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Delete removes a project (owners and administrators): the row, its
// memberships, shares and stars in one transaction, then the repository
// once it commits. Forks of it stay, no longer forked from anything; the
// project it was forked from counts one fork less.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) error {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return err
	}
	if err := t.Require(access.RemoveProject); err != nil {
		return err
	}
	proj := t.Project
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.deleteInTx(ctx, proj, caller.UserID()); err != nil {
			return err
		}
		if err := s.p.Projects.Delete(ctx, proj.ID); err != nil {
			return projectWriteErr(err, "delete project")
		}
		s.deleteReposAfterCommit(ctx, []string{domain.RepoPath(proj.ID)})
		return nil
	})
}

// deleteInTx does what goes with deleting a project, before its row goes:
// the event, and the fork count of its source.
func (s *Service) deleteInTx(ctx context.Context, proj *domain.Project, actor int64) error {
	if err := s.p.Bus.Publish(ctx, domain.ProjectDestroyed{Project: *proj, Actor: actor}); err != nil {
		return err
	}
	if proj.ForkedFromID != nil {
		if err := s.p.Projects.AddForks(ctx, *proj.ForkedFromID, -1); err != nil && !errors.Is(err, core.ErrNotFound) {
			return fmt.Errorf("fork count: %w", err)
		}
	}
	return nil
}
