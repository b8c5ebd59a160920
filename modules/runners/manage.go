package runners

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// ListInput selects a page of runners.
type ListInput struct {
	Scope string
	Page  domain.Page
}

func (s *Service) filter(in ListInput) domain.RunnerFilter {
	return domain.RunnerFilter{Scope: in.Scope, OnlineSince: s.now().Add(-onlineWithin), Page: in.Page}
}

// ListOwned is GET /runners: the specific runners of the projects the
// caller is a master of (administrators too see only those here).
func (s *Service) ListOwned(ctx context.Context, caller *domain.Caller, in ListInput) ([]domain.Runner, int, error) {
	if caller.UserID() == 0 {
		return nil, 0, core.Unauthenticated()
	}
	ids, err := s.masterProjects(ctx, caller)
	if err != nil {
		return nil, 0, err
	}
	f := s.filter(in)
	f.ProjectIDs = ids
	if f.ProjectIDs == nil {
		f.ProjectIDs = []int64{}
	}
	list, total, err := s.p.Runners.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list runners: %w", err)
	}
	return list, total, nil
}

// ListAll is GET /runners/all, for administrators.
func (s *Service) ListAll(ctx context.Context, caller *domain.Caller, in ListInput) ([]domain.Runner, int, error) {
	if caller.UserID() == 0 {
		return nil, 0, core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return nil, 0, core.Forbidden("")
	}
	list, total, err := s.p.Runners.List(ctx, s.filter(in))
	if err != nil {
		return nil, 0, fmt.Errorf("list runners: %w", err)
	}
	return list, total, nil
}

// masterProjects lists the projects where the caller holds master or
// more through memberships (GitLab's ci_authorized_runners: administrators
// get no extra projects here).
func (s *Service) masterProjects(ctx context.Context, caller *domain.Caller) ([]int64, error) {
	c := caller
	if caller.User != nil && caller.User.Admin {
		u := *caller.User
		u.Admin = false
		c = &domain.Caller{User: &u}
	}
	scope, err := s.p.Policy.ProjectScopeAt(ctx, c, domain.Master)
	if err != nil {
		return nil, fmt.Errorf("master projects: %w", err)
	}
	ids := append([]int64{}, scope.ProjectIDs...)
	if len(scope.NamespaceIDs) == 0 {
		return ids, nil
	}
	for page := 1; ; page++ {
		list, total, err := s.p.Projects.List(ctx, domain.ProjectFilter{
			Readable: domain.ReadScope{All: true}, NamespaceIDs: scope.NamespaceIDs,
			Page: domain.Page{Page: page, PerPage: 100},
		})
		if err != nil {
			return nil, fmt.Errorf("projects of master groups: %w", err)
		}
		for _, p := range list {
			ids = append(ids, p.ID)
		}
		if len(list) == 0 || page*100 >= total {
			return ids, nil
		}
	}
}

// runner reads a runner: 404 "Runner Not Found".
func (s *Service) runner(ctx context.Context, id int64) (*domain.Runner, error) {
	if id <= 0 {
		return nil, core.NotFound("Runner")
	}
	r, err := s.p.Runners.Get(ctx, id)
	if err != nil {
		return nil, core.StoreError(err, "Runner", "find runner")
	}
	return r, nil
}

// administers reports whether the caller is a master (admin_build) of one
// of the projects a specific runner serves.
func (s *Service) administers(ctx context.Context, caller *domain.Caller, r *domain.Runner) (bool, error) {
	if caller.UserID() == 0 || r.IsShared {
		return false, nil
	}
	for _, pid := range r.ProjectIDs {
		p, err := s.p.Projects.Get(ctx, pid)
		if errors.Is(err, core.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("runner project: %w", err)
		}
		t, err := s.p.Policy.TargetOf(ctx, caller, p)
		if err != nil {
			return false, err
		}
		if t.Can(access.AdminBuild) {
			return true, nil
		}
	}
	return false, nil
}

