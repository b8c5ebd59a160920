package mergerequests

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/domain"
)

// subscribe follows branch moves and pipelines. Both run after the
// publisher's commit; what they change is recorded in the database, and a
// missed event is caught up by the refresh every read does.
func (s *Service) subscribe() {
	s.p.Bus.Subscribe(domain.PushEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.onPush(ctx, ev.(domain.PushEvent))
	})
	s.p.Bus.Subscribe(domain.PipelineSucceeded{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.onPipelineSucceeded(ctx, ev.(domain.PipelineSucceeded))
	})
}

// onPush refreshes the open merge requests on a moved branch: merge
// status, merged-by-push, and a note listing commits added to a source.
func (s *Service) onPush(ctx context.Context, ev domain.PushEvent) error {
	branch, ok := strings.CutPrefix(ev.Ref, domain.BranchPrefix)
	if !ok {
		return nil
	}
	open, err := s.p.MergeRequests.OpenOnBranch(ctx, ev.ProjectID, branch)
	if err != nil {
		return fmt.Errorf("merge requests on %s: %w", ev.Ref, err)
	}
	for i := range open {
		m := &open[i]
		before := m.SourceSHA
		out, err := s.refresh(ctx, m, ev.Actor)
		if err != nil {
			s.log.Warn("refresh after push", zap.Int64("merge_request_id", m.ID), zap.Error(err))
			continue
		}
		if m.SourceBranch == branch && m.SourceProjectID == ev.ProjectID && out.State.Open() && out.SourceSHA != before && ev.After != domain.ZeroID {
			s.noteNewCommits(ctx, out, before, ev.Actor)
			// GitLab's RefreshService sends the merge request's hooks an
			// "update" for new commits on its source branch.
			err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
				return s.publish(ctx, out, domain.ActionUpdated, ev.Actor, nil)
			})
			if err != nil {
				s.log.Warn("update event after push", zap.Int64("merge_request_id", m.ID), zap.Error(err))
			}
		}
	}
	return nil
}

// noteNewCommits writes GitLab's "added N commits" note.
func (s *Service) noteNewCommits(ctx context.Context, m *domain.MergeRequest, before string, actor int64) {
	q := domain.LogQuery{Ref: m.SourceSHA, Limit: 20}
	if before != "" {
		q.Exclude = []string{before}
	}
	repo := repoOf(m.SourceProjectID)
	commits, err := s.p.Repos.Log(ctx, repo, q)
	if err != nil || len(commits) == 0 {
		return
	}
	q.Limit = 0
	total, err := s.p.Repos.CountCommits(ctx, repo, q)
	if err != nil {
		total = len(commits)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "added %d commit%s\n\n", total, map[bool]string{true: "", false: "s"}[total == 1])
	for _, c := range commits {
		fmt.Fprintf(&b, "* %s - %s\n", c.ShortID(), c.Title())
	}
	if err := s.systemNote(ctx, m, actor, strings.TrimRight(b.String(), "\n")); err != nil {
		s.log.Warn("note of new commits", zap.Int64("merge_request_id", m.ID), zap.Error(err))
	}
}

// onPipelineSucceeded records the success on the merge requests whose
// source head it tested, and merges those waiting for it.
func (s *Service) onPipelineSucceeded(ctx context.Context, ev domain.PipelineSucceeded) error {
	open, err := s.p.MergeRequests.OpenOnBranch(ctx, ev.ProjectID, ev.Ref)
	if err != nil {
		return fmt.Errorf("merge requests on %s: %w", ev.Ref, err)
	}
	for i := range open {
		m := &open[i]
		if m.SourceProjectID != ev.ProjectID || m.SourceBranch != ev.Ref {
			continue
		}
		m, err := s.refresh(ctx, m, 0)
		if err != nil || !m.State.Open() || m.SourceSHA != ev.SHA {
			continue // a newer push waits for its own pipeline
		}
		m, err = s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			cur.PipelineSucceededSHA = ev.SHA
			return nil
		})
		if err != nil {
			s.log.Error("record pipeline success", zap.Int64("merge_request_id", open[i].ID), zap.Error(err))
			continue
		}
		if m.MergeWhenPipelineSucceeds && m.MergeUserID != nil {
			s.mergeWaiting(ctx, m)
		}
	}
	return nil
}

// mergeWaiting merges a request whose pipeline succeeded, as the user who
// asked for it; when that is no longer possible the wish is cancelled
// with a note, as GitLab does.
func (s *Service) mergeWaiting(ctx context.Context, m *domain.MergeRequest) {
	reason := s.tryMergeWaiting(ctx, m)
	if reason == "" {
		return
	}
	s.log.Info("automatic merge failed", zap.Int64("merge_request_id", m.ID), zap.String("reason", reason))
	actor := *m.MergeUserID
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		out, err := s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			if !cur.State.Open() || !cur.MergeWhenPipelineSucceeds {
				return errRaced
			}
			cur.MergeWhenPipelineSucceeds = false
			return nil
		})
		if err != nil {
			return err
		}
		return s.systemNote(ctx, out, actor, "canceled the automatic merge")
	})
	if err != nil && !errors.Is(err, errRaced) {
		s.log.Error("cancel automatic merge", zap.Int64("merge_request_id", m.ID), zap.Error(err))
	}
}

// tryMergeWaiting merges as the user who asked, if they still may; it
// returns why not ("" when merged).
func (s *Service) tryMergeWaiting(ctx context.Context, m *domain.MergeRequest) string {
	u, err := s.p.Users.Get(ctx, *m.MergeUserID)
	if err != nil || u.State != domain.UserActive {
		return "the user who set it can no longer merge"
	}
	p, err := s.p.Projects.Get(ctx, m.ProjectID)
	if err != nil {
		return "the project is gone"
	}
	t, err := s.p.Policy.TargetOf(ctx, &domain.Caller{User: u}, p)
	if err != nil {
		return err.Error()
	}
	if ok, _ := s.mayMerge(ctx, t, m.TargetBranch); !ok || m.MergeStatus != domain.MergeCanBeMerged || m.WorkInProgress() {
		return "the merge request cannot be merged"
	}
	if _, err := s.mergeNow(ctx, u, m, mergeOptions{message: m.MergeCommitMessage, removeSource: m.ShouldRemoveSourceBranch}); err != nil {
		return err.Error()
	}
	return ""
}

// repairAll settles every merge left locked by a previous run before the
// server takes requests (ARCHITECTURE.md: a reconciler on startup).
func (s *Service) repairAll(ctx context.Context) error {
	locked, err := s.p.MergeRequests.Locked(ctx, s.now())
	if err != nil {
		return fmt.Errorf("find interrupted merges: %w", err)
	}
	for i := range locked {
		if _, err := s.refresh(ctx, &locked[i], 0); err != nil {
			s.log.Error("repair interrupted merge", zap.Int64("merge_request_id", locked[i].ID), zap.Error(err))
		}
	}
	return nil
}
