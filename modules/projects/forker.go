package projects

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// forker runs repository copies in the background. Every copy's state is
// in the database (import_status), so a copy interrupted by a crash or a
// shutdown is resumed at the next start.
type forker struct {
	s      *Service
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running map[int64]bool
	stopped bool
}

func newForker(s *Service) *forker {
	ctx, cancel := context.WithCancel(context.Background())
	return &forker{s: s, ctx: ctx, cancel: cancel, running: map[int64]bool{}}
}

// start copies the repository of fork id unless a copy of it already runs.
func (f *forker) start(id int64) {
	f.mu.Lock()
	if f.stopped || f.running[id] {
		f.mu.Unlock()
		return
	}
	f.running[id] = true
	f.wg.Add(1)
	f.mu.Unlock()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				f.s.p.Log.Error("fork copy panicked", zap.Int64("project_id", id), zap.Any("panic", r))
			}
			f.mu.Lock()
			delete(f.running, id)
			f.mu.Unlock()
			f.wg.Done()
		}()
		f.s.copyFork(f.ctx, id)
	}()
}

// resume restarts every copy left scheduled or started.
func (f *forker) resume(ctx context.Context) error {
	pending, err := f.s.p.Projects.PendingImports(ctx)
	if err != nil {
		return fmt.Errorf("pending forks: %w", err)
	}
	for _, p := range pending {
		f.start(p.ID)
	}
	if len(pending) > 0 {
		f.s.p.Log.Info("resuming fork copies", zap.Int("count", len(pending)))
	}
	return nil
}

// stop lets running copies finish while ctx allows, then cancels them (an
// interrupted copy keeps its state and resumes at the next start).
func (f *forker) stop(ctx context.Context) error {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		f.cancel()
		<-done
	}
	f.cancel()
	return nil
}

// copyFork copies the source repository into fork id and records the
// outcome. "scheduled" means no copy began, so a repository already at the
// destination is an orphan and is replaced; "started" with the destination
// present means the (atomic) copy completed before a crash.
func (s *Service) copyFork(ctx context.Context, id int64) {
	log := s.p.Log.With(zap.Int64("project_id", id))
	p, err := s.p.Projects.Get(ctx, id)
	if err != nil {
		if !errors.Is(err, core.ErrNotFound) && ctx.Err() == nil {
			log.Error("load fork", zap.Error(err))
		}
		return
	}
	if p.ImportStatus != domain.ImportScheduled && p.ImportStatus != domain.ImportStarted {
		return
	}
	if p.ForkedFromID == nil {
		s.finishFork(ctx, id, "The source project was deleted before its repository was copied")
		return
	}
	dst, src := domain.RepoPath(id), domain.RepoPath(*p.ForkedFromID)
	exists, err := s.p.Repos.Exists(ctx, dst)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("check fork repository", zap.Error(err))
			s.finishFork(ctx, id, "The repository could not be copied")
		}
		return
	}
	if exists && p.ImportStatus == domain.ImportStarted {
		s.finishFork(ctx, id, "")
		return
	}
	if exists {
		if err := s.p.Repos.Delete(ctx, dst); err != nil {
			if ctx.Err() == nil {
				log.Error("delete orphaned repository", zap.Error(err))
				s.finishFork(ctx, id, "The repository could not be copied")
			}
			return
		}
	}
	if _, err := s.p.Projects.Update(ctx, id, func(p *domain.Project) error {
		p.ImportStatus = domain.ImportStarted
		p.ImportError = ""
		return nil
	}); err != nil {
		if !errors.Is(err, core.ErrNotFound) && ctx.Err() == nil {
			log.Error("mark fork started", zap.Error(err))
		}
		return
	}
	err = s.p.Repos.Fork(ctx, src, dst)
	if ctx.Err() != nil {
		return // shutting down: resumed at the next start
	}
	switch {
	case err == nil, errors.Is(err, core.ErrConflict):
		// ErrConflict: another node resuming the same fork made the copy.
		s.finishFork(ctx, id, "")
	case errors.Is(err, core.ErrNotFound):
		log.Warn("fork source repository missing", zap.Error(err))
		s.finishFork(ctx, id, "The source repository does not exist")
	default:
		log.Error("copy fork repository", zap.Error(err))
		s.finishFork(ctx, id, "The repository could not be copied")
	}
}

// finishFork records the end of a copy: "finished", or "failed" with
// importError. A fork deleted meanwhile loses the repository just made.
func (s *Service) finishFork(ctx context.Context, id int64, importError string) {
	_, err := s.p.Projects.Update(ctx, id, func(p *domain.Project) error {
		if importError == "" {
			p.ImportStatus = domain.ImportFinished
		} else {
			p.ImportStatus = domain.ImportFailed
		}
		p.ImportError = importError
		return nil
	})
	switch {
	case err == nil:
		s.p.Log.Info("fork copy done", zap.Int64("project_id", id), zap.String("import_error", importError))
	case errors.Is(err, core.ErrNotFound):
		if derr := s.p.Repos.Delete(ctx, domain.RepoPath(id)); derr != nil {
			s.p.Log.Error("delete the repository of a deleted fork", zap.Int64("project_id", id), zap.Error(derr))
		}
	case ctx.Err() == nil:
		s.p.Log.Error("record fork outcome", zap.Int64("project_id", id), zap.Error(err))
	}
}
