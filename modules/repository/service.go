package repository

import (
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
	Projects  ports.ProjectStore
	Users     ports.UserStore
	Repos     ports.RepoBackend
	Protected ports.ProtectedBranchStore
	Releases  ports.ReleaseStore
	Comments  ports.CommitCommentStore
	Auth      ports.Authenticator
	Tx        ports.TxManager
	Bus       ports.EventBus
	Clock     ports.Clock
	Policy    *access.Policy
	Presenter *apijson.ProjectPresenter
	Options   httpx.Options
	Log       *zap.Logger `optional:"true"`
}

// Service holds the repository use cases shared by the handlers.
type Service struct {
	p      Params
	log    *zap.Logger
	counts *countCache
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log, counts: newCountCache(4096)}
}

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// repoOf is the backend's name of a project's repository.
func repoOf(p *domain.Project) string { return domain.RepoPath(p.ID) }

// handlers decode, call the backend and stores, and render.
type handlers struct{ s *Service }

// project resolves {id} to a project the caller may read; missing and
// unreadable projects are the same 404.
func (h handlers) project(r *http.Request) (*domain.Project, access.Rights, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return nil, access.Rights{}, err
	}
	return h.s.p.Policy.ProjectByRef(r.Context(), httpx.CallerOf(r), ref)
}

// readable is the preamble of every read of repository content: a
// readable project whose code the caller may download (GitLab's
// download_code: reporters and up, and every reader of an internal or
// public project). Guests of private projects get 404 like strangers.
func (h handlers) readable(r *http.Request) (*domain.Project, access.Rights, error) {
	p, rights, err := h.project(r)
	if err != nil {
		return nil, rights, err
	}
	if !canDownloadCode(p, rights) {
		return nil, rights, core.NotFound("Project")
	}
	return p, rights, nil
}

// writable is the preamble of every write: a user (401), a readable
// project (404), then at least level (403).
func (h handlers) writable(r *http.Request, level domain.AccessLevel) (*domain.Caller, *domain.Project, access.Rights, error) {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return nil, nil, access.Rights{}, err
	}
	p, rights, err := h.project(r)
	if err != nil {
		return nil, nil, rights, err
	}
	if !rights.AtLeast(level) {
		return nil, nil, rights, core.Forbidden("")
	}
	return caller, p, rights, nil
}

func canDownloadCode(p *domain.Project, r access.Rights) bool {
	return r.Read && (r.AtLeast(domain.Reporter) || p.Visibility != domain.Private)
}

// protection is the rule that applies to a branch, if any.
func protection(rules []domain.ProtectedBranch, branch string) (domain.ProtectedBranch, bool) {
	return domain.Protection(rules, branch)
}

// canPush tells whether a caller with rights may update branch (not force,
// not delete: protected branches never allow those through pushes).
func canPush(rights access.Rights, rules []domain.ProtectedBranch, branch string) (allowed, protected bool) {
	rule, ok := protection(rules, branch)
	if !ok {
		return rights.AtLeast(domain.Developer), false
	}
	if rights.AtLeast(domain.Master) {
		return true, true
	}
	return rule.DevelopersCanPush && rights.AtLeast(domain.Developer), true
}
