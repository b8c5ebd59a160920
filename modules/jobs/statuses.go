package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// External statuses sit in a stage of their own after every CI stage, as
// GitLab's GenericCommitStatus does.
const (
	externalStage    = "external"
	externalStageIdx = 1000000
)

// commitOf resolves sha in the project's repository: 404 "Commit Not
// Found" when it names no commit.
func (s *Service) commitOf(ctx context.Context, proj *domain.Project, sha string) (domain.Commit, error) {
	if sha == "" {
		return domain.Commit{}, core.NotFound("Commit")
	}
	c, err := s.p.Repos.Commit(ctx, domain.RepoPath(proj.ID), sha)
	if errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid) {
		return domain.Commit{}, core.NotFound("Commit")
	}
	if err != nil {
		return domain.Commit{}, fmt.Errorf("read commit %q: %w", sha, err)
	}
	return c, nil
}

// Statuses lists the statuses of a commit (CI jobs and external ones) on
// ref (the default branch when none is given, as the spec says), oldest
// first: only the latest of each name unless in.All.
func (s *Service) Statuses(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, sha string, in StatusesInput) (*Listed, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadCommitStatus)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	c, err := s.commitOf(ctx, t.Project, sha)
	if err != nil {
		return nil, err
	}
	onRef := in.Ref
	if onRef == "" {
		onRef = t.Project.DefaultBranch
	}
	// A commit has few statuses: read them all and page here, oldest first.
	all, _, err := s.p.Jobs.List(ctx, domain.JobFilter{ProjectID: t.Project.ID, SHA: c.ID, Ref: onRef,
		Stage: in.Stage, Name: in.Name, Latest: !in.All})
	if err != nil {
		return nil, fmt.Errorf("statuses of %s: %w", c.ID, err)
	}
	slices.Reverse(all)
	total := len(all)
	from := min(in.Page.Offset(), total)
	to := total
	if in.Page.PerPage > 0 {
		to = min(from+in.Page.PerPage, total)
	}
	return &Listed{Jobs: all[from:to], Total: total}, nil
}

// PostStatus adds a status of another system to a commit, or moves the
// pending or running status of that name on the pipeline of sha and ref
// (found or created, source external) to in.State. A transition the
// status cannot take is GitLab's 400 "Cannot transition status via ...".
func (s *Service) PostStatus(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, sha string, in StatusInput) (*domain.Job, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.CreateCommitStatus); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	c, err := s.commitOf(ctx, t.Project, sha)
	if err != nil {
		return nil, err
	}
	onRef := in.Ref
	if onRef == "" {
		if onRef, err = s.branchContaining(ctx, t.Project, c.ID); err != nil {
			return nil, err
		}
	}
	tag, err := s.isTag(ctx, t.Project, onRef)
	if err != nil {
		return nil, err
	}
	actor := caller.UserID()
	name := in.statusName()
	now := s.now()
	var out *domain.Job
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		pl, err := s.pipelineFor(ctx, t.Project, c.ID, onRef, tag, actor, now)
		if err != nil {
			return err
		}
		siblings, _, err := s.p.Jobs.List(ctx, domain.JobFilter{PipelineID: pl.ID, Name: name, Latest: true})
		if err != nil {
			return fmt.Errorf("statuses named %q: %w", name, err)
		}
		for _, j := range siblings {
			if j.Kind == domain.JobExternal && j.Ref == onRef && j.Status.Active() && j.UserID != nil && *j.UserID == actor {
				var prev domain.CIStatus
				u, err := s.p.Jobs.Update(ctx, j.ID, func(j *domain.Job) error {
					prev = j.Status
					in.apply(j)
					return transition(j, in.State, now)
				})
				if err != nil {
					return err
				}
				out = u
				return s.published(ctx, u, prev, actor)
			}
		}
		j := domain.Job{PipelineID: pl.ID, ProjectID: t.Project.ID, Kind: domain.JobExternal, Name: name,
			Stage: externalStage, StageIdx: externalStageIdx, Status: domain.CICreated, Ref: onRef, Tag: tag,
			SHA: c.ID, When: domain.WhenOnSuccess, UserID: &actor, CreatedAt: now, UpdatedAt: now}
		in.apply(&j)
		if err := transition(&j, in.State, now); err != nil {
			return err
		}
		if err := s.p.Jobs.Create(ctx, &j); err != nil {
			return fmt.Errorf("create commit status: %w", err)
		}
		// The new status supersedes the others of its name on the
		// pipeline (GitLab's update_retried).
		for _, old := range siblings {
			if _, err := s.p.Jobs.Update(ctx, old.ID, func(o *domain.Job) error {
				o.Retried = true
				return nil
			}); err != nil {
				return fmt.Errorf("supersede job %d: %w", old.ID, err)
			}
		}
		out = &j
		return s.published(ctx, &j, "", actor)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// apply sets the optional attributes that were given.
