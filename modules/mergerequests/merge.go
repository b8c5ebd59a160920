package mergerequests

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
	"github.com/hearth-forge/hearth/core/retry"
)

// GitLab's answers to a merge that may not happen.
var (
	errCannotMerge  = core.NotAllowed("Branch cannot be merged")
	errNotMergeable = core.NotAllowed("405 Method Not Allowed")
	errNotOpen      = core.NotAcceptable("Method Not Allowed")
)

// maxRefAttempts bounds how often a merge is redone against a target that
// moved while it was being written.
const maxRefAttempts = 40

// mergeOptions are a merge's choices.
type mergeOptions struct {
	message      string
	removeSource bool
	sha          string
	whenPipeline bool
}

// Merge runs GitLab's accept checks on merge request iid, then merges
// now or, when asked, defers the merge until a pipeline succeeds.
func (s *Service) Merge(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64, in MergeInput) (*domain.MergeRequest, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadMergeRequest)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	m, err := s.load(ctx, t, iid)
	if err != nil {
		return nil, err
	}
	opt := mergeOptions{message: in.Message, removeSource: in.RemoveSource, sha: strings.TrimSpace(in.SHA), whenPipeline: in.WhenPipeline}
	ok, err := s.mayMerge(ctx, t, m.TargetBranch)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, core.Unauthenticated()
	}
	if m, err = s.refresh(ctx, m, 0); err != nil {
		return nil, err
	}
	if !m.State.Open() {
		return nil, errNotOpen
	}
	if m.LockedAt != nil || m.WorkInProgress() {
		return nil, errNotMergeable
	}
	head, err := s.headPipeline(ctx, m)
	if err != nil {
		return nil, err
	}
	succeeded := (m.PipelineSucceededSHA != "" && m.PipelineSucceededSHA == m.SourceSHA) ||
		(head != nil && head.Status == domain.CISuccess)
	// GitLab's mergeable_ci_state?: a skipped head pipeline lets it merge too.
	ciOK := succeeded || (head != nil && head.Status == domain.CISkipped)
	// GitLab defers while the head pipeline still runs; a finished one
	// merges now. Without any pipeline the merge waits for one.
	wait := opt.whenPipeline && !succeeded && (head == nil || !head.Status.Completed())
	if !wait && t.Project.OnlyAllowMergeIfPipelineSucceeds && !ciOK {
		return nil, errNotMergeable
	}
	if m.MergeStatus != domain.MergeCanBeMerged {
		return nil, errCannotMerge
	}
	if opt.sha != "" && opt.sha != m.SourceSHA {
		return nil, core.Conflict("SHA does not match HEAD of source branch: " + m.SourceSHA)
	}
	if wait {
		return s.deferMerge(ctx, caller.UserID(), m, opt)
	}
	return s.mergeNow(ctx, caller.User, m, opt)
}

// headPipeline is the newest pipeline of the source branch's head commit
// (GitLab's head_pipeline), nil when there is none or no CI.
func (s *Service) headPipeline(ctx context.Context, m *domain.MergeRequest) (*domain.Pipeline, error) {
	if s.p.Pipelines == nil || m.SourceSHA == "" {
		return nil, nil
	}
	p, err := s.p.Pipelines.Latest(ctx, m.SourceProjectID, m.SourceSHA, m.SourceBranch)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("head pipeline: %w", err)
	}
	return p, nil
}

// deferMerge stores the wish to merge when the source head's pipeline
// succeeds (the flag lives in the database: a restart does not lose it).
func (s *Service) deferMerge(ctx context.Context, actor int64, m *domain.MergeRequest, opt mergeOptions) (*domain.MergeRequest, error) {
	var out *domain.MergeRequest
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			if !cur.State.Open() {
				return errNotOpen
			}
			if cur.LockedAt != nil {
				return errNotMergeable
			}
			cur.MergeWhenPipelineSucceeds = true
			cur.MergeUserID = &actor
			cur.MergeCommitMessage = opt.message
			cur.ShouldRemoveSourceBranch = opt.removeSource
			return nil
		})
		if err != nil {
			return err
		}
		if m.MergeWhenPipelineSucceeds {
			return nil // already waiting: the new options replace the old
		}
		return s.systemNote(ctx, out, actor, fmt.Sprintf("enabled an automatic merge when the pipeline for %s succeeds", out.SourceSHA))
	})
	return out, err
}

