package repository

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app: the git
// backend as the three narrow ports the use cases read, write and serve
// through (the transport is also asked for ports.CheckedReceiver, which the
// gitcli backend implements).
type Params struct {
	fx.In
	Projects  ports.ProjectStore
	Users     ports.UserStore
	Reader    ports.RepoReader
	Writer    ports.RepoWriter
	Transport ports.RepoTransport
	Protected ports.ProtectedBranchStore
	Releases  ports.ReleaseStore
	Comments  ports.CommitCommentStore
	Auth      ports.Authenticator
	Bus       ports.EventBus
	// Tx, when given, makes a commit comment and its event (the webhooks'
	// outbox rows) commit together.
	Tx     ports.TxManager `optional:"true"`
	Clock  ports.Clock
	Policy *access.Policy
	// Pipelines give commits their CI status; without the CI stores
	// (an embedder's app) the status stays null.
	Pipelines ports.PipelineStore `optional:"true"`
	// Settings say how the first push protects the default branch
	// (GitLab's default_branch_protection; without them, fully).
	Settings ports.Settings `optional:"true"`
	Log      *zap.Logger    `optional:"true"`
}

// Service holds the repository use cases. Each takes ctx, the caller, the
// project reference and typed input, and returns domain values or core
// errors; none sees HTTP.
type Service struct {
	p      Params
	log    *zap.Logger
	counts *countCache
	refs   *refLocks
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log, counts: newCountCache(4096), refs: newRefLocks()}
}

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// repoOf is the backend's name of a project's repository.
func repoOf(p *domain.Project) string { return domain.RepoPath(p.ID) }

// defaultRef is the ref reads use when the client names none.
func defaultRef(p *domain.Project) string {
	if p.DefaultBranch != "" {
		return p.DefaultBranch
	}
	return "master"
}

// need is what a use case asks of its caller before it looks at its
// input, in this order: a signed-in caller (401 before the project is
// looked up), a project the caller may read that offers feature (else
// 404 Project Not Found, like a project that does not exist), then
// ability (401 for anonymous callers, else 403).
type need struct {
	signedIn bool
	feature  access.Ability
	ability  access.Ability
}

var (
	// toRead is every read of repository content (download_code:
	// guests of private projects get the 404 strangers get).
	toRead = need{feature: access.DownloadCode}
	// toComment is a signed-in caller who may read the code.
	toComment = need{signedIn: true, feature: access.DownloadCode}
	// toPush is a developer's write (push_code: never on archived projects).
	toPush = need{signedIn: true, ability: access.PushCode}
	// toAdmin is a master's change of protection rules.
	toAdmin = need{signedIn: true, ability: access.AdminProject}
)

// Request is where every use case starts: the caller, the project the
// path's {id} names (the zero reference when it names none), and Invalid,
// what the handler found wrong with the rest of the request. The use case
// reports Invalid right after its access checks (target), so a caller who
// may not use an endpoint learns nothing from its validation.
type Request struct {
	Caller  *domain.Caller
	Project domain.IDOrPath
	Invalid error
}

// target resolves the project req names for its caller and checks n,
// then reports what was wrong with the request: the 401, 404 or 403 of n
// come before any 400 about parameters, and the zero reference is the
// 400 "id is invalid".
func (s *Service) target(ctx context.Context, req Request, n need) (access.Target, error) {
	var features []access.Ability
	if n.feature != "" {
		features = append(features, n.feature)
	}
	resolve := s.p.Policy.Resolve
	if n.signedIn {
		resolve = s.p.Policy.ResolveSignedIn
	}
	t, err := resolve(ctx, req.Caller, req.Project, features...)
	if err != nil {
		return access.Target{}, err
	}
	if n.ability != "" {
		if err := t.Require(n.ability); err != nil {
			return access.Target{}, err
		}
	}
	if req.Invalid != nil {
		return access.Target{}, req.Invalid
	}
	return t, nil
}

// backendErr maps a git backend failure: a missing thing is GitLab's 404
// of what, hostile or malformed input stays a 400, anything else is
// wrapped (a 500).
func backendErr(err error, what, doing string) error {
	switch {
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound(what)
	case errors.Is(err, core.ErrInvalid):
		return err
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// mayPush is GitLab's can_push_to_branch?: whether t's caller may update
// branch under rules (not force it, not delete it: protected branches
// never allow those through pushes): any developer when no rule protects
// it, else whom the rule's push level admits (no one at all for "No
// one"); a protected branch that does not exist yet may also be created
// by whom its merge level admits. exists is asked only then.
func mayPush(t access.Target, rules []domain.ProtectedBranch, branch string, exists func() (bool, error)) (bool, error) {
	if t.MayPushTo(rules, branch) {
		return true, nil
	}
	if !t.MayUpdate(rules, branch) {
		return false, nil
	}
	ok, err := exists()
	return !ok, err
}

// pageOf slices one page out of a full list.
func pageOf[T any](all []T, pg domain.Page) []T {
	from := min(pg.Offset(), len(all))
	to := min(from+pg.PerPage, len(all))
	return append(make([]T, 0, to-from), all[from:to]...)
}
