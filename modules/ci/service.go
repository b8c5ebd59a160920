package ci

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
	Pipelines  ports.PipelineStore
	Jobs       ports.JobStore
	Variables  ports.VariableStore
	Triggers   ports.TriggerStore
	Users      ports.UserStore
	TokenGen   ports.TokenGenerator
	Projects   ports.ProjectStore
	Namespaces ports.NamespaceStore
	Protected  ports.ProtectedBranchStore
	Reader     ports.RepoReader
	Parser     ports.PipelineConfigParser
	Blob       ports.BlobStore
	Tx         ports.TxManager
	Bus        ports.EventBus
	Clock      ports.Clock
	Policy     *access.Policy
	Log        *zap.Logger `optional:"true"`
}

// Service holds the pipeline and variable use cases. It never sees HTTP
// types.
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

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// subscribe creates pipelines after pushes and follows job events inside
// their transactions.
func (s *Service) subscribe() {
	s.p.Bus.Subscribe(domain.PushEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.onPush(ctx, ev.(domain.PushEvent))
	})
	s.p.Bus.SubscribeTx(domain.JobEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		e := ev.(domain.JobEvent)
		if e.Job.PipelineID == 0 || processing(ctx, e.Job.PipelineID) {
			return nil // the processor of that pipeline made this change itself
		}
		after := -1
		if e.Job.Kind == domain.JobBuild && e.Previous == "" {
			after = e.Job.StageIdx // a retry: the stages after it run again
		}
		err := s.process(ctx, e.Job.PipelineID, e.Actor, after)
		if errors.Is(err, core.ErrNotFound) {
			return nil // the pipeline was deleted meanwhile
		}
		return err
	})
}

// errNotFound is GitLab's answer for a pipeline id of another project or
// of none (ActiveRecord's RecordNotFound).
var errNotFound = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not found"}

// loadPipeline reads pipeline id of the target's project.
func (s *Service) loadPipeline(ctx context.Context, t access.Target, id int64) (*domain.Pipeline, error) {
	if id <= 0 {
		return nil, errNotFound
	}
	p, err := s.p.Pipelines.Get(ctx, t.Project.ID, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read pipeline: %w", err)
	}
	return p, nil
}

// processingKey marks, in a context, the pipelines whose processor is
// running: the job events it publishes itself must not start it again.
type processingKey struct{}

// processingSet is shared by the contexts derived from one processor's;
// entries go when that processor returns, so that work run after commit
// with those contexts' values is not mistaken for the processor's.
type processingSet struct {
	mu sync.Mutex
	// ids counts the marks of each pipeline: a use case that marks a
	// pipeline and then runs the processor (which marks it too) keeps its
	// mark when the processor returns.
	ids map[int64]int
}

func processing(ctx context.Context, pipelineID int64) bool {
	set, _ := ctx.Value(processingKey{}).(*processingSet)
	if set == nil {
		return false
	}
	set.mu.Lock()
	defer set.mu.Unlock()
	return set.ids[pipelineID] > 0
}

// markProcessing records pipelineID as being processed and returns the
// context to process with and the function that ends the mark.
func markProcessing(ctx context.Context, pipelineID int64) (context.Context, func()) {
	set, _ := ctx.Value(processingKey{}).(*processingSet)
	if set == nil {
		set = &processingSet{ids: map[int64]int{}}
		ctx = context.WithValue(ctx, processingKey{}, set)
	}
	set.mu.Lock()
	set.ids[pipelineID]++
	set.mu.Unlock()
	return ctx, func() {
		set.mu.Lock()
		if set.ids[pipelineID]--; set.ids[pipelineID] <= 0 {
			delete(set.ids, pipelineID)
		}
		set.mu.Unlock()
	}
}