func noAccess() error { return core.Forbidden("No access granted") }

// Get is GET /runners/:id: shared runners to every signed-in user,
// specific ones to administrators and to masters of their projects.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, id int64) (*RunnerDetails, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	r, err := s.runner(ctx, id)
	if err != nil {
		return nil, err
	}
	if !r.IsShared && !caller.IsAdmin() {
		ok, err := s.administers(ctx, caller, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, noAccess()
		}
	}
	return s.details(ctx, caller, r)
}

// details adds the runner's projects the caller is a member of (all of
// them for administrators).
func (s *Service) details(ctx context.Context, caller *domain.Caller, r *domain.Runner) (*RunnerDetails, error) {
	d := &RunnerDetails{Runner: r}
	if len(r.ProjectIDs) == 0 {
		return d, nil
	}
	projects, err := s.p.Projects.GetMany(ctx, r.ProjectIDs)
	if err != nil {
		return nil, fmt.Errorf("runner projects: %w", err)
	}
	for i := range projects {
		p := &projects[i]
		if !caller.IsAdmin() {
			rights, err := s.p.Policy.Project(ctx, caller, p)
			if err != nil {
				return nil, err
			}
			if rights.Level < domain.Guest {
				continue
			}
		}
		ns, err := s.p.Namespaces.Get(ctx, p.NamespaceID)
		if err != nil {
			return nil, fmt.Errorf("project namespace: %w", err)
		}
		owner := ns.Name
		full := ns.FullPath + "/" + p.Path
		d.Projects = append(d.Projects, RunnerProject{Project: *p, FullPath: full, FullName: owner + " / " + p.Name})
	}
	return d, nil
}

// mayChange is GitLab's authenticate_update_runner!.
func (s *Service) mayChange(ctx context.Context, caller *domain.Caller, r *domain.Runner) error {
	if caller.UserID() == 0 {
		return core.Unauthenticated()
	}
	if caller.IsAdmin() {
		return nil
	}
	if r.IsShared {
		return core.Forbidden("Runner is shared")
	}
	ok, err := s.administers(ctx, caller, r)
	if err != nil {
		return err
	}
	if !ok {
		return noAccess()
	}
	return nil
}

// Update is PUT /runners/:id.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, id int64, in UpdateRunnerInput, invalid error) (*RunnerDetails, error) {
	r, err := s.runner(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.mayChange(ctx, caller, r); err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	r, err = s.p.Runners.Update(ctx, id, func(r *domain.Runner) error { return in.apply(r) })
	if err != nil {
		return nil, core.StoreError(err, "Runner", "update runner")
	}
	return s.details(ctx, caller, r)
}

// Delete is DELETE /runners/:id.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, id int64) error {
	r, err := s.runner(ctx, id)
	if err != nil {
		return err
	}
	if caller.UserID() == 0 {
		return core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		if r.IsShared {
			return core.Forbidden("Runner is shared")
		}
		if len(r.ProjectIDs) > 1 {
			return core.Forbidden("Runner associated with more than one project")
		}
		if err := s.mayChange(ctx, caller, r); err != nil {
			return err
		}
	}
	if err := s.p.Runners.Delete(ctx, id); err != nil {
		return core.StoreError(err, "Runner", "delete runner")
	}
	return nil
}

// projectTarget resolves a project whose runners the caller manages
// (GitLab's authorize_admin_project).
func (s *Service) projectTarget(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return t, err
	}
	return t, t.Require(access.AdminProject)
}

