package jobs

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// RunnerJobs lists the jobs handed to a runner, newest first, of one
// status when given. Administrators see every runner's; other users
// those of specific runners serving a project whose CI they administer
// (GitLab 10.x: 403 "No access granted" otherwise).
func (s *Service) RunnerJobs(ctx context.Context, caller *domain.Caller, runnerID int64, in RunnerJobsInput) (*Listed, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if runnerID <= 0 {
		return nil, core.NotFound("Runner")
	}
	r, err := s.p.Runners.Get(ctx, runnerID)
	if err != nil {
		return nil, core.StoreError(err, "Runner", "read runner")
	}
	// A job token never carries its user's administrator rights.
	if !caller.IsAdmin() || caller.Job != nil {
		ok, err := s.administersRunner(ctx, caller, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, core.Forbidden("No access granted")
		}
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	f := domain.JobFilter{RunnerID: r.ID, Kind: domain.JobBuild, Page: in.Page}
	if in.Status != "" {
		if f.Statuses, err = scopeStatuses("status", []string{in.Status}); err != nil {
			return nil, err
		}
	}
	list, total, err := s.p.Jobs.List(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("jobs of runner %d: %w", r.ID, err)
	}
	return &Listed{Jobs: list, Total: total}, nil
}

// administersRunner reports whether the caller may admin_build one of
// the projects a specific runner serves.
func (s *Service) administersRunner(ctx context.Context, caller *domain.Caller, r *domain.Runner) (bool, error) {
	if r.IsShared || len(r.ProjectIDs) == 0 {
		return false, nil
	}
	projects, err := s.p.Projects.GetMany(ctx, r.ProjectIDs)
	if err != nil {
		return false, fmt.Errorf("projects of runner %d: %w", r.ID, err)
	}
	for i := range projects {
		t, err := s.p.Policy.TargetOf(ctx, caller, &projects[i])
		if err != nil {
			return false, err
		}
		if t.Can(access.AdminBuild) {
			return true, nil
		}
	}
	return false, nil
}
