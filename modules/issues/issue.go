package issues

import (
	"context"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Get reads issue iid of the project ref names, if the caller may see it.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (*domain.Issue, access.Target, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadIssue)
	if err != nil {
		return nil, t, err
	}
	is, err := s.issue(ctx, t, iid)
	return is, t, err
}

// Delete removes an issue (owners and administrators); the store takes
// its labels, notes, awards, todos and subscriptions in the same
// transaction.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) error {
	t, is, err := s.writable(ctx, caller, ref, iid)
	if err != nil {
		return err
	}
	if err := t.Require(access.DestroyIssue); err != nil {
		return err
	}
	if err := s.p.Issues.Delete(ctx, is.ProjectID, is.IID); err != nil {
		return core.StoreError(err, "Issue", "delete issue")
	}
	return nil
}

// Subscribe records whether the caller follows the issue; it returns the
// issue, or core.ErrNotModified when that was already so.
func (s *Service) Subscribe(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, want bool) (*domain.Issue, access.Target, error) {
	t, is, err := s.writable(ctx, caller, ref, iid)
	if err != nil {
		return nil, t, err
	}
	if err := s.activity.Subscribe(ctx, issuable.IssueItem(is), caller.UserID(), want); err != nil {
		return nil, t, err
	}
	return is, t, nil
}

// MarkTodo puts the issue on the caller's todo list ("marked");
// core.ErrNotModified when it is there already.
func (s *Service) MarkTodo(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (*domain.Todo, error) {
	_, is, err := s.writable(ctx, caller, ref, iid)
	if err != nil {
		return nil, err
	}
	return s.activity.MarkTodo(ctx, issuable.IssueItem(is), caller.UserID())
}