// ProjectRunners is GET /projects/:id/runners: the project's specific
// runners and every shared runner.
func (s *Service) ProjectRunners(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ListInput, invalid error) ([]domain.Runner, int, error) {
	t, err := s.projectTarget(ctx, caller, ref)
	if err != nil {
		return nil, 0, err
	}
	if invalid != nil {
		return nil, 0, invalid
	}
	var ids []int64
	for _, f := range []domain.RunnerFilter{{ProjectIDs: []int64{t.Project.ID}}, {Scope: "shared"}} {
		for page := 1; ; page++ {
			f.Page = domain.Page{Page: page, PerPage: 100}
			list, total, err := s.p.Runners.List(ctx, f)
			if err != nil {
				return nil, 0, fmt.Errorf("project runners: %w", err)
			}
			for _, r := range list {
				ids = append(ids, r.ID)
			}
			if len(list) == 0 || page*100 >= total {
				break
			}
		}
	}
	f := s.filter(in)
	f.IDs = ids
	if f.IDs == nil {
		f.IDs = []int64{}
	}
	list, total, err := s.p.Runners.List(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("project runners: %w", err)
	}
	return list, total, nil
}

// EnableRunner is POST /projects/:id/runners: a specific runner the
// caller administers starts serving the project too.
func (s *Service) EnableRunner(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, runnerID int64, invalid error) (*domain.Runner, error) {
	t, err := s.projectTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	r, err := s.runner(ctx, runnerID)
	if err != nil {
		return nil, err
	}
	if r.IsShared {
		return nil, core.Forbidden("Runner is shared")
	}
	if r.Locked {
		return nil, core.Forbidden("Runner is locked")
	}
	if !caller.IsAdmin() {
		ok, err := s.administers(ctx, caller, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, noAccess()
		}
	}
	if err := s.p.Runners.AddProject(ctx, r.ID, t.Project.ID); err != nil {
		if errors.Is(err, core.ErrConflict) {
			return nil, core.Conflict("Runner was already enabled for this project")
		}
		return nil, fmt.Errorf("enable runner: %w", err)
	}
	return s.runner(ctx, r.ID)
}

// DisableRunner is DELETE /projects/:id/runners/:runner_id.
func (s *Service) DisableRunner(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, runnerID int64) error {
	t, err := s.projectTarget(ctx, caller, ref)
	if err != nil {
		return err
	}
	r, err := s.runner(ctx, runnerID)
	if err != nil {
		return err
	}
	if !contains64(r.ProjectIDs, t.Project.ID) {
		return core.NotFound("Runner")
	}
	if len(r.ProjectIDs) == 1 {
		return core.Forbidden("Only one project associated with the runner. Please remove the runner instead")
	}
	if err := s.p.Runners.RemoveProject(ctx, r.ID, t.Project.ID); err != nil {
		return core.StoreError(err, "Runner", "disable runner")
	}
	return nil
}

func contains64(list []int64, id int64) bool {
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}

// ResetRegistrationToken is POST /projects/:id/runners/reset_registration_token:
// masters get a new registration token for the project, shown this once
// (only its digest is kept).
func (s *Service) ResetRegistrationToken(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (string, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return "", err
	}
	if err := t.Require(access.AdminBuild); err != nil {
		return "", err
	}
	return s.resetToken(ctx, t.Project.ID)
}

// ResetProjectToken resets the registration token of the project named
// by ref (a numeric ID or a full path), for administrators' tools.
func (s *Service) ResetProjectToken(ctx context.Context, ref string) (string, error) {
	var p *domain.Project
	var err error
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		p, err = s.p.Projects.Get(ctx, id)
	} else {
		p, err = s.p.Projects.GetByFullPath(ctx, ref)
	}
	if err != nil {
		return "", core.StoreError(err, "Project", "find project")
	}
	return s.resetToken(ctx, p.ID)
}

func (s *Service) resetToken(ctx context.Context, projectID int64) (string, error) {
	token, err := s.p.TokenGen.NewToken(registrationTokenPrefix)
	if err != nil {
		return "", fmt.Errorf("registration token: %w", err)
	}
	if err := s.p.Runners.SetRegistrationToken(ctx, projectID, domain.TokenDigest(token)); err != nil {
		return "", fmt.Errorf("set registration token: %w", err)
	}
	return token, nil
}
