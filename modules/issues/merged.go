package issues

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// errSkip leaves an issue as it is (already closed when its lock was
// taken, or not the merging user's to close).
var errSkip = errors.New("issue needs no closing")

// subscribe closes the issues a merge closes, inside the merge's
// transaction, so the merge and its consequences commit together.
func (s *Service) subscribe() {
	s.p.Bus.SubscribeTx(domain.MergeRequestEvent{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		return s.onMergeRequest(ctx, ev.(domain.MergeRequestEvent))
	})
}

// onMergeRequest closes each issue a merged merge request names that is
// open and that the merging user may update. A failure on one issue is
// logged and rolled back to its savepoint: it never undoes the merge.
func (s *Service) onMergeRequest(ctx context.Context, ev domain.MergeRequestEvent) error {
	if ev.Action != domain.ActionMerged || len(ev.Closes) == 0 || ev.Actor == 0 {
		return nil
	}
	actor, err := s.p.Users.Get(ctx, ev.Actor)
	if err != nil || actor.State != domain.UserActive {
		return nil
	}
	projects := map[int64]*access.Target{}
	for _, key := range ev.Closes {
		t, ok := projects[key.ProjectID]
		if !ok {
			t = s.actorTarget(ctx, actor, key.ProjectID)
			projects[key.ProjectID] = t
		}
		if t == nil {
			continue
		}
		err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
			return s.closeByMerge(ctx, *t, key.IID, &ev.MergeRequest)
		})
		if err != nil && !errors.Is(err, errSkip) {
			s.log.Error("close issue on merge", zap.Int64("project_id", key.ProjectID), zap.Int64("issue_iid", key.IID),
				zap.Int64("merge_request_id", ev.MergeRequest.ID), zap.Error(err))
		}
	}
	return nil
}

// actorTarget is the merging user's view of a project (nil when the
// project is gone or its tracker hidden from them).
func (s *Service) actorTarget(ctx context.Context, actor *domain.User, projectID int64) *access.Target {
	p, err := s.p.Projects.Get(ctx, projectID)
	if err != nil {
		return nil
	}
	t, err := s.p.Policy.TargetOf(ctx, &domain.Caller{User: actor}, p)
	if err != nil || !t.Can(access.ReadIssue) {
		return nil
	}
	return &t
}

// closeByMerge closes one issue with GitLab's note "closed via merge
// request !<iid>" (with the project's path when it lives elsewhere).
func (s *Service) closeByMerge(ctx context.Context, t access.Target, iid int64, m *domain.MergeRequest) error {
	is, err := s.p.Issues.Get(ctx, t.Project.ID, iid)
	if errors.Is(err, core.ErrNotFound) {
		return errSkip
	}
	if err != nil {
		return fmt.Errorf("read issue: %w", err)
	}
	if !is.Open() || !t.Can(access.ReadIssue, access.OnIssue(is)) || !t.Can(access.UpdateIssue, access.OnIssue(is)) {
		return errSkip
	}
	out, err := s.p.Issues.Update(ctx, t.Project.ID, iid, func(cur *domain.Issue) error {
		now := s.now()
		if err := cur.Close(now); err != nil {
			return errSkip // closed meanwhile
		}
		cur.UpdatedAt = now
		return nil
	})
	if err != nil {
		return err
	}
	ref := fmt.Sprintf("!%d", m.IID)
	if m.ProjectID != t.Project.ID {
		ref = s.fullPath(ctx, m.ProjectID) + ref
	}
	actor := t.Caller.UserID()
	it := issuable.IssueItem(out)
	if err := s.activity.SystemNotes(ctx, it, actor, "closed via merge request "+ref); err != nil {
		return err
	}
	if err := s.publish(ctx, out, domain.ActionClosed, actor); err != nil {
		return err
	}
	if _, err := s.p.Todos.MarkTargetDone(ctx, actor, it.Subject); err != nil {
		return fmt.Errorf("mark todos done: %w", err)
	}
	return nil
}
