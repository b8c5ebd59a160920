package mergerequests

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	MergeRequests ports.MergeRequestStore
	Notes         ports.NoteStore
	Todos         ports.TodoStore
	Subscriptions ports.SubscriptionStore
	Projects      ports.ProjectStore
	Namespaces    ports.NamespaceStore
	Users         ports.UserStore
	Protected     ports.ProtectedBranchStore
	Labels        ports.LabelStore
	Repos         ports.RepoBackend
	Tx            ports.TxManager
	Bus           ports.EventBus
	Clock         ports.Clock
	Policy        *access.Policy
	Presenter     *apijson.MergeRequestPresenter
	TodoPresenter *apijson.TodoPresenter
	// Milestones and Issues come from the issues module when it is there.
	Milestones     ports.MilestoneReader `optional:"true"`
	Issues         ports.IssueReader
	IssuePresenter *apijson.IssuePresenter
	Log            *zap.Logger `optional:"true"`
}

// Service holds the merge request use cases.
type Service struct {
	p   Params
	log *zap.Logger
	// lease is how long a started merge may stay unrecorded before a
	// repair treats its process as dead.
	lease time.Duration
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log, lease: time.Minute}
}

// now is truncated to milliseconds, the precision clients see, so a
// timestamp sent back as a filter bound matches what it came from.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

func repoOf(projectID int64) string { return domain.RepoPath(projectID) }

// target is a merge request's project as the caller sees it.
type target struct {
	caller  *domain.Caller
	project *domain.Project
	rights  access.Rights
}

// canRead is GitLab's read_merge_request (core/access).
func (t target) canRead() bool { return access.CanReadMergeRequests(t.project, t.rights) }

// project resolves {id} to a project whose merge requests the caller may
// read; anything else is the project's 404.
func (s *Service) project(r *http.Request) (target, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return target{}, err
	}
	caller := httpx.CallerOf(r)
	p, rights, err := s.p.Policy.ProjectByRef(r.Context(), caller, ref)
	if err != nil {
		return target{}, err
	}
	t := target{caller: caller, project: p, rights: rights}
	if !t.canRead() {
		return target{}, core.NotFound("Project")
	}
	return t, nil
}

// signedIn is project for writes: 401 before anything is revealed.
func (s *Service) signedIn(r *http.Request) (target, error) {
	if _, err := httpx.RequireUser(r); err != nil {
		return target{}, err
	}
	return s.project(r)
}

// load reads {merge_request_iid} of the target's project.
func (s *Service) load(r *http.Request, t target) (*domain.MergeRequest, error) {
	iid, err := iidParam(r)
	if err != nil {
		return nil, err
	}
	m, err := s.p.MergeRequests.Get(r.Context(), t.project.ID, iid)
	if err != nil {
		return nil, notFound(err, "Merge Request", "read merge request")
	}
	return m, nil
}

func iidParam(r *http.Request) (int64, error) {
	return httpx.IDParam(r, "merge_request_iid", "Merge Request")
}

// notFound maps a store's not-found to GitLab's 404 of what, and wraps
// anything else.
func notFound(err error, what, doing string) error {
	if errors.Is(err, core.ErrNotFound) {
		return core.NotFound(what)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// canUpdate is GitLab's update_merge_request: developers, and the author.
func (t target) canUpdate(m *domain.MergeRequest) bool {
	return t.rights.AtLeast(domain.Developer) || (t.caller.UserID() != 0 && m.AuthorID == t.caller.UserID())
}

// canMerge is GitLab's can_be_merged_by?: the caller may push to the
// target branch, or a protected target lets developers merge.
func (s *Service) canMerge(ctx context.Context, t target, branch string) (bool, error) {
	if t.caller.UserID() == 0 || t.project.Archived {
		return false, nil
	}
	if t.rights.AtLeast(domain.Master) {
		return true, nil
	}
	if !t.rights.AtLeast(domain.Developer) {
		return false, nil
	}
	rule, ok, err := s.protection(ctx, t.project.ID, branch)
	if err != nil || !ok {
		return err == nil, err
	}
	return rule.DevelopersCanMerge || rule.DevelopersCanPush, nil
}

// protection is the rule protecting branch, if any.
func (s *Service) protection(ctx context.Context, projectID int64, branch string) (domain.ProtectedBranch, bool, error) {
	rules, err := s.p.Protected.List(ctx, projectID)
	if err != nil {
		return domain.ProtectedBranch{}, false, fmt.Errorf("protected branches of project %d: %w", projectID, err)
	}
	rule, ok := domain.Protection(rules, branch)
	return rule, ok, nil
}

// render presents one merge request for the caller.
func (s *Service) render(r *http.Request, m *domain.MergeRequest) (*apijson.MergeRequest, error) {
	return s.p.Presenter.One(r.Context(), httpx.CallerOf(r), m)
}

// fullPath is "namespace/project" of a project, for references.
func (s *Service) fullPath(ctx context.Context, p *domain.Project) string {
	ns, err := s.p.Namespaces.Get(ctx, p.NamespaceID)
	if err != nil {
		return p.Path
	}
	return ns.FullPath + "/" + p.Path
}
