package mergerequests

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
	MergeRequests ports.MergeRequestStore
	Projects      ports.ProjectStore
	Namespaces    ports.NamespaceStore
	Protected     ports.ProtectedBranchStore
	Repos         ports.RepoReader
	Git           ports.RepoWriter
	Tx            ports.TxManager
	Bus           ports.EventBus
	// Milestones come from the issues module's store when the app has one.
	Milestones ports.MilestoneReader `optional:"true"`
	Issues     ports.IssueReader
	// Pipelines tell the head pipeline of a source branch (absent in an
	// app without CI: only recorded successes count then).
	Pipelines ports.PipelineStore `optional:"true"`
	Log       *zap.Logger         `optional:"true"`
}

// Service holds the merge request use cases. Each takes the caller and
// typed input and returns domain values or core errors.
type Service struct {
	p        Params
	log      *zap.Logger
	activity *issuable.Activity
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
	return &Service{p: p, log: log, activity: issuable.NewActivity(p.Deps, p.Milestones), lease: time.Minute}
}

// now is the time to stamp, truncated to what clients see.
func (s *Service) now() time.Time { return s.activity.Now() }

func repoOf(projectID int64) string { return domain.RepoPath(projectID) }

// load reads merge request iid of the target's project as stored (iid 0
// names none).
func (s *Service) load(ctx context.Context, t access.Target, iid int64) (*domain.MergeRequest, error) {
	if iid <= 0 {
		return nil, core.NotFound("Merge Request")
	}
	m, err := s.p.MergeRequests.Get(ctx, t.Project.ID, iid)
	if err != nil {
		return nil, core.StoreError(err, "Merge Request", "read merge request")
	}
	return m, nil
}

// fresh loads merge request iid and brings it up to date with git.
func (s *Service) fresh(ctx context.Context, t access.Target, iid int64) (*domain.MergeRequest, error) {
	m, err := s.load(ctx, t, iid)
	if err != nil {
		return nil, err
	}
	return s.refresh(ctx, m, 0)
}

// writable resolves the project for a write on merge request iid (401
// for anonymous callers, then 404) and loads it as stored.
func (s *Service) writable(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (access.Target, *domain.MergeRequest, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return t, nil, err
	}
	m, err := s.load(ctx, t, iid)
	return t, m, err
}

// mayMerge is GitLab's can_be_merged_by?: developers merge into an
// unprotected target; into a protected one, whom its rule's push or merge
// level admits (so "No one" for both refuses masters too).
func (s *Service) mayMerge(ctx context.Context, t access.Target, branch string) (bool, error) {
	if !t.Can(access.PushCode) {
		return false, nil
	}
	rules, err := s.p.Protected.List(ctx, t.Project.ID)
	if err != nil {
		return false, fmt.Errorf("protected branches of project %d: %w", t.Project.ID, err)
	}
	return t.MayUpdate(rules, branch), nil
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

// fullPath is "namespace/project" of a project, for references.
func (s *Service) fullPath(ctx context.Context, p *domain.Project) string {
	ns, err := s.p.Namespaces.Get(ctx, p.NamespaceID)
	if err != nil {
		return p.Path
	}
	return ns.FullPath + "/" + p.Path
}

// publish announces a state change inside the caller's transaction (the
// events feed records it there).
func (s *Service) publish(ctx context.Context, m *domain.MergeRequest, action string, actor int64, closes []domain.IssueKey) error {
	ev := domain.MergeRequestEvent{MergeRequest: *m, Action: action, Actor: actor, Closes: closes}
	if err := s.p.Bus.Publish(ctx, ev); err != nil {
		return fmt.Errorf("publish merge request %s: %w", action, err)
	}
	return nil
}

// publisher announces the action of one change of m (Activity.Record).
func (s *Service) publisher(m *domain.MergeRequest, actor int64) func(ctx context.Context, action string) error {
	return func(ctx context.Context, action string) error { return s.publish(ctx, m, action, actor, nil) }
}

// systemNote records a change on the merge request's discussion, in the
// caller's transaction.
func (s *Service) systemNote(ctx context.Context, m *domain.MergeRequest, actor int64, body string) error {
	return s.activity.SystemNotes(ctx, issuable.MergeRequestItem(m), actor, body)
}

// update applies fn to merge request iid under the store's lock and
// stamps updated_at with the service's clock.
func (s *Service) update(ctx context.Context, projectID, iid int64, fn func(*domain.MergeRequest) error) (*domain.MergeRequest, error) {
	return s.p.MergeRequests.Update(ctx, projectID, iid, func(m *domain.MergeRequest) error {
		if err := fn(m); err != nil {
			return err
		}
		m.UpdatedAt = s.now()
		return nil
	})
}
