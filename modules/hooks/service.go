package hooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Config config.Config
	Log    *zap.Logger
	Clock  ports.Clock
	Policy *access.Policy
	Tx     ports.TxManager
	Bus    ports.EventBus

	// The hooks, the outbox and the sender.
	Hooks       ports.HookStore
	SystemHooks ports.SystemHookStore
	Router      ports.HookRouter
	Deliveries  ports.HookDeliveryStore
	Events      ports.HookEventStore
	Sender      ports.HookSender
	Guard       ports.URLGuard

	// What payloads are built from.
	Users         ports.UserStore
	Keys          ports.KeyStore
	Projects      ports.ProjectStore
	Namespaces    ports.NamespaceStore
	Members       ports.MemberStore
	Issues        ports.IssueStore
	Labels        ports.LabelStore
	MergeRequests ports.MergeRequestStore
	Snippets      ports.SnippetStore
	Notes         ports.NoteStore
	Pipelines     ports.PipelineStore
	Jobs          ports.JobStore
	Reader        ports.RepoReader
}

// Service holds the hook use cases. It never sees HTTP types.
type Service struct {
	p   Params
	log *zap.Logger
	// wake nudges idle delivery workers when a transaction on this node
	// queued deliveries (buffered 1: one pending nudge is enough).
	wake chan struct{}
	// fanWake does the same for the fan-out loop, and fanOuts hands each
	// kind of kept event to its handler (fanout.go).
	fanWake chan struct{}
	fanOuts map[string]fanOutFunc
}

// NewService builds the service.
func NewService(p Params) *Service {
	return &Service{p: p, log: p.Log, wake: make(chan struct{}, 1), fanWake: make(chan struct{}, 1), fanOuts: map[string]fanOutFunc{}}
}

// nudge wakes a delivery worker without blocking.
func (s *Service) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// errHookNotFound is GitLab's answer for a hook id of another project or
// of none (ActiveRecord's RecordNotFound from user_project.hooks.find).
var errHookNotFound = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not found"}

// target resolves the project for the hooks API as GitLab's before
// filters do: anonymous callers 401 first (authenticate!), the project's
// 404, then admin_project (masters, 403 below).
func (s *Service) target(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return t, err
	}
	return t, t.Require(access.AdminHooks)
}

// load reads hook id of the target's project.
func (s *Service) load(ctx context.Context, t access.Target, id HookID) (*domain.ProjectHook, error) {
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	h, err := s.p.Hooks.Get(ctx, t.Project.ID, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errHookNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read hook: %w", err)
	}
	return h, nil
}
