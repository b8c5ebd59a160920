package issues

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	issuable.Deps
	Issues        ports.IssueStore
	Milestones    ports.MilestoneStore
	MergeRequests ports.MergeRequestStore
	Projects      ports.ProjectStore
	Namespaces    ports.NamespaceStore
	Tx            ports.TxManager
	Awards        ports.AwardStore `optional:"true"` // copied when an issue moves
	Bus           ports.EventBus
	Log           *zap.Logger `optional:"true"`
}

// Service holds the use cases of issues, milestones and labels. Each takes
// the caller and typed input and returns domain values or core errors.
type Service struct {
	p        Params
	log      *zap.Logger
	activity *issuable.Activity
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log, activity: issuable.NewActivity(p.Deps, p.Milestones)}
}

// now is the time to stamp, truncated to what clients see.
func (s *Service) now() time.Time { return s.activity.Now() }

// issue reads issue iid of the target's project; one the caller may not
// see is a 404 like a missing one (iid 0 names none).
func (s *Service) issue(ctx context.Context, t access.Target, iid int64) (*domain.Issue, error) {
	if iid <= 0 {
		return nil, core.NotFound("Issue")
	}
	is, err := s.p.Issues.Get(ctx, t.Project.ID, iid)
	if err != nil {
		return nil, core.StoreError(err, "Issue", "read issue")
	}
	if !t.Can(access.ReadIssue, access.OnIssue(is)) {
		return nil, core.NotFound("Issue")
	}
	return is, nil
}

// writable resolves the project for a write on issue iid: 401 for
// anonymous callers, 404 for a project or tracker they may not see, then
// the issue if they may see it.
func (s *Service) writable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (access.Target, *domain.Issue, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadIssue)
	if err != nil {
		return t, nil, err
	}
	is, err := s.issue(ctx, t, iid)
	return t, is, err
}

// publish announces a state change inside the caller's transaction (the
// events feed records it there).
func (s *Service) publish(ctx context.Context, is *domain.Issue, action string, actor int64) error {
	if err := s.p.Bus.Publish(ctx, domain.IssueEvent{Issue: *is, Action: action, Actor: actor}); err != nil {
		return fmt.Errorf("publish issue %s: %w", action, err)
	}
	return nil
}

// publisher announces the action of one change of is (Activity.Record).
func (s *Service) publisher(is *domain.Issue, actor int64) func(ctx context.Context, action string) error {
	return func(ctx context.Context, action string) error { return s.publish(ctx, is, action, actor) }
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
