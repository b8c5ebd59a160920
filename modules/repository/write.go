package repository

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/retry"
)

// GitLab's messages (app/services/commits/*, app/services/files/*).
const (
	msgNoPushToBranch = "You are not allowed to push into this branch"
	msgBranchMoved    = "The branch changed too often while the commit was being written; try again"
	msgFileChanged    = "You are attempting to update a file that has changed since you started editing it."
)

// maxRefAttempts bounds how often one write is redone against a branch
// head that moved meanwhile (another commit, a push).
const maxRefAttempts = 40

// fileCommit is one commit of file actions asked through the API.
type fileCommit struct {
	branch, startBranch     string
	message                 string
	authorName, authorEmail string
	actions                 []domain.FileAction
	// lastCommitID, when set, must be the last commit that changed
	// actions[0]'s path on the branch (GitLab's update check).
	lastCommitID string
}

// checkBranchPush applies the protection rules to an API write on branch
// by t's caller, who may push code (400 when a rule stops them, as GitLab
// answers).
func (s *Service) checkBranchPush(ctx context.Context, t access.Target, branch string) error {
	rules, err := s.p.Protected.List(ctx, t.Project.ID)
	if err != nil {
		return fmt.Errorf("protected branches of project %d: %w", t.Project.ID, err)
	}
	exists := func() (bool, error) {
		_, err := s.p.Reader.Branch(ctx, repoOf(t.Project), branch)
		if errors.Is(err, core.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	ok, err := mayPush(t, rules, branch, exists)
	if err != nil {
		return fmt.Errorf("branch %q: %w", branch, err)
	}
	if !ok {
		return core.BadRequest(msgNoPushToBranch)
	}
	return nil
}

// callerSignature is the caller as author or committer.
func (s *Service) callerSignature(caller *domain.Caller) domain.Signature {
	return domain.Signature{Name: caller.User.Name, Email: caller.User.Email, When: s.now()}
}

// commitFiles writes one commit on a branch, redoing it against the new
// head when the branch moved meanwhile (the actions are path-based, as in
// GitLab), then publishes the push.
func (s *Service) commitFiles(ctx context.Context, t access.Target, fc fileCommit) (domain.Commit, error) {
	if err := s.checkBranchPush(ctx, t, fc.branch); err != nil {
		return domain.Commit{}, err
	}
	p, caller, repo := t.Project, t.Caller, repoOf(t.Project)
	committer := s.callerSignature(caller)
	author := committer
	if fc.authorName != "" {
		author.Name = fc.authorName
	}
	if fc.authorEmail != "" {
		author.Email = fc.authorEmail
	}
	var c domain.Commit
	var before string
	err := s.retryOnBranch(ctx, repo, fc.branch, func() (bool, error) {
		before = domain.ZeroID
		start := ""
		b, err := s.p.Reader.Branch(ctx, repo, fc.branch)
		switch {
		case err == nil:
			before = b.Commit.ID
		case errors.Is(err, core.ErrNotFound):
			if start, err = s.startBranch(ctx, repo, fc); err != nil {
				return false, err
			}
		default:
			return false, backendErr(err, "Branch", "read branch")
		}
		if fc.lastCommitID != "" && before != domain.ZeroID && len(fc.actions) > 0 {
			if err := s.checkLastCommit(ctx, repo, before, fc.actions[0].Path, fc.lastCommitID); err != nil {
				return false, err
			}
		}
		c, err = s.p.Writer.CommitFiles(ctx, repo, domain.CommitFiles{
			Branch: fc.branch, StartBranch: start, ExpectedHead: before, Message: fc.message,
			Author: author, Committer: committer, Actions: slices.Clone(fc.actions),
		})
		switch {
		case retryable(err):
			return true, nil
		case err != nil:
			return false, backendErr(err, "Branch", "commit files")
		}
		return false, nil
	})
	if err != nil {
		return domain.Commit{}, err
	}
	done := context.WithoutCancel(ctx)
	s.publishBranchCommit(done, p, caller, fc.branch, before, c)
	// A commit that created the default branch, or the repository's first
	// branch, may set or protect the default; others need no look.
	if before == domain.ZeroID && (len(c.ParentIDs) == 0 || fc.branch == p.DefaultBranch) {
		s.adoptDefaultBranch(done, p, []domain.RefUpdate{{Ref: domain.BranchPrefix + fc.branch, OldID: domain.ZeroID, NewID: c.ID, FastForward: true}})
	}
	return c, nil
}

// startBranch is the branch a commit to the missing branch fc.branch
// starts from: fc.startBranch, unless the repository is empty (the first
// commit starts from nothing).
func (s *Service) startBranch(ctx context.Context, repo string, fc fileCommit) (string, error) {
	if fc.startBranch == "" || fc.startBranch == fc.branch {
		return "", nil
	}
	empty, err := s.p.Reader.IsEmpty(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("is %s empty: %w", repo, err)
	}
	if empty {
		return "", nil
	}
	return fc.startBranch, nil
}

// checkLastCommit is GitLab's guard against updating a file that changed
// since the client read it.
func (s *Service) checkLastCommit(ctx context.Context, repo, head, path, want string) error {
	f, err := s.p.Reader.File(ctx, repo, head, path)
	if errors.Is(err, core.ErrNotFound) {
		return nil // the action reports the missing file
	}
	if err != nil {
		return backendErr(err, "File", "read file")
	}
	if f.LastCommitID != want {
		return core.BadRequest(msgFileChanged)
	}
	return nil
}

// retryOnMove runs attempt until it no longer reports that it lost a race
// on a branch head (moved), backing off between attempts; after
// maxRefAttempts it gives up with a 409.
func retryOnMove(ctx context.Context, attempt func() (moved bool, err error)) error {
	for n := 0; ; n++ {
		moved, err := attempt()
		if !moved {
			return err
		}
		if n+1 >= maxRefAttempts {
			return core.Conflict(msgBranchMoved)
		}
		if err := retry.Backoff(ctx, n); err != nil {
			return err
		}
	}
}

// retryOnBranch is retryOnMove holding the branch's turn among this
// process's writers (refLocks), so they do not race each other.
func (s *Service) retryOnBranch(ctx context.Context, repo, branch string, attempt func() (moved bool, err error)) error {
	unlock, err := s.refs.lock(ctx, repo, branch)
	if err != nil {
		return err
	}
	defer unlock()
	return retryOnMove(ctx, attempt)
}

// retryable tells whether a ref write lost a race worth redoing.
func retryable(err error) bool {
	return errors.Is(err, core.ErrStale) || errors.Is(err, core.ErrConflict)
}
