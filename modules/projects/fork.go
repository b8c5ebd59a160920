package projects

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Fork creates a fork of src in the namespace named by nsRef (ID or full
// path; the caller's personal namespace when empty) and returns it at once
// with import_status "scheduled". The row and the source's forks_count
// change in one transaction; the repository is copied after it commits,
// in the background, moving import_status to "started" and then to
// "finished" or "failed". The caller must be able to download the source's
// code and create projects in the target; otherwise the target namespace
// is a 404, as in GitLab.
func (s *Service) Fork(ctx context.Context, caller *domain.Caller, src *domain.Project, r access.Rights, nsRef string) (*domain.Project, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if !canDownloadCode(src, r) {
		return nil, core.Forbidden("")
	}
	var ns *domain.Namespace
	var err error
	if strings.TrimSpace(nsRef) == "" {
		if ns, err = s.personalNamespace(ctx, caller.User); err != nil {
			return nil, err
		}
	} else {
		ns, err = s.namespaceByRef(ctx, strings.TrimSpace(nsRef))
		if errors.Is(err, core.ErrNotFound) {
			return nil, core.NotFound("Target Namespace")
		}
		if err != nil {
			return nil, fmt.Errorf("target namespace: %w", err)
		}
		ok, err := s.canCreateIn(ctx, caller, ns)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, core.NotFound("Target Namespace")
		}
	}
	// The fork is as visible as its source, and no more than its group.
	vis := src.Visibility
	if ns.Kind == domain.NamespaceGroup && ns.Visibility.Rank() < vis.Rank() {
		vis = ns.Visibility
	}
	srcID := src.ID
	now := s.now()
	p := &domain.Project{
		NamespaceID:                     ns.ID,
		Name:                            src.Name,
		Path:                            src.Path,
		Description:                     src.Description,
		DefaultBranch:                   src.DefaultBranch,
		Visibility:                      vis,
		IssuesEnabled:                   true,
		MergeRequestsEnabled:            true,
		JobsEnabled:                     true,
		WikiEnabled:                     true,
		SnippetsEnabled:                 true,
		SharedRunnersEnabled:            src.SharedRunnersEnabled,
		PublicJobs:                      true,
		LFSEnabled:                      true,
		PrintingMergeRequestLinkEnabled: true,
		CreatorID:                       caller.UserID(),
		ForkedFromID:                    &srcID,
		ImportStatus:                    domain.ImportScheduled,
		TagList:                         []string{},
		AvatarURL:                       src.AvatarURL,
		CreatedAt:                       now,
		UpdatedAt:                       now,
		LastActivityAt:                  now,
	}
	// GitLab answers every failed fork with 409 and the fork's errors.
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		reached, limit, err := s.checkLimit(ctx, ns)
		if err != nil {
			return err
		}
		if reached {
			return &core.Error{Kind: core.ErrConflict, Fields: map[string][]string{"limit_reached": {limitMessage(limit)}}}
		}
		if err := s.p.Projects.Create(ctx, p); err != nil {
			if errors.Is(err, core.ErrConflict) {
				if f := core.Fields(err); len(f) > 0 {
					return &core.Error{Kind: core.ErrConflict, Fields: f}
				}
			}
			return projectWriteErr(err, "create fork")
		}
		if err := s.p.Projects.AddForks(ctx, srcID, 1); err != nil {
			return projectWriteErr(err, "count fork")
		}
		if err := s.p.Bus.Publish(ctx, domain.ProjectCreated{Project: *p, Actor: caller.UserID()}); err != nil {
			return err
		}
		id := p.ID
		s.p.Tx.AfterCommit(ctx, func(context.Context) { s.forks.start(id) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("fork scheduled", zap.Int64("project_id", p.ID), zap.Int64("source_id", srcID), zap.Int64("actor_id", caller.UserID()))
	return p, nil
}

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
				f.s.log.Error("fork copy panicked", zap.Int64("project_id", id), zap.Any("panic", r))
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
		f.s.log.Info("resuming fork copies", zap.Int("count", len(pending)))
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
	log := s.log.With(zap.Int64("project_id", id))
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
		s.log.Info("fork copy done", zap.Int64("project_id", id), zap.String("import_error", importError))
	case errors.Is(err, core.ErrNotFound):
		if derr := s.p.Repos.Delete(ctx, domain.RepoPath(id)); derr != nil {
			s.log.Error("delete the repository of a deleted fork", zap.Int64("project_id", id), zap.Error(derr))
		}
	case ctx.Err() == nil:
		s.log.Error("record fork outcome", zap.Int64("project_id", id), zap.Error(err))
	}
}
