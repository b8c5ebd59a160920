package groups

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// Statistics are a group's storage figures: the sums over the projects
// directly in it, as GitLab 9.x's Namespace.with_statistics computes them.
type Statistics struct {
	StorageSize      int64
	RepositorySize   int64
	LFSObjectsSize   int64
	JobArtifactsSize int64
}

// statistics computes the statistics of each group (administrators only;
// List checks).
func (s *Service) statistics(ctx context.Context, groups []domain.Namespace) (map[int64]Statistics, error) {
	out := make(map[int64]Statistics, len(groups))
	if len(groups) == 0 {
		return out, nil
	}
	ids := make([]int64, len(groups))
	for i, g := range groups {
		ids[i] = g.ID
		out[g.ID] = Statistics{}
	}
	projects, _, err := s.p.Projects.List(ctx, domain.ProjectFilter{
		Readable: domain.ReadScope{All: true}, NamespaceIDs: ids, OrderBy: domain.OrderByID, Ascending: true,
	})
	if err != nil {
		return nil, fmt.Errorf("group projects: %w", err)
	}
	for _, p := range projects {
		size, _, err := s.p.Repos.Stats(ctx, domain.RepoPath(p.ID), p.DefaultBranch)
		if err != nil {
			return nil, fmt.Errorf("repository statistics: %w", err)
		}
		st := out[p.NamespaceID]
		st.StorageSize += size
		st.RepositorySize += size
		out[p.NamespaceID] = st
	}
	return out, nil
}
