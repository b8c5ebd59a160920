package settings

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// cacheTTL bounds how long a node serves settings another node may have
// changed.
const cacheTTL = 5 * time.Second

// Params are the ports the settings need.
type Params struct {
	fx.In
	Store ports.SettingsStore
	Clock ports.Clock
	Log   *zap.Logger
}

// Service reads and changes the settings and serves them, cached, as
// ports.Settings.
type Service struct {
	p Params

	mu     sync.Mutex // guards cur and readAt
	cur    *domain.Settings
	readAt time.Time
	// refresh lets one caller re-read expired settings while the others
	// keep being served the cached ones.
	refresh sync.Mutex
}

var _ ports.Settings = (*Service)(nil)

// NewService returns the settings service.
func NewService(p Params) *Service { return &Service{p: p} }

func (s *Service) now() time.Time { return s.p.Clock.Now() }

// cached returns the cached settings and whether they are still fresh.
func (s *Service) cached() (*domain.Settings, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, s.cur != nil && s.now().Sub(s.readAt) < cacheTTL
}

func (s *Service) remember(st *domain.Settings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur, s.readAt = st, s.now()
}

// Current is ports.Settings: the cached settings, re-read from the store
// once they are older than cacheTTL. While one request re-reads, others
// get the previous value; a failed re-read keeps serving it.
func (s *Service) Current(ctx context.Context) (domain.Settings, error) {
	cur, fresh := s.cached()
	if fresh {
		return *cur, nil
	}
	if cur != nil && !s.refresh.TryLock() {
		return *cur, nil
	}
	if cur == nil {
		s.refresh.Lock()
	}
	defer s.refresh.Unlock()
	if c, fresh := s.cached(); fresh {
		return *c, nil
	}
	st, err := s.load(ctx)
	if err != nil {
		if cur != nil {
			s.p.Log.Warn("re-reading application settings failed; serving the cached ones", zap.Error(err))
			return *cur, nil
		}
		return domain.Settings{}, err
	}
	return *st, nil
}

// load reads the stored settings and caches them.
func (s *Service) load(ctx context.Context) (*domain.Settings, error) {
	st, err := s.p.Store.Get(ctx, domain.DefaultSettings())
	if err != nil {
		return nil, fmt.Errorf("read application settings: %w", err)
	}
	s.remember(st)
	return st, nil
}

// requireAdmin is the API's before filter (authenticated_as_admin!).
func requireAdmin(caller *domain.Caller) error {
	if caller.UserID() == 0 {
		return core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return core.Forbidden("")
	}
	return nil
}

// Get reads the stored settings, bypassing the cache as GitLab's API
// does, for an administrator.
func (s *Service) Get(ctx context.Context, caller *domain.Caller) (*domain.Settings, error) {
	if err := requireAdmin(caller); err != nil {
		return nil, err
	}
	return s.load(ctx)
}

// Update applies an administrator's changes after checking them as
// GitLab's API and model do, and takes them into this node's cache at once.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, in Input) (*domain.Settings, error) {
	if err := requireAdmin(caller); err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if err := in.validateParams(); err != nil {
		return nil, err
	}
	st, err := s.p.Store.Update(ctx, domain.DefaultSettings(), func(st *domain.Settings) error {
		if err := in.apply(st); err != nil {
			return err
		}
		return validateSettings(st)
	})
	if err != nil {
		return nil, err
	}
	s.remember(st)
	s.p.Log.Info("application settings changed", zap.Int64("user_id", caller.UserID()))
	return st, nil
}
