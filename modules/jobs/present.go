package jobs

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// presenter renders jobs (apijson.JobPresenter) and commit statuses.
type presenter struct {
	jobs  *apijson.JobPresenter
	users ports.UserStore
	base  string
}

func newPresenter(cfg config.Config, users ports.UserStore, pipelines ports.PipelineStore, runners ports.RunnerStore,
	artifacts ports.ArtifactStore, projects ports.ProjectStore, pp *apijson.ProjectPresenter, repos ports.RepoReader, clock ports.Clock) presenter {
	return presenter{
		jobs: &apijson.JobPresenter{BaseURL: cfg.BaseURL(), Users: users, Pipelines: pipelines, Runners: runners,
			Artifacts: artifacts, Projects: projects, Presenter: pp, Repos: repos, Clock: clock},
		users: users, base: cfg.BaseURL(),
	}
}

// statuses renders commit statuses with their authors (one query).
func (p presenter) statuses(ctx context.Context, list []domain.Job) ([]commitStatusJSON, error) {
	var ids []int64
	for _, j := range list {
		if j.UserID != nil {
			ids = append(ids, *j.UserID)
		}
	}
	authors := map[int64]*apijson.UserBasic{}
	if len(ids) > 0 {
		users, err := p.users.GetMany(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("authors of statuses: %w", err)
		}
		for i := range users {
			u := apijson.UserBasicOf(p.base, &users[i])
			authors[users[i].ID] = &u
		}
	}
	out := make([]commitStatusJSON, 0, len(list))
	for _, j := range list {
		var a *apijson.UserBasic
		if j.UserID != nil {
			a = authors[*j.UserID]
		}
		out = append(out, newCommitStatusJSON(j, a))
	}
	return out, nil
}