// CancelMerge drops the deferred merge of merge request iid.
func (s *Service) CancelMerge(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, iid int64) (*domain.MergeRequest, error) {
	t, m, err := s.writable(ctx, caller, ref, iid)
	if err != nil {
		return nil, err
	}
	ok, err := s.mayMerge(ctx, t, m.TargetBranch)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, core.Unauthenticated()
	}
	if !m.State.Open() {
		return nil, core.NotAllowed("405 Method Not Allowed")
	}
	if !m.MergeWhenPipelineSucceeds {
		return nil, core.NotAcceptable("406 Not Acceptable")
	}
	actor := caller.UserID()
	var out *domain.MergeRequest
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			if !cur.State.Open() {
				return core.NotAllowed("405 Method Not Allowed")
			}
			if !cur.MergeWhenPipelineSucceeds {
				return core.NotAcceptable("406 Not Acceptable")
			}
			cur.MergeWhenPipelineSucceeds = false
			cur.MergeUserID, cur.MergeCommitMessage, cur.ShouldRemoveSourceBranch = nil, "", false
			return nil
		})
		if err != nil {
			return err
		}
		return s.systemNote(ctx, out, actor, "canceled the automatic merge")
	})
	return out, err
}

// mergeNow writes the merge: claim the merge request (one merge at a
// time, whatever the number of callers), write the merge commit, record
// it as the intent, move the target by compare-and-swap, record the
// outcome. A crash between the last two is finished by repairLock.
func (s *Service) mergeNow(ctx context.Context, by *domain.User, m *domain.MergeRequest, opt mergeOptions) (*domain.MergeRequest, error) {
	actor := by.ID
	source := m.SourceSHA
	claimed, err := s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
		// A refused claim saves nothing, so Lock may go first.
		switch err := cur.Lock(s.now(), actor); {
		case errors.Is(err, domain.ErrInvalidTransition):
			return errNotOpen
		case errors.Is(err, domain.ErrBeingMerged):
			return errNotMergeable
		case cur.SourceSHA != source:
			return core.Conflict("SHA does not match HEAD of source branch: " + cur.SourceSHA)
		}
		cur.ShouldRemoveSourceBranch = opt.removeSource || cur.ShouldRemoveSourceBranch
		return nil
	})
	if err != nil {
		return nil, err
	}
	locked := *claimed.LockedAt
	release := func(status string) {
		_, err := s.update(context.WithoutCancel(ctx), m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			if cur.LockedAt == nil || !cur.LockedAt.Equal(locked) {
				return errRaced
			}
			cur.LockedAt, cur.InFlightSHA = nil, ""
			if status != "" {
				cur.MergeStatus = status
			}
			return nil
		})
		if err != nil && !errors.Is(err, errRaced) {
			s.log.Error("release merge lock", zap.Int64("merge_request_id", m.ID), zap.Error(err))
		}
	}
	closes := s.closingRefList(ctx, claimed)
	message := opt.message
	if message == "" {
		message = s.defaultMessage(ctx, claimed, closes)
	}
	sig := domain.Signature{Name: by.Name, Email: by.Email, When: s.now()}
	repo, ref := repoOf(m.ProjectID), domain.BranchPrefix+m.TargetBranch
	for attempt := 0; ; attempt++ {
		tgt, err := s.branchHead(ctx, m.TargetProjectID, m.TargetBranch)
		if err != nil || tgt == "" {
			release(domain.MergeCannotBeMerged)
			if err != nil {
				return nil, err
			}
			return nil, errCannotMerge
		}
		if in, err := s.p.Repos.IsAncestor(ctx, repo, source, tgt); err != nil {
			release("")
			return nil, backendErr(err, "is source in target")
		} else if in {
			// Already in the target: nothing to write, the request is merged.
			return s.recordMerged(ctx, claimed, closes, nil, actor, "")
		}
		res, err := s.p.Git.Merge(ctx, repo, domain.MergeSpec{Ours: tgt, Theirs: source, Message: message, Author: sig, Committer: sig})
		if err != nil {
			release("")
			return nil, backendErr(err, "write merge commit")
		}
		if len(res.Conflicts) > 0 || res.CommitID == "" {
			release(domain.MergeCannotBeMerged)
			return nil, errCannotMerge
		}
		_, err = s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			if cur.LockedAt == nil || !cur.LockedAt.Equal(locked) {
				return errRaced
			}
			cur.InFlightSHA = res.CommitID
			return nil
		})
		if err != nil {
			release("")
			if errors.Is(err, errRaced) {
				return nil, errNotMergeable
			}
			return nil, fmt.Errorf("record merge intent: %w", err)
		}
		err = s.p.Git.UpdateRef(ctx, repo, ref, res.CommitID, tgt)
		if err == nil {
			out, err := s.recordMerged(context.WithoutCancel(ctx), claimed, closes, &res.CommitID, actor, tgt)
			if err != nil {
				// The target moved: repairLock records it on the next read.
				s.log.Error("record merge", zap.Int64("merge_request_id", m.ID), zap.String("merge_commit", res.CommitID), zap.Error(err))
				return nil, fmt.Errorf("record merge: %w", err)
			}
			s.removeSourceBranch(context.WithoutCancel(ctx), out, actor)
			return out, nil
		}
		if !errors.Is(err, core.ErrStale) || attempt+1 >= maxRefAttempts {
			release("")
			if errors.Is(err, core.ErrStale) {
				return nil, core.Conflict("The target branch changed too often while merging; try again")
			}
			return nil, backendErr(err, "move target branch")
		}
		if err := retry.Backoff(ctx, attempt); err != nil {
			release("")
			return nil, err
		}
	}
}

