package issues

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
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
	Issues        ports.IssueStore
	Milestones    ports.MilestoneStore
	Labels        ports.LabelStore
	MergeRequests ports.MergeRequestStore
	Notes         ports.NoteStore
	Todos         ports.TodoStore
	Subscriptions ports.SubscriptionStore
	Projects      ports.ProjectStore
	Namespaces    ports.NamespaceStore
	Users         ports.UserStore
	Tx            ports.TxManager
	Bus           ports.EventBus
	Clock         ports.Clock
	Policy        *access.Policy
	Presenter     *apijson.IssuePresenter
	MRPresenter   *apijson.MergeRequestPresenter
	TodoPresenter *apijson.TodoPresenter
	Log           *zap.Logger `optional:"true"`
}

// Service holds the use cases of issues, milestones and labels.
type Service struct {
	p   Params
	log *zap.Logger
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log}
}

// now is truncated to milliseconds, the precision clients see, so a
// timestamp sent back as a filter bound matches what it came from.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// target is a project as the caller sees it.
type target struct {
	caller  *domain.Caller
	project *domain.Project
	rights  access.Rights
}

// canRead is whether the issue tracker shows at all (issues_enabled).
func (t target) canRead() bool { return access.CanReadIssues(t.project, t.rights) }

// canReadIssue adds confidentiality.
func (t target) canReadIssue(is *domain.Issue) bool {
	return access.CanReadIssue(t.caller, t.project, t.rights, is)
}

// canCreate is GitLab's create_issue: guests and up, and in public and
// internal projects any signed-in user who is not external.
func (t target) canCreate() bool {
	if t.caller.UserID() == 0 || t.project.Archived || !t.canRead() {
		return false
	}
	return t.rights.AtLeast(domain.Guest) || (t.project.Visibility != domain.Private && !t.caller.User.External)
}

// canAdmin is GitLab's admin_issue (and admin_milestone, admin_label):
// reporters and up, on a project that is not archived.
func (t target) canAdmin() bool {
	return t.caller.UserID() != 0 && t.rights.AtLeast(domain.Reporter) && !t.project.Archived
}

// canUpdate is update_issue: the author, the assignee, or reporters and
// up (GitLab's IssuePolicy lets authors and assignees edit their issue).
func (t target) canUpdate(is *domain.Issue) bool {
	uid := t.caller.UserID()
	if uid == 0 || t.project.Archived || !t.rights.Read {
		return false
	}
	return t.rights.AtLeast(domain.Reporter) || is.AuthorID == uid || (is.AssigneeID != nil && *is.AssigneeID == uid)
}

// viewer is which confidential issues of this one project the caller sees.
func (t target) viewer() domain.IssueViewer {
	if t.rights.AtLeast(domain.Reporter) {
		return domain.IssueViewer{All: true, UserID: t.caller.UserID()}
	}
	return domain.IssueViewer{UserID: t.caller.UserID()}
}

// resolve finds {id} with the caller's rights (404 when unreadable).
func (s *Service) resolve(r *http.Request) (target, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return target{}, err
	}
	caller := httpx.CallerOf(r)
	p, rights, err := s.p.Policy.ProjectByRef(r.Context(), caller, ref)
	if err != nil {
		return target{}, err
	}
	return target{caller: caller, project: p, rights: rights}, nil
}

// project resolves {id} to a project whose issues the caller may read;
// a disabled tracker is the project's 404.
func (s *Service) project(r *http.Request) (target, error) {
	t, err := s.resolve(r)
	if err != nil {
		return t, err
	}
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

// load reads {issue_iid}; an issue the caller may not see is a 404.
func (s *Service) load(r *http.Request, t target) (*domain.Issue, error) {
	iid, err := positiveParam(r, "issue_iid", "Issue")
	if err != nil {
		return nil, err
	}
	is, err := s.p.Issues.Get(r.Context(), t.project.ID, iid)
	if err != nil {
		return nil, notFound(err, "Issue", "read issue")
	}
	if !t.canReadIssue(is) {
		return nil, core.NotFound("Issue")
	}
	return is, nil
}

// positiveParam reads a numeric path parameter; anything else is the
// 404 of what.
func positiveParam(r *http.Request, name, what string) (int64, error) {
	raw, err := httpx.PathParam(r, name)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != raw {
		return 0, core.NotFound(what)
	}
	return n, nil
}

// notFound maps a store's not-found to GitLab's 404 of what, and wraps
// anything else.
func notFound(err error, what, doing string) error {
	if errors.Is(err, core.ErrNotFound) {
		return core.NotFound(what)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// rightsOf is a user's rights on a project, for assignees, mentions and
// merge actors.
func (s *Service) rightsOf(ctx context.Context, u *domain.User, p *domain.Project) (target, error) {
	caller := &domain.Caller{User: u}
	rights, err := s.p.Policy.Project(ctx, caller, p)
	if err != nil {
		return target{}, fmt.Errorf("access of user %d: %w", u.ID, err)
	}
	return target{caller: caller, project: p, rights: rights}, nil
}

// render presents one issue for the caller.
func (s *Service) render(r *http.Request, is *domain.Issue) (*apijson.Issue, error) {
	return s.p.Presenter.One(r.Context(), httpx.CallerOf(r), is)
}

func subject(is *domain.Issue) domain.Subject {
	return domain.Subject{Type: domain.TargetIssue, ID: is.ID}
}

// fullPath is "namespace/project", for references across projects.
func (s *Service) fullPath(ctx context.Context, projectID int64) string {
	p, err := s.p.Projects.Get(ctx, projectID)
	if err != nil {
		return ""
	}
	ns, err := s.p.Namespaces.Get(ctx, p.NamespaceID)
	if err != nil {
		return p.Path
	}
	return ns.FullPath + "/" + p.Path
}
