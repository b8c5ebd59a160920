package projects

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Projects   ports.ProjectStore
	Namespaces ports.NamespaceStore
	Members    ports.MemberStore
	Users      ports.UserStore
	Repos      ports.RepoStorage
	Heads      ports.RepoWriter // SetDefaultBranch only
	Tx         ports.TxManager
	Bus        ports.EventBus
	Clock      ports.Clock
	Policy     *access.Policy
	Log        *zap.Logger
	// Settings are the application settings (visibility default and
	// restrictions); without them GitLab's defaults apply.
	Settings ports.Settings `optional:"true"`
}

// Service holds the projects use cases. It never sees HTTP types. Each use
// case resolves the project its input names with core/access and asks for
// the named abilities it needs: a user first (401), then a readable project
// (404), then the ability (403). Inputs carry the request's parameter
// problems in Invalid; a use case reports them only after its access checks,
// so callers who may not use an endpoint learn nothing from its validation.
type Service struct {
	p     Params
	forks *forker
}

// NewService builds the service. The asynchronous fork copies it runs are
// started and stopped with the app (see Module).
func NewService(p Params) *Service {
	s := &Service{p: p}
	s.forks = newForker(s)
	return s
}

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// asCaller is the caller acting as u (projects created for a user are
// checked with that user's rights, as GitLab's CreateService does).
func asCaller(u *domain.User) *domain.Caller { return &domain.Caller{User: u} }

// canCreateIn reports whether the caller may create projects in ns: their
// own personal namespace, a group where they are master or owner (GitLab
// 9.x's create_projects), and anything for administrators.
func (s *Service) canCreateIn(ctx context.Context, caller *domain.Caller, ns *domain.Namespace) (bool, error) {
	if caller.UserID() == 0 {
		return false, nil
	}
	if caller.IsAdmin() {
		return true, nil
	}
	if ns.Kind == domain.NamespaceUser {
		return ns.OwnerID != nil && *ns.OwnerID == caller.UserID(), nil
	}
	r, err := s.p.Policy.Group(ctx, caller, ns)
	if err != nil {
		return false, err
	}
	return access.GroupTarget{Caller: caller, Group: ns, Rights: r}.Can(access.CreateProjects), nil
}

// namespaceByRef finds a namespace by numeric ID or full path.
func (s *Service) namespaceByRef(ctx context.Context, ref string) (*domain.Namespace, error) {
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		if id <= 0 {
			return nil, core.ErrNotFound
		}
		return s.p.Namespaces.Get(ctx, id)
	}
	return s.p.Namespaces.GetByFullPath(ctx, ref)
}

// userByRef finds a user by numeric ID or username; 404 "User Not Found".
func (s *Service) userByRef(ctx context.Context, ref string) (*domain.User, error) {
	var u *domain.User
	var err error
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		u, err = s.p.Users.Get(ctx, id)
	} else {
		u, err = s.p.Users.GetByUsername(ctx, ref)
	}
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("User")
	}
	if err != nil {
		return nil, fmt.Errorf("find user: %w", err)
	}
	return u, nil
}

// user returns a user by ID; 404 "User Not Found".
func (s *Service) user(ctx context.Context, id int64) (*domain.User, error) {
	u, err := s.p.Users.Get(ctx, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("User")
	}
	if err != nil {
		return nil, fmt.Errorf("find user: %w", err)
	}
	return u, nil
}

// projectWriteErr maps store failures of a project write: taken names and
// paths are GitLab's 400 field map, a vanished project its 404.
func projectWriteErr(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, core.ErrConflict):
		if f := core.Fields(err); len(f) > 0 {
			return core.Validation(f)
		}
		return core.FieldInvalid("path", "has already been taken")
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound("Project")
	}
	var e *core.Error
	if errors.As(err, &e) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// limitMessage is GitLab's projects_limit refusal.
func limitMessage(limit int) string {
	return "Your project limit is " + strconv.Itoa(limit) + " projects! Please contact your administrator to increase it"
}

// checkLimit enforces projects_limit on a personal namespace: the owner
// may hold at most projects_limit projects there. It locks the namespace
// row first, so concurrent creations in one namespace are counted exactly.
// reached tells whether the namespace is full; limit is the owner's limit.
func (s *Service) checkLimit(ctx context.Context, ns *domain.Namespace) (reached bool, limit int, err error) {
	if ns.Kind != domain.NamespaceUser || ns.OwnerID == nil {
		return false, 0, nil
	}
	owner, err := s.p.Users.Get(ctx, *ns.OwnerID)
	if err != nil {
		return false, 0, fmt.Errorf("namespace owner: %w", err)
	}
	// A no-op update takes the namespace's row lock for the transaction.
	if _, err := s.p.Namespaces.Update(ctx, ns.ID, func(*domain.Namespace) error { return nil }); err != nil {
		return false, 0, fmt.Errorf("lock namespace: %w", err)
	}
	n, err := s.p.Projects.CountInNamespace(ctx, ns.ID)
	if err != nil {
		return false, 0, fmt.Errorf("count projects: %w", err)
	}
	return n >= owner.ProjectsLimit, owner.ProjectsLimit, nil
}