// defaultMessage is GitLab 9.x's merge commit message, naming the issues
// the merge closes.
func (s *Service) defaultMessage(ctx context.Context, m *domain.MergeRequest, closes []domain.IssueRef) string {
	msg := fmt.Sprintf("Merge branch '%s' into '%s'\n\n%s", m.SourceBranch, m.TargetBranch, m.Title)
	if len(closes) > 0 {
		refs := make([]string, len(closes))
		for i, r := range closes {
			refs[i] = r.Project + "#" + strconv.FormatInt(r.IID, 10)
		}
		msg += "\n\nCloses " + sentence(refs)
	}
	p, err := s.p.Projects.Get(ctx, m.ProjectID)
	ref := fmt.Sprintf("!%d", m.IID)
	if err == nil {
		ref = s.fullPath(ctx, p) + ref
	}
	return msg + "\n\nSee merge request " + ref
}

// recordMerged saves the merged state with its note, feed event (naming
// the issues refs close) and done todos in one transaction, then
// announces the target's move. mergeSHA is nil when the source reached
// the target outside the merge request.
func (s *Service) recordMerged(ctx context.Context, m *domain.MergeRequest, refs []domain.IssueRef, mergeSHA *string, actor int64, targetBefore string) (*domain.MergeRequest, error) {
	closes := s.closingKeys(ctx, m, refs)
	var out *domain.MergeRequest
	already := false
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.update(ctx, m.ProjectID, m.IID, func(cur *domain.MergeRequest) error {
			if err := cur.MarkMerged(s.now(), mergeSHA, actor); err != nil {
				already = true // merged meanwhile: that merge stands
				return errRaced
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := s.systemNote(ctx, out, actor, "merged"); err != nil {
			return err
		}
		if _, err := s.p.Todos.MarkTargetDone(ctx, actor, issuable.MergeRequestItem(out).Subject); err != nil {
			return fmt.Errorf("mark todos done: %w", err)
		}
		return s.publish(ctx, out, domain.ActionMerged, actor, closes)
	})
	if already {
		return s.p.MergeRequests.Get(ctx, m.ProjectID, m.IID)
	}
	if err != nil {
		return nil, err
	}
	if mergeSHA != nil && targetBefore != "" {
		s.announcePush(ctx, out.ProjectID, actor, out.TargetBranch, targetBefore, *mergeSHA)
	}
	return out, nil
}

// removeSourceBranch deletes the source after a merge when asked, unless
// it is protected or moved since (new commits would be lost).
func (s *Service) removeSourceBranch(ctx context.Context, m *domain.MergeRequest, actor int64) {
	if !m.ShouldRemoveSourceBranch && !m.ForceRemoveSourceBranch {
		return
	}
	if _, protected, err := s.protection(ctx, m.SourceProjectID, m.SourceBranch); err != nil || protected {
		return
	}
	repo := repoOf(m.SourceProjectID)
	err := s.p.Git.UpdateRef(ctx, repo, domain.BranchPrefix+m.SourceBranch, domain.ZeroID, m.SourceSHA)
	if err != nil {
		if !errors.Is(err, core.ErrStale) && !errors.Is(err, core.ErrNotFound) {
			s.log.Error("remove source branch", zap.Int64("merge_request_id", m.ID), zap.Error(err))
		}
		return
	}
	s.announcePush(ctx, m.SourceProjectID, actor, m.SourceBranch, m.SourceSHA, domain.ZeroID)
}

// announcePush tells other modules a branch moved (feeds, CI, other merge
// requests on the branch).
func (s *Service) announcePush(ctx context.Context, projectID, actor int64, branch, before, after string) {
	ev := domain.PushEvent{ProjectID: projectID, Actor: actor, Ref: domain.BranchPrefix + branch,
		Before: before, After: after, At: s.now()}
	if after != domain.ZeroID {
		if c, err := s.p.Repos.Commit(ctx, repoOf(projectID), after); err == nil {
			ev.Commits = []domain.PushCommit{{ID: c.ID, Message: c.Message, Timestamp: c.Committer.When, Author: c.Author}}
			ev.TotalCommits = 1
		}
	}
	if err := s.p.Bus.Publish(ctx, ev); err != nil {
		s.log.Error("push event of merge", zap.Int64("project_id", projectID), zap.String("branch", branch), zap.Error(err))
	}
}
