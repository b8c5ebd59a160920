package groups

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"go.uber.org/zap"
)

// Delete removes a group with its subgroups, every project inside and
// their memberships in one transaction (owners and administrators), then
// the projects' repositories once it commits.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) error {
	t, err := s.resolveSignedIn(ctx, caller, ref)
	if err != nil {
		return err
	}
	if err := t.Require(access.AdminGroup); err != nil {
		return err
	}
	g := t.Group
	var repos []string
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		desc, err := s.p.Namespaces.Descendants(ctx, []int64{g.ID})
		if err != nil {
			return fmt.Errorf("subgroups: %w", err)
		}
		projects, _, err := s.p.Projects.List(ctx, domain.ProjectFilter{
			Readable: domain.ReadScope{All: true}, NamespaceIDs: append([]int64{g.ID}, desc...),
			OrderBy: domain.OrderByID, Ascending: true,
		})
		if err != nil {
			return fmt.Errorf("group projects: %w", err)
		}
		for _, p := range projects {
			if err := s.p.Bus.Publish(ctx, domain.ProjectDestroyed{Project: p, Actor: caller.UserID()}); err != nil {
				return err
			}
			repos = append(repos, domain.RepoPath(p.ID))
		}
		if err := s.p.Bus.Publish(ctx, domain.GroupDestroyed{Group: *g, Actor: caller.UserID()}); err != nil {
			return err
		}
		if err := s.p.Namespaces.Delete(ctx, g.ID); err != nil {
			if errors.Is(err, core.ErrNotFound) {
				return core.NotFound("Group")
			}
			return fmt.Errorf("delete group: %w", err)
		}
		s.p.Tx.AfterCommit(ctx, func(ctx context.Context) {
			for _, repo := range repos {
				if err := s.p.Repos.Delete(ctx, repo); err != nil {
					s.p.Log.Error("delete repository of a deleted group", zap.String("repo", repo), zap.Error(err))
				}
			}
		})
		return nil
	})
}