// createRepo makes the project's repository. A repository already at the
// path belongs to no project (IDs are only reused after a rolled-back
// insert on SQLite, which can leave one behind after a crash), so it is
// replaced.
func (s *Service) createRepo(ctx context.Context, id int64, branch string) error {
	repo := domain.RepoPath(id)
	err := s.p.Repos.Create(ctx, repo, branch)
	if errors.Is(err, core.ErrConflict) {
		s.p.Log.Warn("replacing an orphaned repository", zap.String("repo", repo))
		if err := s.p.Repos.Delete(ctx, repo); err != nil {
			return fmt.Errorf("delete orphaned repository: %w", err)
		}
		err = s.p.Repos.Create(ctx, repo, branch)
	}
	if err != nil {
		return fmt.Errorf("create repository: %w", err)
	}
	return nil
}

// deleteRepos removes repositories once the transaction that deleted their
// projects commits; failures are logged (the rows are gone already).
func (s *Service) deleteReposAfterCommit(ctx context.Context, repos []string) {
	if len(repos) == 0 {
		return
	}
	s.p.Tx.AfterCommit(ctx, func(ctx context.Context) {
		for _, repo := range repos {
			if err := s.p.Repos.Delete(ctx, repo); err != nil {
				s.p.Log.Error("delete repository", zap.String("repo", repo), zap.Error(err))
			}
		}
	})
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// Settings are the project parameters of create, create for user and
// edit; nil fields are not given.
type Settings struct {
	Name, Path, DefaultBranch, Description, ImportURL, CIConfigPath *string
	Visibility                                                      *domain.Visibility
	IssuesEnabled, MergeRequestsEnabled, JobsEnabled, WikiEnabled   *bool
	SnippetsEnabled, ContainerRegistryEnabled, SharedRunnersEnabled *bool
	PublicJobs, OnlyAllowMergeIfPipelineSucceeds                    *bool
	OnlyAllowMergeIfAllDiscussionsAreResolved                       *bool
	LFSEnabled, RequestAccessEnabled                                *bool
	PrintingMergeRequestLinkEnabled                                 *bool
	TagList                                                         *[]string
}

// apply copies the given settings onto p (name and path included).
func (in *Settings) apply(p *domain.Project) {
	str := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	flag := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	str(&p.Name, in.Name)
	str(&p.Path, in.Path)
	str(&p.DefaultBranch, in.DefaultBranch)
	str(&p.Description, in.Description)
	if in.ImportURL != nil {
		p.ImportURL = strings.TrimSpace(*in.ImportURL)
	}
	if in.CIConfigPath != nil {
		p.CIConfigPath = strings.TrimLeft(*in.CIConfigPath, "/")
	}
	if in.Visibility != nil {
		p.Visibility = *in.Visibility
	}
	flag(&p.IssuesEnabled, in.IssuesEnabled)
	flag(&p.MergeRequestsEnabled, in.MergeRequestsEnabled)
	flag(&p.JobsEnabled, in.JobsEnabled)
	flag(&p.WikiEnabled, in.WikiEnabled)
	flag(&p.SnippetsEnabled, in.SnippetsEnabled)
	flag(&p.ContainerRegistryEnabled, in.ContainerRegistryEnabled)
	flag(&p.SharedRunnersEnabled, in.SharedRunnersEnabled)
	flag(&p.PublicJobs, in.PublicJobs)
	flag(&p.OnlyAllowMergeIfPipelineSucceeds, in.OnlyAllowMergeIfPipelineSucceeds)
	flag(&p.OnlyAllowMergeIfAllDiscussionsAreResolved, in.OnlyAllowMergeIfAllDiscussionsAreResolved)
	flag(&p.LFSEnabled, in.LFSEnabled)
	flag(&p.RequestAccessEnabled, in.RequestAccessEnabled)
	flag(&p.PrintingMergeRequestLinkEnabled, in.PrintingMergeRequestLinkEnabled)
	if in.TagList != nil {
		p.TagList = cleanTags(*in.TagList)
	}
}