func (in StatusInput) apply(j *domain.Job) {
	if in.TargetURL != nil {
		j.TargetURL = *in.TargetURL
	}
	if in.Description != nil {
		j.Description = *in.Description
	}
	if in.Coverage != nil {
		c := *in.Coverage
		j.Coverage = &c
	}
}

// transition moves an external status to state as GitLab's commit status
// API does (running is enqueue, then run), with the state machine's
// message when it cannot (400 "Cannot transition status via :run from
// :running ...").
func transition(j *domain.Job, state string, now time.Time) error {
	var event string
	var err error
	switch state {
	case "pending":
		event, err = "enqueue", j.Enqueue(now)
	case "running":
		if j.Status == domain.CICreated {
			_ = j.Enqueue(now)
		}
		event, err = "run", j.Run(now)
	case "success":
		event, err = "success", j.Succeed(now)
	case "failed":
		event, err = "drop", j.Drop(now, domain.FailureAPI)
	case "canceled":
		event, err = "cancel", j.Cancel(now)
	default:
		return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "state does not have a valid value"}
	}
	var te *domain.ErrTransition
	if errors.As(err, &te) {
		return core.BadRequest(fmt.Sprintf("Cannot transition status via :%s from :%s (Reason(s): Status cannot transition via \"%s\")",
			event, te.From, event))
	}
	return err
}

// branchContaining is the branch a status without ref goes to: the
// default branch when it holds the commit, else the first branch by name
// that does; 404 "References for commit Not Found" when none does.
func (s *Service) branchContaining(ctx context.Context, proj *domain.Project, sha string) (string, error) {
	repo := domain.RepoPath(proj.ID)
	branches, err := s.p.Repos.Branches(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("branches: %w", err)
	}
	slices.SortStableFunc(branches, func(a, b domain.Branch) int {
		switch {
		case a.Name == proj.DefaultBranch:
			return -1
		case b.Name == proj.DefaultBranch:
			return 1
		}
		return 0
	})
	for _, b := range branches {
		ok, err := s.p.Repos.IsAncestor(ctx, repo, sha, b.Commit.ID)
		if err != nil {
			return "", fmt.Errorf("is %s in %s: %w", sha, b.Name, err)
		}
		if ok {
			return b.Name, nil
		}
	}
	return "", core.NotFound("References for commit")
}

// isTag reports whether ref names a tag and no branch (a branch wins).
func (s *Service) isTag(ctx context.Context, proj *domain.Project, ref string) (bool, error) {
	repo := domain.RepoPath(proj.ID)
	if _, err := s.p.Repos.Branch(ctx, repo, ref); err == nil {
		return false, nil
	} else if !errors.Is(err, core.ErrNotFound) && !errors.Is(err, core.ErrInvalid) {
		return false, fmt.Errorf("branch %q: %w", ref, err)
	}
	_, err := s.p.Repos.Tag(ctx, repo, ref)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid):
		return false, nil
	}
	return false, fmt.Errorf("tag %q: %w", ref, err)
}

// pipelineFor is the newest pipeline of sha on ref, or a new one holding
// external statuses.
func (s *Service) pipelineFor(ctx context.Context, proj *domain.Project, sha, ref string, tag bool, actor int64, now time.Time) (*domain.Pipeline, error) {
	pl, err := s.p.Pipelines.Latest(ctx, proj.ID, sha, ref)
	if err == nil {
		return pl, s.p.Pipelines.Lock(ctx, pl.ID)
	}
	if !errors.Is(err, core.ErrNotFound) {
		return nil, fmt.Errorf("pipeline of %s on %q: %w", sha, ref, err)
	}
	pl = &domain.Pipeline{ProjectID: proj.ID, Ref: ref, Tag: tag, SHA: sha, Status: domain.CICreated,
		Source: domain.SourceExternal, UserID: &actor, CreatedAt: now, UpdatedAt: now}
	if err := s.p.Pipelines.Create(ctx, pl, nil); err != nil {
		return nil, fmt.Errorf("create pipeline of %s on %q: %w", sha, ref, err)
	}
	return pl, nil
}
